/* stats.c: summaries, bootstrap CI of a ratio of medians, Mann-Whitney U,
 * the decision and stopping rules and warm-up detection. See stats.h for the
 * rules and contracts; the sequential interval the win rule reads is in
 * sequential.c. Nothing here does I/O. */
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/types.h"
#include "common/util.h"

/* --- random numbers ----------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void stats_rng_seed(stats_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t stats_rng_u64(stats_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double stats_rng_uniform(stats_rng *r)
{
    return (double)(stats_rng_u64(r) >> 11) * 0x1.0p-53;
}

double stats_rng_normal(stats_rng *r)
{
    double u1 = 1.0 - stats_rng_uniform(r); /* (0, 1]: log is finite */
    double u2 = stats_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* Uniform index in [0, n); the bias of 53-bit scaling is below 2^-40 for any
 * sample count this project sees. */
static size_t rng_index(stats_rng *r, size_t n)
{
    return (size_t)(stats_rng_uniform(r) * (double)n);
}

/* --- selection ---------------------------------------------------------- */

static void swapd(double *x, ptrdiff_t i, ptrdiff_t j)
{
    double t = x[i];
    x[i] = x[j];
    x[j] = t;
}

/* Rearranges x[0..n) so that x[k] holds the k-th smallest value (0-based),
 * nothing before it is larger and nothing after it smaller (quickselect,
 * median-of-three pivot, insertion sort for short ranges). Returns x[k]. */
static double select_kth(double *x, size_t n, size_t k)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (hi - lo > 8) {
        ptrdiff_t mid = lo + (hi - lo) / 2;
        if (x[mid] < x[lo])
            swapd(x, mid, lo);
        if (x[hi] < x[lo])
            swapd(x, hi, lo);
        if (x[hi] < x[mid])
            swapd(x, hi, mid);
        double pivot = x[mid];
        ptrdiff_t i = lo, j = hi;
        while (i <= j) {
            while (x[i] < pivot)
                i++;
            while (x[j] > pivot)
                j--;
            if (i <= j) {
                swapd(x, i, j);
                i++;
                j--;
            }
        }
        /* now x[lo..j] <= pivot <= x[i..hi], and x[j+1..i-1] == pivot */
        if (kk <= j)
            hi = j;
        else if (kk >= i)
            lo = i;
        else
            return x[kk];
    }
    for (ptrdiff_t i = lo + 1; i <= hi; i++) {
        double v = x[i];
        ptrdiff_t j = i - 1;
        while (j >= lo && x[j] > v) {
            x[j + 1] = x[j];
            j--;
        }
        x[j + 1] = v;
    }
    return x[kk];
}

/* Median of x[0..n), n >= 1, reordering x. */
static double median_inplace(double *x, size_t n)
{
    size_t h = n / 2;
    double upper = select_kth(x, n, h);
    if (n % 2)
        return upper;
    double lower = x[0];
    for (size_t i = 1; i < h; i++)
        if (x[i] > lower)
            lower = x[i];
    return (lower + upper) / 2.0;
}

/* Quantile q in [0, 1] of x[0..n), n >= 1, linear interpolation between
 * order statistics (R's type 7), reordering x. */
static double quantile_inplace(double *x, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t k = (size_t)floor(pos);
    if (k >= n - 1)
        return select_kth(x, n, n - 1);
    double v = select_kth(x, n, k);
    double frac = pos - (double)k;
    if (frac == 0.0)
        return v;
    double next = x[k + 1];
    for (size_t i = k + 2; i < n; i++)
        if (x[i] < next)
            next = x[i];
    return v + frac * (next - v);
}

/* --- summaries ---------------------------------------------------------- */

double stats_median(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double *tmp = lvd_xmalloc(n * sizeof *tmp);
    memcpy(tmp, x, n * sizeof *tmp);
    double m = median_inplace(tmp, n);
    free(tmp);
    return m;
}

/* Mean and (n >= 2) sample standard deviation of log x[0..n), n >= 1;
 * both NAN when a value is not > 0. */
static void log_moments(const double *x, size_t n, double *mean, double *sd)
{
    *mean = *sd = NAN;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] > 0))
            return;
        sum += log(x[i]);
    }
    *mean = sum / (double)n;
    if (n < 2)
        return;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (log(x[i]) - *mean) * (log(x[i]) - *mean);
    *sd = sqrt(ss / (double)(n - 1));
}

void stats_summarize(const double *x, size_t n, stats_summary *out)
{
    out->n = n;
    out->median = out->mean = out->stddev = out->min = out->max = NAN;
    out->log_mean = out->log_sd = NAN;
    if (n == 0)
        return;
    log_moments(x, n, &out->log_mean, &out->log_sd);
    double sum = 0, lo = x[0], hi = x[0];
    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        if (x[i] < lo)
            lo = x[i];
        if (x[i] > hi)
            hi = x[i];
    }
    out->mean = sum / (double)n;
    out->min = lo;
    out->max = hi;
    out->median = stats_median(x, n);
    if (n >= 2) {
        double ss = 0;
        for (size_t i = 0; i < n; i++)
            ss += (x[i] - out->mean) * (x[i] - out->mean);
        out->stddev = sqrt(ss / (double)(n - 1));
    }
}

/* --- kept samples ------------------------------------------------------- */

int stats_sample_kept(const lvd_result *r, size_t i)
{
    return !(r->warmup && r->warmup[i]) && isfinite(r->ts[i]) && r->ts[i] > 0;
}

size_t stats_result_kept(const lvd_result *r, double **out, size_t *n_warmup)
{
    double *v = r->n ? lvd_xmalloc(r->n * sizeof *v) : NULL;
    size_t n = 0, warm = 0;
    for (size_t i = 0; i < r->n; i++) {
        warm += r->warmup && r->warmup[i];
        if (stats_sample_kept(r, i))
            v[n++] = r->ts[i];
    }
    if (!n) {
        free(v);
        v = NULL;
    }
    *out = v;
    if (n_warmup)
        *n_warmup = warm;
    return n;
}

/* --- Mann-Whitney U ----------------------------------------------------- */

typedef struct ranked {
    double v;
    int in_a;
} ranked;

static int cmp_ranked(const void *pa, const void *pb)
{
    double a = ((const ranked *)pa)->v, b = ((const ranked *)pb)->v;
    return (a > b) - (a < b);
}

/* P(U >= u) under H0 for arm sizes m and n without ties. The number of
 * arrangements with U = k is the coefficient of q^k in the Gaussian binomial
 * [m+n choose m]_q, built as prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i); the
 * coefficients are integers below C(40, 20) < 2^53, exact in doubles. */
static double mwu_exact_sf(size_t m, size_t n, double u)
{
    if (m > n) {
        size_t t = m;
        m = n;
        n = t;
    }
    size_t deg = m * n;
    double *c = lvd_xcalloc(deg + 1, sizeof *c);
    c[0] = 1;
    for (size_t i = 1; i <= m; i++) {
        size_t top = (i - 1) * n; /* degree so far */
        for (size_t d = top + 1; d-- > 0;) /* times (1 - q^(n+i)) */
            if (d + n + i <= deg)
                c[d + n + i] -= c[d];
        for (size_t d = i; d <= deg; d++) /* divided by (1 - q^i) */
            c[d] += c[d - i];
    }
    double total = 0, tail = 0;
    for (size_t k = 0; k <= deg; k++) {
        total += c[k];
        if ((double)k >= u)
            tail += c[k];
    }
    free(c);
    return tail / total;
}

double stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                        double *u_a, int *exact)
{
    if (u_a)
        *u_a = NAN;
    if (exact)
        *exact = 0;
    if (na == 0 || nb == 0)
        return NAN;
    size_t n = na + nb;
    ranked *r = lvd_xmalloc(n * sizeof *r);
    for (size_t i = 0; i < na; i++)
        r[i] = (ranked){a[i], 1};
    for (size_t i = 0; i < nb; i++)
        r[na + i] = (ranked){b[i], 0};
    qsort(r, n, sizeof *r, cmp_ranked);

    double rank_a = 0, ties = 0; /* sum of ranks of a; sum of t^3 - t */
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && r[j].v == r[i].v)
            j++;
        double t = (double)(j - i);
        double avg = ((double)i + 1 + (double)j) / 2.0; /* ranks i+1 .. j */
        for (size_t k = i; k < j; k++)
            if (r[k].in_a)
                rank_a += avg;
        ties += t * t * t - t;
        i = j;
    }
    free(r);

    double u1 = rank_a - (double)na * ((double)na + 1) / 2.0;
    double u2 = (double)na * (double)nb - u1;
    double umax = u1 > u2 ? u1 : u2;
    if (u_a)
        *u_a = u1;

    double p;
    if (ties == 0 && na <= STATS_MWU_EXACT_MAX && nb <= STATS_MWU_EXACT_MAX) {
        p = 2.0 * mwu_exact_sf(na, nb, umax);
        if (exact)
            *exact = 1;
    } else {
        double nn = (double)n;
        double mu = (double)na * (double)nb / 2.0;
        double var = (double)na * (double)nb / 12.0 * ((nn + 1) - ties / (nn * (nn - 1)));
        if (var <= 0)
            return 1.0; /* every value equal: no evidence either way */
        double z = (umax - mu - 0.5) / sqrt(var);
        p = erfc(z / M_SQRT2); /* 2 * P(Z > z) */
    }
    return p > 1.0 ? 1.0 : p;
}

/* --- bootstrap ---------------------------------------------------------- */

/* One arm's resampling state: its values sorted once, and a count per value
 * of how often the current replicate drew it. A replicate's median is then
 * found by walking the counts over the sorted values: O(n), no sorting and
 * no data movement per replicate. */
typedef struct resampler {
    double *sorted;
    uint32_t *count;
    size_t n;
} resampler;

static void resampler_init(resampler *rs, const double *x, size_t n, double *sorted,
                           uint32_t *count)
{
    rs->sorted = sorted;
    rs->count = count;
    rs->n = n;
    memcpy(sorted, x, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, lvd_cmp_double);
}

/* Draws n values with replacement and returns their median. */
static double resampler_median(resampler *rs, stats_rng *rng)
{
    size_t n = rs->n;
    memset(rs->count, 0, n * sizeof *rs->count);
    for (size_t i = 0; i < n; i++)
        rs->count[rng_index(rng, n)]++;
    size_t hi_rank = n / 2, lo_rank = n % 2 ? hi_rank : hi_rank - 1; /* 0-based */
    size_t cum = 0, j = 0;
    while (cum + rs->count[j] <= lo_rank)
        cum += rs->count[j++];
    double lo = rs->sorted[j];
    while (cum + rs->count[j] <= hi_rank)
        cum += rs->count[j++];
    return (lo + rs->sorted[j]) / 2.0;
}

int stats_bootstrap_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
                           size_t boot_b, double level, uint64_t seed,
                           double *lo, double *hi)
{
    *lo = *hi = NAN;
    if (na == 0 || nb == 0 || boot_b == 0 || !(level > 0 && level < 1))
        return -1;
    /* one allocation for the whole run: ratios, both arms' sorted values, counts */
    double *buf = lvd_xmalloc((boot_b + na + nb) * sizeof *buf);
    uint32_t *counts = lvd_xmalloc((na + nb) * sizeof *counts);
    double *ratios = buf;
    resampler ra, rb;
    resampler_init(&ra, a, na, buf + boot_b, counts);
    resampler_init(&rb, b, nb, buf + boot_b + na, counts + na);
    stats_rng rng;
    stats_rng_seed(&rng, seed);
    for (size_t i = 0; i < boot_b; i++) {
        double ma = resampler_median(&ra, &rng);
        double mb = resampler_median(&rb, &rng);
        ratios[i] = ma / mb;
    }
    double tail = (1.0 - level) / 2.0;
    *lo = quantile_inplace(ratios, boot_b, tail);
    *hi = quantile_inplace(ratios, boot_b, 1.0 - tail);
    free(counts);
    free(buf);
    return 0;
}

/* --- decisions ---------------------------------------------------------- */

static void rule_base(stats_rule *r)
{
    r->alpha = 0.01;
    r->m = 1;
    r->look = 1;
    r->min_samples = 5;
    r->win_min_samples = 3;
    r->boot_b = 2000;
    r->level = 0.95;
    r->seed = 0x6c76642d73656cULL; /* "lvd-sel" */
    r->stop_half_width = 0.01;
    r->max_samples = 30;
}

void stats_rule_default(stats_rule *r)
{
    rule_base(r);
    r->win = 1.03;
    r->tie_lo = 0.97;
    r->tie_hi = 1.03;
    r->floor = 0.97;
}

void stats_rule_pin(stats_rule *r)
{
    rule_base(r);
    r->win = 1.02;
    r->tie_lo = 0.98;
    r->tie_hi = 1.02;
    r->floor = 0.98;
}

const char *stats_outcome_name(stats_outcome o)
{
    switch (o) {
    case STATS_WIN_A: return "win_a";
    case STATS_WIN_B: return "win_b";
    case STATS_TIE: return "tie";
    case STATS_UNKNOWN: break;
    }
    return "unknown";
}

static int samples_valid(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]) || x[i] <= 0)
            return 0;
    return 1;
}

int stats_rule_valid(const stats_rule *rule)
{
    return rule->m > 0 && rule->look > 0 && rule->win_min_samples >= 2 && rule->boot_b > 0 &&
           rule->level > 0 && rule->level < 1 && rule->alpha > 0 && rule->alpha < 1 &&
           rule->win >= 1.0 && rule->tie_lo <= 1.0 && rule->tie_hi >= 1.0;
}

void stats_comparison_clear(stats_comparison *out)
{
    memset(out, 0, sizeof *out);
    out->outcome = STATS_UNKNOWN;
    out->ratio = out->ci_lo = out->ci_hi = out->half_width = NAN;
    out->p = out->u = out->p_threshold = NAN;
    out->seq.alpha_look = out->seq.log_ratio = out->seq.se = out->seq.df = NAN;
    out->seq.lo = out->seq.hi = NAN;
    stats_summarize(NULL, 0, &out->a);
    stats_summarize(NULL, 0, &out->b);
}

void stats_decide(const stats_rule *rule, stats_comparison *c)
{
    const stats_sequential *q = &c->seq;
    int seq_ok = q->look > 0 && isfinite(q->lo) && isfinite(q->hi);
    int ci_past = c->ci_lo > rule->win || c->ci_hi < 1.0 / rule->win;
    c->outcome = STATS_UNKNOWN;
    if (!seq_ok) {
        c->why = "too few samples in an arm for a decision";
    } else if (q->lo > rule->win) {
        c->outcome = STATS_WIN_A;
        c->why = "A wins: the sequential interval's low end is above the win threshold";
    } else if (q->hi < 1.0 / rule->win) {
        c->outcome = STATS_WIN_B;
        c->why = "B wins: the sequential interval's high end is below 1/win";
    } else if (q->n_min < rule->min_samples) {
        c->why = "too few samples in an arm for a tie, and the sequential interval reaches "
                 "inside the win threshold";
    } else if (c->ci_lo >= rule->tie_lo && c->ci_hi <= rule->tie_hi) {
        c->outcome = STATS_TIE;
        c->why = "tie: the whole CI lies inside the tie band";
    } else {
        c->why = ci_past ? "undecided: the CI is past the win threshold, the sequential interval "
                           "at this look not yet"
                         : "undecided: the sequential interval reaches inside the win threshold "
                           "and the CI leaves the tie band";
    }
}

int stats_compare(const double *a, size_t na, const double *b, size_t nb,
                const stats_rule *rule, stats_comparison *out)
{
    stats_comparison_clear(out);
    if (!stats_rule_valid(rule)) {
        out->why = "invalid rule (m, look, win_min_samples, boot_b, level, alpha, win or tie band "
                   "out of range)";
        return -1;
    }
    if (!samples_valid(a, na) || !samples_valid(b, nb)) {
        out->why = "a sample is not a finite positive throughput";
        return -1;
    }
    stats_summarize(a, na, &out->a);
    stats_summarize(b, nb, &out->b);
    out->p_threshold = rule->alpha / (double)rule->m;
    stats_sequential_interval(&out->a, &out->b, rule, &out->seq);
    if (na == 0 || nb == 0) {
        out->why = "no samples in an arm";
        return 0;
    }
    out->ratio = out->a.median / out->b.median;
    out->p = stats_mann_whitney(a, na, b, nb, &out->u, &out->exact);
    stats_bootstrap_ratio_ci(a, na, b, nb, rule->boot_b, rule->level, rule->seed,
                           &out->ci_lo, &out->ci_hi);
    out->half_width = (out->ci_hi - out->ci_lo) / (2.0 * out->ratio);
    out->no_regression = out->ci_lo >= rule->floor;
    stats_decide(rule, out);
    return 0;
}

/* --- stopping ----------------------------------------------------------- */

stats_settle stats_settled(const stats_comparison *c, const stats_rule *rule)
{
    if (c->outcome != STATS_UNKNOWN)
        return STATS_DECIDED;
    /* wholly past a win threshold: only p is missing, and samples bring it */
    if (c->ci_lo > rule->win || c->ci_hi < 1.0 / rule->win)
        return STATS_OPEN;
    if (c->a.n >= rule->min_samples && c->b.n >= rule->min_samples &&
        c->half_width <= rule->stop_half_width)
        return STATS_PRECISE;
    return STATS_OPEN;
}

size_t stats_round_needed(const stats_comparison *c, size_t n, const stats_rule *rule)
{
    size_t open = 0;
    for (size_t i = 0; i < n; i++)
        if (stats_settled(&c[i], rule) == STATS_OPEN)
            open++;
    return open;
}

/* --- warm-up ------------------------------------------------------------ */

size_t stats_warmup(const double *ts, size_t n)
{
    if (n < 3)
        return 0;
    size_t h = (n + 1) / 2;
    double *tail = lvd_xmalloc(h * sizeof *tail);
    memcpy(tail, ts + (n - h), h * sizeof *tail);
    double med = median_inplace(tail, h);
    for (size_t i = 0; i < h; i++)
        tail[i] = fabs(tail[i] - med);
    double spread = 1.4826 * median_inplace(tail, h);
    free(tail);

    double t1 = 0.85 * med, t2 = med - 3.0 * spread;
    double threshold = t1 < t2 ? t1 : t2;
    size_t drop = 0;
    while (drop < n - 2 && ts[drop] < threshold)
        drop++;
    return drop;
}
