/* rank.h: ranking benchmark arms on one criterion and saying whether the
 * ranking is decided. Used by lvd-bench's stopping rule (after every round)
 * and by lvd-select / lvd-evidence on what the store holds. Pure computation
 * over samples the caller hands in: no I/O, no store, no engines.
 *
 * Objective (what "faster" means for a verdict):
 *   tg        the token-generation tests (llama-bench n_prompt 0, n_gen > 0);
 *   pp        the prompt-processing tests (n_gen 0, n_prompt > 0);
 *   w=W       both, weighted: W on tg, 1 - W on pp (0 < W < 1). The score of
 *             arm A against arm B is the weighted geometric mean of the two
 *             ratios of medians,
 *                 S(A, B) = (tg_A / tg_B)^W * (pp_A / pp_B)^(1 - W),
 *             chosen over the arithmetic mean because it is transitive: each
 *             arm has one score, W log tg + (1 - W) log pp, every pairwise S
 *             is exp(score_A - score_B), so the ranking and the pairwise
 *             decisions can never disagree and no reference arm is needed. For
 *             ratios near 1 the two means agree to the second order.
 * Serving (lvd serve, stats/serving.h): serve, or serve=BOUND (500ms, 2s):
 *   the serve-tps test, the aggregate generation throughput under
 *   concurrent clients, among the arms whose p95 time to first token on
 *   the same load shape stays within BOUND (none: every arm); the arms are
 *   serving arms (the launch line at -np N), so the verdict chooses the
 *   slots as well. Only serving runs decide it; llama-bench's never do.
 * Per joule: tpj, ppj and wj=W are tg, pp and w=W with every
 *   sample in tokens per joule (stats/energy.h) instead of tokens per second;
 *   the statistics, thresholds and verdicts are the same. An arm without
 *   measured energy has no samples under them.
 * Default: tg (an interactive chat is bound by generation speed).
 *
 * Criterion: one test (single-test ranking) or a (tg test, pp test) pair
 * (weighted ranking). Per criterion:
 *   ranked    eligible arms with at least one kept sample (both series when
 *             weighted), ordered by score: the median (single test) or
 *             W log median_tg + (1 - W) log median_pp (weighted); equal scores
 *             keep the caller's order;
 *   leader    the first ranked arm;
 *   m         comparisons made = ranked - 1 (the leader against every other
 *             ranked arm), the Bonferroni count of stats_rule; comparisons with
 *             the reference arm and with ineligible arms are shown, never
 *             counted and never decide;
 *   vs_leader every other arm (A) against the leader (B) under stats_compare
 *             (single test) or the weighted statistic (below): ratio < 1 for
 *             a slower arm, and the leader winning is WIN_B;
 *   state     WIN when the leader wins against every other ranked arm;
 *             TIE when it wins against some and ties with the rest (the tied
 *             arms are flagged); OPEN while some comparison needs another
 *             round (stats_settled OPEN) or an eligible arm has no samples yet;
 *             UNDECIDED when none is OPEN but some stay UNKNOWN (a precise CI
 *             on a threshold's edge: more rounds will not move it); ONLY for
 *             one ranked arm; NONE for none.
 * Weighted statistic: ratio = S(A, B) at the medians; CI = percentile
 * bootstrap (rule boot_b replicates, each resampling the four sample sets
 * with replacement, seeded by rule seed); p = two-sided permutation test of
 * T = W (mean log tg_A - mean log tg_B) + (1 - W) (mean log pp_A - mean log
 * pp_B): each of max(boot_b, 10 / (alpha / m)) relabellings (at most 200000)
 * reassigns each test's pooled samples to A and B at random (seeded), and
 * p = (1 + relabellings with |T| >= observed) / (1 + relabellings). A
 * difference of means, not of medians: a median's permutation distribution
 * jumps between clusters when the pooled samples form two of them (two
 * arms 10 % apart), and loses all power there; shown, not part of the rule.
 * Sequential interval (stats.h, "Sequential wins"): of the contrast
 * W (mean log tg_A - mean log tg_B) + (1 - W) (mean log pp_A - mean log pp_B),
 * Welch's se and df over the four series (stats_sequential_contrast). Then
 * the same thresholds (stats_decide): a win needs every series at rule
 * win_min_samples, a tie at rule min_samples.
 * Racing: each ranked arm's out_of_contention flag is stats_out_of_contention
 * of its interval against the leader (the protocol may stop measuring it). */
#ifndef LVD_STATS_RANK_H
#define LVD_STATS_RANK_H

#include "common/opt.h"
#include "common/util.h"
#include "stats/stats.h"

#include <stddef.h>

struct cJSON;

/* "No arm" for indices (leader, reference). */
#define STATS_NO_ARM ((size_t)-1)

/* --- the CPU reference -------------------------------------------------- */

/* The arm every "vs CPU" figure is against (the bench's ref column and
 * stats_rank_opts.ref, the evidence page's reference): the FIRST arm, in the
 * caller's arm order (engines in registration order, then each engine's
 * arms), whose backend label is "cpu" and that is usable (usable[i] nonzero:
 * eligible and, once measured, with samples; usable NULL: every arm). First,
 * not fastest: the bench needs the reference before anything is measured and
 * must not move it between rounds, and a reference picked by speed would be
 * picked by the same noisy samples it is then compared with, and could change
 * from night to night between two CPU builds of equal speed, so "vs CPU"
 * figures of different nights would be against different arms. STATS_NO_ARM
 * when no arm qualifies. */
size_t stats_cpu_reference(const char *const *backend, const int *usable, size_t n);

/* --- objective ---------------------------------------------------------- */

typedef enum stats_objective_kind {
    STATS_OBJ_TG = 0,
    STATS_OBJ_PP,
    STATS_OBJ_WEIGHTED,
    STATS_OBJ_SERVE,       /* serving throughput under a TTFT bound (lvd serve) */
} stats_objective_kind;

typedef struct stats_objective {
    stats_objective_kind kind;
    double w;              /* weight of tg: 1 for tg, 0 for pp, (0, 1) weighted; serve: 1 */
    int per_joule;         /* samples in tokens per joule: tpj, ppj, wj=W */
    double ttft_bound_ms;  /* serve: the p95 TTFT an arm must stay within; 0 = no bound */
} stats_objective;

/* The objectives a user can write: one fact for the parser's errors and
 * every --help that takes --objective. */
#define STATS_OBJECTIVES                                                                                 \
    "tg, pp, a tg weight W in [0, 1] as W or w=W, per joule tpj, ppj, wj=W, or serve[=BOUND] (lvd "      \
    "serve's throughput, p95 TTFT within BOUND)"

/* The default objective: tg. */
void stats_objective_default(stats_objective *o);
/* Parses "tg", "pp", "W" or "w=W" with W a number in [0, 1] (W 1 is tg, W 0
 * is pp), per joule "tpj", "ppj", "wj=W", and "serve" or "serve=BOUND" with
 * BOUND a duration in ms or s ("500ms", "2s", "1.5s"; > 0). 0, or -1 with
 * err saying what is accepted. */
int stats_objective_parse(const char *s, stats_objective *o, lvd_err *err);
/* The --objective OBJ entry of a tool's option table (common/opt.h), into a
 * stats_objective field. */
int stats_objective_opt(const lvd_opt *o, void *field, const char *arg, lvd_err *err);
#define STATS_OPT_OBJECTIVE                                                                              \
    .spell = "--objective", .arg = "OBJ", .kind = LVD_OPT_CALL, .call = stats_objective_opt, .def = "tg",  \
    .help = "what fastest means: " STATS_OBJECTIVES "; tpj is tg tokens per joule (lvd bench measures "     \
            "energy where it can)"
/* Writes the objective's name: "tg", "pp" or "w=0.70", per joule "tpj",
 * "ppj", "wj=0.70", serving "serve" or "serve=500ms" (the bound in ms; the
 * verdicts' key). */
void stats_objective_name(const stats_objective *o, char *buf, size_t len);
/* 1 when a llama-bench test with n_prompt and n_gen serves the objective:
 * tg tests (n_prompt 0, n_gen > 0) for tg and weighted, pp tests (n_gen 0,
 * n_prompt > 0) for pp and weighted; combined pp+tg tests never, and no
 * llama-bench test serves the serve objective. */
int stats_objective_uses(const stats_objective *o, int n_prompt, int n_gen);
/* 1 for a tg test, 0 otherwise (as above). */
int stats_test_is_tg(int n_prompt, int n_gen);
int stats_test_is_pp(int n_prompt, int n_gen);

/* --- ranking ------------------------------------------------------------ */

/* One arm as the caller hands it in. Pointers are borrowed for the call. */
typedef struct stats_rank_arm {
    const char *label;     /* for the caller's messages; may be NULL */
    int eligible;          /* 0: failed, excluded, GPU flags ignored, failed its
                              check: shown, compared for display, never ranked */
    const double *x;       /* kept samples of the test (weighted: of the tg test) */
    size_t nx;
    const double *y;       /* weighted only: kept samples of the pp test */
    size_t ny;
} stats_rank_arm;

typedef struct stats_rank_opts {
    stats_rule rule;         /* thresholds; rule.m is ignored (set to the comparisons made) */
    double w;              /* < 0: single test (x only); in (0, 1): weighted (x tg, y pp) */
    size_t ref;            /* reference arm (the CPU arm) or STATS_NO_ARM */
} stats_rank_opts;

/* Default rule (stats_rule_default), single test, no reference. */
void stats_rank_opts_init(stats_rank_opts *o);

typedef enum stats_rank_state {
    STATS_RANK_NONE = 0,     /* no eligible arm has samples */
    STATS_RANK_ONLY,         /* one ranked arm: nothing to compare */
    STATS_RANK_WIN,          /* the leader wins against every other ranked arm */
    STATS_RANK_TIE,          /* the leader ties with some (tied_with_leader) and wins against the rest */
    STATS_RANK_OPEN,         /* another round is needed */
    STATS_RANK_UNDECIDED,    /* nothing more to learn, but some comparison is not decided */
} stats_rank_state;

typedef struct stats_rank_entry {
    size_t arm;            /* the caller's index */
    size_t rank;           /* 1-based among ranked arms; 0 = not ranked */
    int eligible;
    stats_summary sx, sy;    /* of x and (weighted) y; n 0 when empty */
    double score;          /* median of x, or W log med x + (1 - W) log med y; NAN unranked */
    int has_vs_leader;     /* every arm with samples but the leader */
    stats_comparison vs_leader; /* A = this arm, B = the leader */
    stats_settle settle;     /* stats_settled(vs_leader); meaningful for ranked arms with has_vs_leader */
    int tied_with_leader;  /* vs_leader is TIE (ranked arms) */
    int out_of_contention; /* stats_out_of_contention(vs_leader.seq): slower than the
                              leader at the sequential level (ranked arms); for racing */
    int has_vs_ref;        /* every arm with samples but the reference */
    stats_comparison vs_ref; /* A = this arm, B = the reference */
} stats_rank_entry;

typedef struct stats_ranking {
    stats_rank_entry *v;     /* ranked arms best first, then the others in the caller's order */
    size_t n;
    size_t n_ranked;
    size_t leader;         /* the caller's index; STATS_NO_ARM when nothing is ranked */
    size_t ref;            /* as asked; STATS_NO_ARM when absent or without samples */
    size_t m;              /* comparisons that count (n_ranked - 1, at least 1) */
    stats_rank_state state;
    size_t n_open;         /* OPEN comparisons, plus eligible arms without samples */
    size_t n_tied;         /* arms tied with the leader */
    size_t n_undecided;    /* ranked comparisons neither OPEN nor decided */
} stats_ranking;

/* Ranks arms[0..n) under o (see the header comment) into out (free with
 * stats_ranking_free). Returns 0, or -1 with err when a sample is not finite
 * and > 0, the rule is invalid, w is outside (0, 1) for a weighted ranking,
 * or ref is out of range. */
int stats_rank(const stats_rank_arm *arms, size_t n, const stats_rank_opts *o, stats_ranking *out,
             lvd_err *err);
void stats_ranking_free(stats_ranking *r);

/* The entry of the caller's arm index, or NULL. */
const stats_rank_entry *stats_ranking_entry(const stats_ranking *r, size_t arm);
/* 1 when the ranking needs another round (state OPEN). */
int stats_ranking_open(const stats_ranking *r);
/* "none", "only-arm", "win", "tie", "open", "undecided". */
const char *stats_rank_state_name(stats_rank_state s);

/* The weighted statistic of arm A (tg ax, pp ay) against arm B (bx, by)
 * under rule with weight w in (0, 1) (see the header comment). a and b
 * summarise the tg series; u is NAN. Returns 0 with out filled, or -1 as
 * stats_compare does. */
int stats_compare_weighted(const double *ax, size_t nax, const double *ay, size_t nay,
                         const double *bx, size_t nbx, const double *by, size_t nby, double w,
                         const stats_rule *rule, stats_comparison *out);

/* A comparison as JSON: outcome, ratio, ci [lo, hi], half_width, p,
 * p_threshold, exact, seq [lo, hi] (the sequential interval), look, n_a, n_b,
 * why (NAN values as null). Caller owns it. */
struct cJSON *stats_comparison_json(const stats_comparison *c);

#endif
