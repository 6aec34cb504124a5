/* store_samples.c: the packed sample text of results.samples (the format is
 * described in store_samples.h): writing it from a result's arrays, reading
 * it back exactly, and the totals prices need. Not for SQL (store_runs.c
 * stores and loads the column). */
#include "store/store_samples.h"

#include "common/util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t store_samples_predict(int tokens, double ts)
{
    if (tokens <= 0 || !(ts > 0) || !isfinite(ts))
        return 0;
    double ns = (double)tokens * 1e9 / ts;
    return ns >= 0 && ns < 9e18 ? llround(ns) : 0;
}

/* v in the shortest %g form that strtod reads back as v. */
static void put_shortest(lvd_sb *sb, double v)
{
    char buf[40];
    int p = 6;
    snprintf(buf, sizeof buf, "%.*g", p, v);
    if (strtod(buf, NULL) == v) {
        char shorter[40];
        while (p > 1) {
            snprintf(shorter, sizeof shorter, "%.*g", p - 1, v);
            if (strtod(shorter, NULL) != v)
                break;
            memcpy(buf, shorter, sizeof buf);
            p--;
        }
    } else {
        while (p < 17) {
            snprintf(buf, sizeof buf, "%.*g", ++p, v);
            if (strtod(buf, NULL) == v)
                break;
        }
    }
    lvd_sb_adds(sb, buf);
}

char *store_samples_encode(const char *path, const lvd_result *r, lvd_err *err)
{
    lvd_sb sb = {0};
    int tokens = r->n_prompt + r->n_gen;
    for (size_t i = 0; i < r->n; i++) {
        if (!isfinite(r->ts[i])) {
            lvd_sb_free(&sb);
            lvd_errf(err, "%s: %s sample %zu has no finite t/s; run not recorded", path, r->test, i);
            return NULL;
        }
        if (i)
            lvd_sb_addc(&sb, ' ');
        if (r->warmup && r->warmup[i])
            lvd_sb_addc(&sb, '*');
        if (r->ns && r->ns[i] >= 0)
            lvd_sb_addf(&sb, "%lld", (long long)(r->ns[i] - store_samples_predict(tokens, r->ts[i])));
        lvd_sb_addc(&sb, ':');
        put_shortest(&sb, r->ts[i]);
    }
    return lvd_sb_detach(&sb);
}

/* 10^0 .. 10^22, each exact in a double. */
static const double exact_pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int digit(char c) { return c >= '0' && c <= '9'; }

/* The decimal at s as strtod reads it (*end past it). The t/s values
 * written here (put_shortest: at most 17 digits, mostly 6) are read without
 * strtod when they have at most 15 significant digits and a power of ten
 * within 22: both are then exact doubles, and one multiply or divide rounds
 * once, as strtod does (Clinger's fast path); anything else goes to strtod.
 * A warm lvd select reads a few thousand of them. */
static double read_decimal(const char *s, char **end)
{
    const char *p = s + (*s == '-' || *s == '+');
    uint64_t m = 0;
    int sig = 0, exp10 = 0, any = 0, frac = 0;
    for (;; p++) {
        if (*p == '.' && !frac) {
            frac = 1;
            continue;
        }
        if (!digit(*p))
            break;
        if ((m || *p != '0') && ++sig > 15)
            return strtod(s, end);
        m = m * 10 + (uint64_t)(*p - '0');
        exp10 -= frac;
        any = 1;
    }
    if (any && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        int neg = *q == '-', e = 0;
        q += *q == '-' || *q == '+';
        if (!digit(*q))
            return strtod(s, end);
        for (; digit(*q); q++)
            e = e < 1000 ? e * 10 + (*q - '0') : e;
        exp10 += neg ? -e : e;
        p = q;
    }
    if (!any || (*p && *p != ' ') || exp10 < -22 || exp10 > 22)
        return strtod(s, end);
    double v = exp10 < 0 ? (double)m / exact_pow10[-exp10] : (double)m * exact_pow10[exp10];
    *end = (char *)p;
    return *s == '-' ? -v : v;
}

/* The decimal integer at s ([+-]digits, as store_samples_encode writes it;
 * no leading space), *end past it: 0, or -1 when there is none or it
 * overflows an int64_t. strtoll's own work without its locale and
 * whitespace: a year's evidence page reads a million of them. */
static int read_int(const char *s, int64_t *v, const char **end)
{
    int neg = *s == '-';
    const char *p = s + (*s == '-' || *s == '+');
    uint64_t m = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (!digit(*p))
        return -1;
    for (; digit(*p); p++) {
        uint64_t d = (uint64_t)(*p - '0');
        if (m > (limit - d) / 10)
            return -1;
        m = m * 10 + d;
    }
    *v = neg ? (m == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)m) : (int64_t)m;
    *end = p;
    return 0;
}

/* One token at *p (advanced past it and its separator): 0, or -1 when it
 * is malformed. */
static int read_token(const char **p, int tokens, int64_t *ns, double *ts, unsigned char *warmup)
{
    const char *s = *p;
    if (*s == ' ')
        return -1;
    *warmup = *s == '*';
    s += *warmup;
    int absolute = *s == '=';
    s += absolute;
    int64_t num = 0;
    int known = *s != ':';
    if (known) {
        const char *end;
        if (read_int(s, &num, &end) || (absolute && num < 0))
            return -1;
        s = end;
    }
    if (*s != ':' || s[1] == ' ')
        return -1;
    char *end;
    *ts = read_decimal(s + 1, &end);
    if (end == s + 1 || !isfinite(*ts) || (*end && (*end != ' ' || !end[1])))
        return -1; /* the writer never stores a t/s that is not finite (inf, nan, 1e999) */
    *ns = !known ? -1 : absolute ? num : num + store_samples_predict(tokens, *ts);
    if (known && *ns < 0)
        return -1; /* a duration below zero: the writer never stores one */
    *p = *end ? end + 1 : end;
    return 0;
}

int store_samples_decode(const char *path, const char *text, lvd_result *x, lvd_err *err)
{
    x->n = 0;
    if (!text || !*text)
        return 0;
    size_t cap = 1;
    for (const char *c = text; *c; c++)
        cap += *c == ' ';
    x->ns = lvd_xrealloc(x->ns, cap * sizeof *x->ns);
    x->ts = lvd_xrealloc(x->ts, cap * sizeof *x->ts);
    x->warmup = lvd_xrealloc(x->warmup, cap * sizeof *x->warmup);
    const char *p = text;
    while (*p && x->n < cap) {
        if (read_token(&p, x->n_prompt + x->n_gen, &x->ns[x->n], &x->ts[x->n], &x->warmup[x->n]))
            return lvd_errf(err, "%s: result %lld: malformed samples near \"%.20s\"", path, (long long)x->id, p);
        x->n++;
    }
    return 0;
}

int store_samples_totals(const char *path, const char *text, int tokens, store_sample_totals *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    lvd_result x = {.n_prompt = tokens};
    if (store_samples_decode(path, text, &x, err)) {
        lvd_result_free(&x);
        return -1;
    }
    out->n = (int)x.n;
    for (size_t i = 0; i < x.n; i++) {
        out->warmups += x.warmup[i];
        if (x.ns[i] < 0)
            continue;
        out->ns_sum = x.ns[i] > INT64_MAX - out->ns_sum ? INT64_MAX : out->ns_sum + x.ns[i]; /* a damaged store */
        out->ns_max = x.ns[i] > out->ns_max ? x.ns[i] : out->ns_max;
        if (!x.warmup[i] && x.ts[i] > 0)
            out->kept_ns = x.ns[i] > INT64_MAX - out->kept_ns ? INT64_MAX : out->kept_ns + x.ns[i];
    }
    lvd_result_free(&x);
    return 0;
}
