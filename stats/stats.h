/* stats.h: the statistics behind every speed verdict: summaries of a sample
 * set, the bootstrap CI of a ratio of medians, the Mann-Whitney U test, the
 * win/tie/unknown decision rule, the stopping rule of the adaptive protocol,
 * and warm-up detection in one llama-bench invocation's samples.
 * Pure computation: no I/O, no store, no knowledge of engines or arms. Samples
 * are throughputs (llama-bench's samples_ts, tokens/s): higher is faster, and
 * every value must be finite and > 0.
 *
 * Decision rule (design.md, "Statistics and verdicts"), for arms A and B:
 *   ratio  = median(A) / median(B)
 *   CI     = percentile bootstrap CI (level 95 %) of that ratio: each of
 *            boot_b replicates resamples A and B with replacement,
 *            independently, with a seeded xoshiro256** (same input, same CI)
 *   p      = Mann-Whitney U, two-sided: exact distribution when both arms have
 *            <= STATS_MWU_EXACT_MAX samples and no value is tied; otherwise the
 *            normal approximation with tie and continuity correction
 *   WIN_A  when p < alpha / m (Bonferroni over the m comparisons the caller
 *            makes; counting repeated looks in m too bounds the error of
 *            deciding after every round, at the cost of samples) and
 *            CI low > win
 *   WIN_B  when p < alpha / m and CI high < 1 / win
 *   TIE    when tie_lo <= CI low and CI high <= tie_hi
 *   UNKNOWN otherwise, and always while an arm has fewer than min_samples
 *            (a bootstrap of 1-4 values gives a CI that is narrow by accident).
 * Defaults (stats_rule_default): alpha 0.01, m 1, win 1.03, tie band
 * [0.97, 1.03], min_samples 5, boot_b 2000, level 0.95, stop when the CI
 * half-width is <= 1 % of the ratio, at most 30 samples per arm.
 * The design's 2 % half-width stop was measured (bench/perf/perf_decision)
 * to end rounds too early: a CI of +-2 % around 1.05 still reaches below the
 * 1.03 win threshold, so 17 % of true 5 % wins (1 % noise) stopped undecided
 * at 9 samples; at 1 % they are decided (99 %) at 10 samples per arm.
 * Pin promotion (stats_rule_pin): win needs p < 0.01 and CI low > 1.02; no
 * regression means CI low >= 0.98 (stats_comparison.no_regression).
 *
 * Warm-up rule (stats_warmup), for the samples of ONE invocation, in order:
 *   n < 3: nothing is dropped (no tail to judge against).
 *   Otherwise take the reference tail R = the last ceil(n/2) samples, its
 *   median M and its spread S = 1.4826 * MAD(R). The threshold is
 *   T = min(0.85 * M, M - 3 * S): a sample counts as warm-up only if it is
 *   both more than 15 % below the tail's median and more than three robust
 *   standard deviations below it. Leading samples are dropped while they are
 *   below T, at most n - 2 of them (two are always kept). Only slow samples
 *   are ever dropped, only at the start. This drops the one cold pp sample of
 *   the CUDA captures (34431.6 before ~59.9k), the three-sample Vulkan ramp
 *   (4236, 5349, 6126 before 17412, 17478; cap n - 2 allows it, a cap of n/2
 *   would not) and nothing in steady sequences (805.7 before ~812: 0.8 %).
 *   A ramp over more than half the samples contaminates the reference tail
 *   and is not detected; the medians and rank test absorb what remains.
 *   Callers record what was dropped and score only the kept samples; warm-up
 *   never decides a verdict. */
#ifndef LVD_STATS_STATS_H
#define LVD_STATS_STATS_H

#include <stddef.h>
#include <stdint.h>

struct lvd_result;

/* Largest arm size for the exact Mann-Whitney distribution. */
#define STATS_MWU_EXACT_MAX 20

/* --- random numbers ----------------------------------------------------- */

/* xoshiro256** seeded through splitmix64: fast, deterministic, portable. */
typedef struct stats_rng {
    uint64_t s[4];
} stats_rng;

/* Seeds r; any seed (0 included) gives a valid, distinct stream. */
void stats_rng_seed(stats_rng *r, uint64_t seed);
/* Next 64 random bits. */
uint64_t stats_rng_u64(stats_rng *r);
/* Uniform in [0, 1), 53 bits. */
double stats_rng_uniform(stats_rng *r);
/* Standard normal (Box-Muller); for synthetic data in tests and benchmarks. */
double stats_rng_normal(stats_rng *r);

/* --- summaries ---------------------------------------------------------- */

typedef struct stats_summary {
    size_t n;
    double median, mean;
    double stddev;         /* sample (n - 1) standard deviation; NAN when n < 2 */
    double min, max;
} stats_summary;

/* Summarises x[0..n). n = 0 gives n 0 and every other field NAN. */
void stats_summarize(const double *x, size_t n, stats_summary *out);
/* Median of x[0..n) (mean of the two middle values when n is even); NAN when
 * n = 0. x is not modified. */
double stats_median(const double *x, size_t n);

/* --- kept samples ------------------------------------------------------- */

/* Which of a stored result's samples (common/types.h lvd_result) are scored:
 * the one rule every consumer applies (the bench's rounds, the verdict, the
 * armsets of lvd pin and the evidence page, lvd store runs). Sample i is kept
 * when it is not flagged warm-up and its t/s is finite and > 0 (a value the
 * statistics above accept); a flagged sample is dropped as warm-up, an
 * unflagged non-finite or non-positive one is dropped as unusable. */
int stats_sample_kept(const struct lvd_result *r, size_t i);
/* The kept samples of r: a fresh array (NULL when none kept) in sample order;
 * *n_warmup (may be NULL) gets the count flagged warm-up. Returns how many. */
size_t stats_result_kept(const struct lvd_result *r, double **out, size_t *n_warmup);

/* --- tests -------------------------------------------------------------- */

/* Mann-Whitney U test of a against b, two-sided. Returns p in [0, 1], or NAN
 * when either arm is empty. *u_a (may be NULL) receives U of a: the number of
 * pairs (a_i, b_j) with a_i > b_j, ties counting 1/2. *exact (may be NULL)
 * receives 1 when p comes from the exact distribution. Values must not be NAN. */
double stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                        double *u_a, int *exact);

/* Percentile bootstrap CI of median(a) / median(b): boot_b replicates, each
 * resampling a and b with replacement (seeded by seed), CI at level (0.95 =
 * 2.5th and 97.5th percentiles, interpolated). Samples must be > 0.
 * Returns 0, or -1 when an arm is empty, boot_b is 0 or level is not in (0, 1). */
int stats_bootstrap_ratio_ci(const double *a, size_t na, const double *b, size_t nb,
                           size_t boot_b, double level, uint64_t seed,
                           double *lo, double *hi);

/* --- decisions ---------------------------------------------------------- */

typedef enum stats_outcome {
    STATS_UNKNOWN = 0,       /* not decided: another round, or say so */
    STATS_WIN_A,             /* A is faster */
    STATS_WIN_B,             /* B is faster */
    STATS_TIE                /* within the tie band: keep the prior choice */
} stats_outcome;

/* The thresholds of a decision. Fill with stats_rule_default or stats_rule_pin,
 * then set m (and anything else) as the caller needs. */
typedef struct stats_rule {
    double alpha;          /* family-wise significance level (0.01) */
    size_t m;              /* comparisons made, for Bonferroni (>= 1; 1) */
    double win;            /* A wins when CI low > win; B when CI high < 1/win (1.03) */
    double tie_lo, tie_hi; /* tie when the whole CI is inside [0.97, 1.03] */
    double floor;          /* no_regression when CI low >= floor (0.97; pin 0.98) */
    size_t min_samples;    /* per arm, below which the outcome is UNKNOWN (5) */
    size_t boot_b;         /* bootstrap replicates (2000) */
    double level;          /* CI level (0.95) */
    uint64_t seed;         /* bootstrap seed (fixed: same data, same CI) */
    double stop_half_width;/* settled when CI half-width / ratio <= this (0.01) */
    size_t max_samples;    /* per-arm cap the caller's loop enforces (30) */
} stats_rule;

/* Default rule for engine/device/parameter verdicts (values above). */
void stats_rule_default(stats_rule *r);
/* Pin promotion, candidate (A) against pinned (B): win 1.02, tie band
 * [0.98, 1.02], floor 0.98; other fields as the default. */
void stats_rule_pin(stats_rule *r);

/* One comparison of arm A against arm B. */
typedef struct stats_comparison {
    stats_outcome outcome;
    stats_summary a, b;      /* of the samples given (the kept ones) */
    double ratio;          /* median(a) / median(b); NAN when an arm is empty */
    double ci_lo, ci_hi;   /* bootstrap CI of ratio at rule->level */
    double half_width;     /* (ci_hi - ci_lo) / (2 * ratio) */
    double p;              /* Mann-Whitney two-sided p */
    double u;              /* Mann-Whitney U of a */
    int exact;             /* 1 when p is exact */
    double p_threshold;    /* alpha / m that p was held against */
    int no_regression;     /* CI low >= rule->floor */
    const char *why;       /* static one-line reason for the outcome */
} stats_comparison;

/* Compares a[0..na) against b[0..nb) under rule (see the header comment).
 * Returns 0 with out filled (an empty arm gives UNKNOWN, "no samples"), or -1
 * when a sample is not finite and > 0 or the rule is invalid (m = 0, boot_b =
 * 0, level outside (0, 1)); then out->why says which. */
int stats_compare(const double *a, size_t na, const double *b, size_t nb,
                const stats_rule *rule, stats_comparison *out);

/* Applies rule's thresholds to a comparison whose statistics (a, b, ratio,
 * ci_lo, ci_hi, p, p_threshold) are filled: sets outcome and why exactly as
 * stats_compare does. For callers that compute their own statistic of the same
 * ratio form (stats/rank.h's weighted objective). */
void stats_decide(const stats_rule *rule, stats_comparison *c);

/* Name of an outcome: "win_a", "win_b", "tie", "unknown". */
const char *stats_outcome_name(stats_outcome o);

/* --- stopping ----------------------------------------------------------- */

typedef enum stats_settle {
    STATS_OPEN = 0,          /* needs another round */
    STATS_DECIDED,           /* WIN_A, WIN_B or TIE */
    STATS_PRECISE            /* UNKNOWN, but the CI half-width is <= stop_half_width
                              with both arms at min_samples, and the CI is not
                              wholly past a win threshold (then only p is missing
                              and it stays OPEN): the ratio sits on a threshold's
                              edge, more rounds will not move it; report it as
                              undecided */
} stats_settle;

/* Whether one comparison needs another round. */
stats_settle stats_settled(const stats_comparison *c, const stats_rule *rule);
/* How many of c[0..n) are STATS_OPEN: 0 means stop. Pass only the comparisons
 * that matter for the verdict (e.g. the leader against each other arm). The
 * sample cap (rule->max_samples) and the time budget are the caller's loop
 * conditions: it counts raw samples, warm-up included. */
size_t stats_round_needed(const stats_comparison *c, size_t n, const stats_rule *rule);

/* --- warm-up ------------------------------------------------------------ */

/* Number of leading samples of one invocation's sequence ts[0..n) (in the
 * order llama-bench ran them) that are warm-up by the rule in the header
 * comment; 0 <= result <= max(0, n - 2). */
size_t stats_warmup(const double *ts, size_t n);

#endif
