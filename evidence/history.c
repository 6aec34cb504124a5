/* history.c: each arm's history across nights: its nightly medians from
 * the runs (model.h ev_history_build), and the chart's points from those by
 * night or by ISO week (evidence/history.h). Pure. Not for drawing
 * (svghist.c). */
#include "evidence/history.h"

#include "evidence/sessions.h"
#include "stats/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long ev_day_of(const char *date)
{
    int64_t t;
    if (lvd_parse_utc(date, &t) != 0)
        return 0;
    return (long)(t >= 0 ? t / 86400 : -((-t + 86399) / 86400));
}

void ev_day_date(long day, char out[11])
{
    long z = day + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    long doe = z - era * 146097;
    long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    long d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
    long y = yoe + era * 400 + (m <= 2);
    char buf[64];
    snprintf(buf, sizeof buf, "%04ld-%02ld-%02ld", y, m, d);
    snprintf(out, 11, "%.10s", buf);
}

int ev_hist_weekly(const ev_model *m)
{
    if (m->n_dates < 2)
        return 0;
    return ev_day_of(m->dates[m->n_dates - 1]) - ev_day_of(m->dates[0]) > EV_HIST_DAILY_DAYS;
}

/* The Monday of day's ISO week (1970-01-01 was a Thursday). */
static long week_of(long day)
{
    long since_monday = ((day + 3) % 7 + 7) % 7;
    return day - since_monday;
}

/* One week's point from the nightly medians v[0..n) of days day[0..n). */
static void week_point(ev_hist_pt *p, long monday, double *v, const long *day, size_t n)
{
    memset(p, 0, sizeof *p);
    ev_day_date(monday, p->date);
    p->day = (double)(day[0] + day[n - 1]) / 2.0;
    qsort(v, n, sizeof *v, lvd_cmp_double);
    p->median = stats_median(v, n);
    p->lo = v[0];
    p->hi = v[n - 1];
    p->nights = n;
}

void ev_hist_points(const ev_point *hist, size_t nh, int weekly, ev_hist_pt **out, size_t *n)
{
    *out = lvd_xcalloc(nh ? nh : 1, sizeof **out);
    *n = 0;
    double *v = lvd_xcalloc(nh ? nh : 1, sizeof *v);
    long *day = lvd_xcalloc(nh ? nh : 1, sizeof *day);
    for (size_t k = 0, start = 0; k < nh; k++) {
        day[k] = ev_day_of(hist[k].date);
        v[k] = hist[k].median;
        if (!weekly) {
            ev_hist_pt *p = &(*out)[(*n)++];
            snprintf(p->date, sizeof p->date, "%s", hist[k].date);
            p->day = (double)day[k];
            p->median = p->lo = p->hi = v[k];
            p->nights = 1;
            continue;
        }
        int last = k + 1 == nh || week_of(ev_day_of(hist[k + 1].date)) != week_of(day[k]);
        if (last) {
            week_point(&(*out)[(*n)++], week_of(day[k]), v + start, day + start, k + 1 - start);
            start = k + 1;
        }
    }
    free(v);
    free(day);
}

/* --- nightly medians from runs ------------------------------------------------ */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct bucket {
    size_t arm;
    int tg;                 /* the arm's tg test (1) or its pp test (0) */
    char date[11];
    double *v;
    size_t n;
} bucket;

/* Each run's session date (its session's first start dates it). */
static char (*session_dates(const lvd_run *runs, size_t n))[11]
{
    size_t *id = lvd_xcalloc(n + 1, sizeof *id);
    size_t ns = ev_session_ids(runs, n, id);
    int64_t *first = lvd_xcalloc(ns + 1, sizeof *first);
    size_t seen = 0; /* sessions are numbered as they first appear: a new one's number is `seen` */
    for (size_t i = 0; i < n; i++)
        if (id[i] == seen)
            first[seen++] = runs[i].started_at;
        else if (runs[i].started_at < first[id[i]])
            first[id[i]] = runs[i].started_at;
    char(*date)[11] = lvd_xcalloc(n + 1, sizeof *date);
    for (size_t i = 0; i < n; i++)
        ev_date(first[id[i]], date[i]);
    free(first);
    free(id);
    return date;
}

/* One result of an arm's tg or pp test, on its session's date. */
typedef struct entry {
    size_t arm;
    int tg;
    const char *date;
    const lvd_result *r;
    size_t order;           /* run order: a bucket's samples in the order the runs came */
} entry;

/* Entries by arm, test, date (each arm's history in date order), then run order. */
static int cmp_entry(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    if (a->arm != b->arm)
        return a->arm < b->arm ? -1 : 1;
    if (a->tg != b->tg)
        return a->tg - b->tg;
    int c = strcmp(a->date, b->date);
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

/* The entries of the ok runs' results of each arm's tg and pp tests. */
static entry *entries_of(const ev_model *m, const lvd_run *runs, size_t n, char (*date)[11], size_t *ne)
{
    entry *e = NULL;
    size_t cap = 0;
    *ne = 0;
    for (size_t i = 0; i < n; i++) {
        const lvd_run *r = &runs[i];
        if (strcmp(r->status, "ok"))
            continue;
        size_t a = 0;
        while (a < m->n_arms &&
               !(m->arms[a].engine_id == r->engine_id && !strcmp(m->arms[a].arm_key, r->arm_key ? r->arm_key : "")))
            a++;
        if (a == m->n_arms)
            continue;
        for (size_t t = 0; t < r->n_results; t++)
            for (int tg = 0; tg < 2; tg++) {
                const char *test = tg ? m->arms[a].tg.test : m->arms[a].pp.test;
                if (!*test || strcmp(r->results[t].test, test))
                    continue;
                if (*ne == cap) {
                    cap = cap ? 2 * cap : 64;
                    e = lvd_xrealloc(e, cap * sizeof *e);
                }
                e[*ne] = (entry){.arm = a, .tg = tg, .date = date[i], .r = &r->results[t], .order = *ne};
                (*ne)++;
            }
    }
    return e;
}

/* The buckets of (arm, test, session date) of the ok runs' samples of each
 * arm's tg and pp tests, by arm, test, then date: the entries sorted once
 * and each run of equal keys gathered (a key whose results kept no
 * sample has no bucket). */
static bucket *collect(const ev_model *m, const lvd_run *runs, size_t n, size_t *nb)
{
    char(*date)[11] = session_dates(runs, n);
    size_t ne;
    entry *e = entries_of(m, runs, n, date, &ne);
    if (ne)
        qsort(e, ne, sizeof *e, cmp_entry);
    bucket *b = NULL;
    *nb = 0;
    for (size_t i = 0; i < ne; i++) {
        double *kept;
        size_t nk = stats_result_kept(e[i].r, &kept, NULL);
        if (!nk)
            continue;
        int same = *nb && b[*nb - 1].arm == e[i].arm && b[*nb - 1].tg == e[i].tg && !strcmp(b[*nb - 1].date, e[i].date);
        if (!same) {
            b = lvd_xrealloc(b, (*nb + 1) * sizeof *b);
            b[*nb] = (bucket){.arm = e[i].arm, .tg = e[i].tg};
            snprintf(b[*nb].date, sizeof b[*nb].date, "%s", e[i].date);
            (*nb)++;
        }
        bucket *x = &b[*nb - 1];
        x->v = lvd_xrealloc(x->v, (x->n + nk) * sizeof *x->v);
        memcpy(x->v + x->n, kept, nk * sizeof *kept);
        x->n += nk;
        free(kept);
    }
    free(e);
    free(date);
    return b;
}

/* The buckets' dates, sorted and distinct, the last `nights` of them (0 = all). */
static char **last_dates(const bucket *b, size_t nb, size_t nights, size_t *n_out)
{
    const char **all = lvd_xcalloc(nb + 1, sizeof *all);
    for (size_t j = 0; j < nb; j++)
        all[j] = b[j].date;
    qsort(all, nb, sizeof *all, cmp_str);
    size_t nd = 0; /* distinct, in place */
    for (size_t j = 0; j < nb; j++)
        if (!nd || strcmp(all[nd - 1], all[j]))
            all[nd++] = all[j];
    size_t skip = nights && nd > nights ? nd - nights : 0;
    char **dates = lvd_xcalloc(nd - skip + 1, sizeof *dates);
    for (size_t k = skip; k < nd; k++)
        dates[k - skip] = lvd_xstrdup(all[k]);
    free(all);
    *n_out = nd - skip;
    return dates;
}

/* Appends bucket j's median as a point of its arm's tg or pp history. */
static void add_point(ev_arm *arm, bucket *j)
{
    ev_point **hist = j->tg ? &arm->hist : &arm->hist_pp;
    size_t *n = j->tg ? &arm->n_hist : &arm->n_hist_pp;
    *hist = lvd_xrealloc(*hist, (*n + 1) * sizeof **hist);
    ev_point *p = &(*hist)[(*n)++];
    snprintf(p->date, sizeof p->date, "%s", j->date);
    qsort(j->v, j->n, sizeof *j->v, lvd_cmp_double);
    p->median = stats_median(j->v, j->n);
    p->n = j->n;
}

void ev_history_build(ev_model *m, const lvd_run *runs, size_t n, size_t nights)
{
    size_t nb;
    bucket *b = collect(m, runs, n, &nb);
    m->dates = last_dates(b, nb, nights, &m->n_dates);
    /* one bucket per (arm, test, date), by arm, test, then date: each arm's
       points come in date order, from the first of the nights shown */
    for (size_t j = 0; j < nb && m->n_dates; j++)
        if (strcmp(b[j].date, m->dates[0]) >= 0)
            add_point(&m->arms[b[j].arm], &b[j]);
    for (size_t j = 0; j < nb; j++)
        free(b[j].v);
    free(b);
}
