/* stats.h: the statistics behind every speed verdict: summaries of a sample
 * set, the bootstrap CI of a ratio of medians, the Mann-Whitney U test,
 * Student's t, the alpha-spending schedule and the sequential interval that
 * keep wins valid over repeated looks, the win/tie/unknown decision rule, the
 * racing and stopping rules of the adaptive protocol, and warm-up detection
 * in one llama-bench invocation's samples. Implemented in stats.c,
 * sequential.c (spending, interval, racing) and tdist.c (Student's t).
 * Pure computation: no I/O, no store, no knowledge of engines or arms. Samples
 * are throughputs (llama-bench's samples_ts, tokens/s): higher is faster, and
 * every value must be finite and > 0.
 *
 * Decision rule, for arms A and B:
 *   ratio  = median(A) / median(B)
 *   CI     = percentile bootstrap CI (level 95 %) of that ratio: each of
 *            boot_b replicates resamples A and B with replacement,
 *            independently, with a seeded xoshiro256** (same input, same CI)
 *   p      = Mann-Whitney U, two-sided: exact distribution when both arms have
 *            <= STATS_MWU_EXACT_MAX samples and no value is tied; otherwise the
 *            normal approximation with tie and continuity correction. Shown,
 *            no longer part of the rule (see "Sequential wins")
 *   SEQ    = the sequential interval of the ratio of geometric means at this
 *            look (rule->look), below
 *   WIN_A  when SEQ low > win
 *   WIN_B  when SEQ high < 1 / win
 *   TIE    when tie_lo <= CI low and CI high <= tie_hi (unchanged)
 *   UNKNOWN otherwise; always while an arm has fewer than win_min_samples,
 *            and never a TIE while an arm has fewer than min_samples (a
 *            bootstrap of 1-4 values gives a CI that is narrow by accident).
 *
 * Sequential wins. The adaptive protocol decides after every round, so the
 * win test is looked at again and again; a fixed-level test (the former rule:
 * Mann-Whitney p < alpha/m and CI low > win, re-tested every round) then
 * errs more often the more it is looked at (perf/perf_decision measures
 * it), and the exact Mann-Whitney p has a floor at small n (2/210 with 4
 * samples against 6), so a 357x gap could not be decided. The rule now is an
 * alpha-spending schedule with a union (Bonferroni-over-looks) bound:
 *   look k (1, 2, 3, ...; the caller's count of decisions taken on these arms)
 *   spends alpha_1 = 0.75 alpha at the first look and alpha_k = 0.25 alpha *
 *   6 / (pi^2 (k - 1)^2) at each later one (stats_alpha_spend,
 *   STATS_ALPHA_FIRST; the sum over every k >= 1 is alpha, so no number of
 *   looks has to be planned), split over the m comparisons. Most decisions
 *   are taken at look 1 (a fixed-size protocol has only that one) and look 2
 *   keeps what the plain 6 / (pi^2 k^2) schedule gave it (0.152 alpha); looks
 *   3+ get less (perf_protocol: a true 1.05 at 1 % noise, two arms, is then
 *   decided within the first load as often as fixed -r 10 decides it). At
 *   look k the two-sided interval of
 *       D = mean log A - mean log B        (the log ratio of geometric means)
 *   is D -+ t(df, 1 - alpha_k / (2m)) * se, with Welch's se = sqrt(sA^2/nA +
 *   sB^2/nB) of the log samples and the Welch-Satterthwaite df; SEQ is its
 *   exp. By the union bound, P(SEQ misses the true ratio at ANY look) <=
 *   sum_k alpha_k / m = alpha / m, whatever the number of looks and however
 *   the protocol decides when to stop, so a win at a true ratio <= win (or,
 *   for WIN_B, >= 1 / win) is called with probability <= alpha / m per
 *   comparison and <= alpha over the m comparisons, over all looks. Welch's t
 *   holds for roughly normal log throughputs (lognormal noise) at any n >= 2:
 *   its power has no floor at small n, so an obvious case (a 357x gap with 4
 *   samples against 6) is decided at the first look. References: Lan &
 *   DeMets (1983), "Discrete sequential boundaries for clinical trials",
 *   Biometrika 70(3) (alpha spending); Welch (1947), Biometrika 34 (the
 *   unequal-variance t). A protocol that decides once (lvd select on the
 *   stored arms) at look 1 on samples that a sequential run gathered should
 *   pass that run's last look instead, or the bound covers the run only.
 * Racing (stats_out_of_contention): an arm whose SEQ against the leader lies
 * wholly below 1 is slower than the leader at the same level, so it cannot
 * be the fastest arm: P(an arm truly at least as fast as the leader is ever
 * put out of contention) <= alpha / (2m) per comparison, over all looks. It
 * may still lie inside the tie band (a tie the protocol gives up measuring).
 *
 * Defaults (stats_rule_default): alpha 0.01, m 1, look 1, win 1.03, tie band
 * [0.97, 1.03], min_samples 5, win_min_samples 3, boot_b 2000, level 0.95,
 * stop when the CI half-width is <= 1 % of the ratio, at most 30 samples per
 * arm. The design's 2 % half-width stop was measured (perf/perf_decision,
 * under the former rule) to end rounds too early: a CI of +-2 % around 1.05
 * still reaches below the 1.03 win threshold, so 17 % of true 5 % wins (1 %
 * noise) stopped undecided at 9 samples; at 1 % they were decided (99 %) at
 * 10 samples per arm.
 * Pin promotion (stats_rule_pin): win needs SEQ low > 1.02; no regression
 * means CI low >= 0.98 (stats_comparison.no_regression).
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
    double log_mean;       /* mean of log x; NAN when n = 0 or a value is not > 0 */
    double log_sd;         /* sample standard deviation of log x; NAN when n < 2 or as above */
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

/* --- Student's t -------------------------------------------------------- */

/* P(T > t) for Student's t with df > 0 degrees of freedom (fractional allowed;
 * INFINITY gives the standard normal). NAN for a NAN t or df <= 0. */
double stats_t_sf(double t, double df);
/* The t with P(T > t) = q, for q in (0, 1) and df >= 1 (q down to 1e-150);
 * NAN outside. */
double stats_t_isf(double q, double df);

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
    size_t look;           /* which look this is (>= 1; 1): the caller's count of
                              decisions taken on these arms so far, this one
                              included (the bench's round); it sets the level
                              spent (stats_alpha_spend) */
    double win;            /* A wins when CI low > win; B when CI high < 1/win (1.03) */
    double tie_lo, tie_hi; /* tie when the whole CI is inside [0.97, 1.03] */
    double floor;          /* no_regression when CI low >= floor (0.97; pin 0.98) */
    size_t min_samples;    /* per arm, below which no TIE is called (5) */
    size_t win_min_samples;/* per arm, below which the outcome is UNKNOWN (3; >= 2) */
    size_t boot_b;         /* bootstrap replicates (2000) */
    double level;          /* CI level (0.95) */
    uint64_t seed;         /* bootstrap seed (fixed: same data, same CI) */
    double stop_half_width;/* settled when CI half-width / ratio <= this (0.01) */
    size_t max_samples;    /* per-arm cap the caller's loop enforces (30) */
} stats_rule;

/* 1 when rule's values are in range (stats_compare's -1 otherwise). */
int stats_rule_valid(const stats_rule *rule);
/* Default rule for engine/device/parameter verdicts (values above). */
void stats_rule_default(stats_rule *r);
/* Pin promotion, candidate (A) against pinned (B): win 1.02, tie band
 * [0.98, 1.02], floor 0.98; other fields as the default. */
void stats_rule_pin(stats_rule *r);

/* The sequential interval of one comparison at one look (see "Sequential
 * wins"): for two arms, of exp(mean log A - mean log B); for a contrast, of
 * exp(sum coef_i mean log x_i). */
typedef struct stats_sequential {
    size_t look;           /* rule->look; 0: never computed (no win can be called) */
    double alpha_look;     /* two-sided level spent at this look: stats_alpha_spend(alpha, look) / m */
    double log_ratio;      /* the contrast's estimate (log of the ratio of geometric means) */
    double se, df;         /* Welch's standard error and Welch-Satterthwaite df */
    double lo, hi;         /* exp(log_ratio -+ t(df, 1 - alpha_look / 2) se); NAN
                              while n_min < rule->win_min_samples */
    size_t n_min;          /* fewest samples in any series of the contrast */
} stats_sequential;

/* Level spent at look k >= 1: STATS_ALPHA_FIRST x alpha at k = 1, (1 -
 * STATS_ALPHA_FIRST) x alpha x 6 / (pi^2 (k - 1)^2) after; 0 for k = 0. The
 * sum over k = 1, 2, ... is alpha. */
#define STATS_ALPHA_FIRST 0.75 /* the share of alpha look 1 spends ("Sequential wins") */
double stats_alpha_spend(double alpha, size_t look);
/* The interval of a against b (summaries of positive samples, with log_mean
 * and log_sd) under rule's alpha, m, look and win_min_samples. */
void stats_sequential_interval(const stats_summary *a, const stats_summary *b,
                               const stats_rule *rule, stats_sequential *out);
/* The interval of the contrast sum_i coef[i] * mean log s[i] over k series
 * (each series' own n and variance enter Welch's se and df); the weighted
 * objective's statistic (stats/rank.h) is one. */
void stats_sequential_contrast(const stats_summary *const *s, const double *coef, size_t k,
                               const stats_rule *rule, stats_sequential *out);
/* Racing: 1 when the arm whose interval against the leader this is (A = the
 * arm, B = the leader, as stats_rank_entry.vs_leader.seq) is out of
 * contention: its high end is below 1, so at the interval's level the arm is
 * slower than the leader and cannot be the fastest arm. The error bound
 * (header comment, "Racing"): an arm truly at least as fast as the leader is
 * put out of contention at any look with probability <= alpha / (2m). */
int stats_out_of_contention(const stats_sequential *arm_vs_leader);

/* One comparison of arm A against arm B. */
typedef struct stats_comparison {
    stats_outcome outcome;
    stats_summary a, b;      /* of the samples given (the kept ones) */
    double ratio;          /* median(a) / median(b); NAN when an arm is empty */
    double ci_lo, ci_hi;   /* bootstrap CI of ratio at rule->level */
    double half_width;     /* (ci_hi - ci_lo) / (2 * ratio) */
    double p;              /* Mann-Whitney two-sided p (shown; not part of the rule) */
    double u;              /* Mann-Whitney U of a */
    int exact;             /* 1 when p is exact */
    double p_threshold;    /* alpha / m, the family-wise level over all looks */
    int no_regression;     /* CI low >= rule->floor */
    const char *why;       /* static one-line reason for the outcome */
    stats_sequential seq;    /* the sequential interval that decides wins */
} stats_comparison;

/* An empty comparison: UNKNOWN, empty summaries, every statistic NAN, seq
 * never computed. */
void stats_comparison_clear(stats_comparison *out);
/* Compares a[0..na) against b[0..nb) under rule (see the header comment).
 * Returns 0 with out filled (an empty arm gives UNKNOWN, "no samples"), or -1
 * when a sample is not finite and > 0 or the rule is invalid (m = 0, look =
 * 0, win_min_samples < 2, boot_b = 0, level outside (0, 1)); then out->why
 * says which. */
int stats_compare(const double *a, size_t na, const double *b, size_t nb,
                const stats_rule *rule, stats_comparison *out);

/* Applies rule's thresholds to a comparison whose statistics (ratio, ci_lo,
 * ci_hi and seq, whose n_min gates ties) are filled: sets outcome and why
 * exactly as stats_compare does; seq.look 0 (never computed) calls no win.
 * For callers that compute their own statistic of the same ratio form
 * (stats/rank.h's weighted objective). */
void stats_decide(const stats_rule *rule, stats_comparison *c);

/* Name of an outcome: "win_a", "win_b", "tie", "unknown". */
const char *stats_outcome_name(stats_outcome o);

/* --- stopping ----------------------------------------------------------- */

typedef enum stats_settle {
    STATS_OPEN = 0,          /* needs another round */
    STATS_DECIDED,           /* WIN_A, WIN_B or TIE */
    STATS_PRECISE            /* UNKNOWN, but the CI half-width is <= stop_half_width
                              with both arms at min_samples, and the CI is not
                              wholly past a win threshold (then only the wider
                              sequential interval lags, more samples narrow it,
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
