/* pin.h: whether a candidate llama.cpp build replaces the pinned one (lvd-pin).
 * Candidate against pinned for every model, backend, arm and test this host
 * measured, under one rule table; each night's decision is recorded with the
 * comparisons behind it, and a promotion rewrites the pin file. Not for
 * fetching builds or verifying digests (fetch/), nor for running anything:
 * a promotion never touches a running engine.
 *
 * Pairing. Pinned engines are the engines whose build is the pin file's;
 * candidate engines those whose build is the candidate's (--candidate, else
 * the newest fetched build that is not the pin: highest bNNNN, then newest
 * registration). Their arms (armset.h: newest session, kept samples) pair
 * when artifact, backend label, arm key (device and parameters) and test
 * agree. Each pair compares candidate (A) against pinned (B) under
 * stats_rule_pin (win: sequential interval low > 1.02; no regression: CI low
 * >= 0.98), m = 1.
 *
 * Rule table, in this order; the first rule that holds keeps the pin and
 * names the decision (every comparison is recorded regardless):
 *   1 no candidate measured  no candidate build, or no test ran on both builds
 *                            (and no candidate run failed): nothing to compare
 *   2 correctness            a check of a candidate engine's device on a
 *                            paired model failed or errored, or is missing
 *                            where the pinned engine's same device was checked
 *   3 candidate failed       the candidate's newest session of a paired arm
 *                            has no ok run (crashed, hung, ignored GPU flags)
 *   4 too few samples        a pair with fewer than 5 kept samples on a side
 *   5 regression             a pair not free of regression (CI low < 0.98)
 *                            and shown slower: its CI high < 1 (the worst
 *                            is named); the night's rule line starts
 *                            "regression: " (nightly/hunt.c hunts on it)
 *   5b inconclusive          none of 5, but a pair whose CI low < 0.98 and
 *                            CI high >= 1: not shown free of regression, too
 *                            wide ("inconclusive: ... CI reaches -2.0 %, needs
 *                            more samples"; the widest is named); the nightly
 *                            re-measures those arms with what budget is left
 *   6 no significant win     no pair is a win
 *   7 first night            the previous decision for the same pinned and
 *                            candidate builds was not "would promote", or it
 *                            was made on the same sessions (a second look at
 *                            one night's numbers is not a second night)
 *   8 no digest              the candidate has no fetched engine of the pin's
 *                            flavour, so there is no digest to record. A
 *                            registered (locally built) engine's digest never
 *                            serves: it is its binary's sha256, and the pin
 *                            file records the release archive's digest that
 *                            lvd fetch verifies every download against, which
 *                            no local build has. The line says what a user of
 *                            local builds does: fetch and measure the release,
 *                            or move the pin by hand
 * Rules 1-6 passing is "would promote" (recorded, and what rule 7 reads on
 * the next night); all eight passing is "promote". */
#ifndef LVD_SEL_PIN_H
#define LVD_SEL_PIN_H

#include "common/types.h"
#include "common/util.h"
#include "stats/stats.h"

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

struct cJSON;
struct store;
struct builds_pin;

typedef enum sel_pin_hold {
    SEL_PIN_PROMOTE = 0,       /* every rule passed */
    SEL_PIN_NO_CANDIDATE,      /* 1 */
    SEL_PIN_CORRECTNESS,       /* 2 */
    SEL_PIN_CANDIDATE_FAILED,  /* 3 */
    SEL_PIN_FEW_SAMPLES,       /* 4 */
    SEL_PIN_REGRESSION,        /* 5 */
    SEL_PIN_NO_WIN,            /* 6 */
    SEL_PIN_FIRST_NIGHT,       /* 7 */
    SEL_PIN_NO_DIGEST,         /* 8 */
    SEL_PIN_INCONCLUSIVE,      /* 5b (last, so that older numbers keep their meaning) */
} sel_pin_hold;

/* What one comparison's statistics show, the one rule behind every word a
 * person reads about a pair (rule lines, lvd pin's table, --json): */
typedef enum sel_pin_word {
    SEL_PIN_W_NONE = 0,        /* free of regression (CI low >= 0.98), no win */
    SEL_PIN_W_WIN,             /* stats' win (sequential interval low > 1.02) */
    SEL_PIN_W_REGRESSION,      /* not free (CI low < 0.98) and shown slower: CI high < 1 */
    SEL_PIN_W_INCONCLUSIVE,    /* not free (CI low < 0.98), not shown slower (CI high >= 1):
                                  the CI is too wide, needs more samples */
} sel_pin_word;
sel_pin_word sel_pin_pair_word(const stats_comparison *c);
/* "", "win", "regression", "inconclusive". */
const char *sel_pin_word_name(sel_pin_word w);

/* One comparison: candidate (A) against pinned (B) on one test of one arm. */
typedef struct sel_pin_pair {
    char artifact[LVD_SHA256_HEX_LEN + 1];
    char backend[16];
    char *arm_key;
    lvd_params params;
    char test[48];
    int64_t pinned_engine, candidate_engine;
    size_t pinned_warmup, candidate_warmup; /* samples dropped as warm-up */
    double pinned_tpj, candidate_tpj; /* median tokens per joule; NAN: not measured */
    stats_comparison cmp;
} sel_pin_pair;

/* Something about the candidate that holds the pin regardless of speed. */
typedef struct sel_pin_issue {
    char artifact[LVD_SHA256_HEX_LEN + 1];
    char backend[16];
    char device[64];           /* selector; "" = the CPU */
    char kind[8];              /* "check" or "run" */
    char status[16];           /* check: "fail", "error", "missing"; run: "failed", "gpu_ignored" */
    char *what;                /* one line: the check's figures or the run's reason; may be NULL */
} sel_pin_issue;

/* Everything the rule table reads. Filled by sel_pin_gather from the store,
 * or by hand (tests) with sel_pin_eval_init, sel_pin_add_pair and
 * sel_pin_add_issue. */
typedef struct sel_pin_eval {
    char *pinned_build;
    char *candidate_build;     /* NULL: no candidate */
    char *flavour;             /* the pin's default flavour */
    char *candidate_digest;    /* the candidate's fetched engine of that flavour; NULL none */
    char *candidate_local;     /* a registered (locally built) engine of the candidate build,
                                  by name; NULL none (rule 8 says what its user does) */
    stats_rule rule;             /* stats_rule_pin */
    sel_pin_pair *pairs;
    size_t n_pairs;
    sel_pin_issue *issues;
    size_t n_issues;
    char **sessions;           /* sorted, distinct: the sessions the pairs came from */
    size_t n_sessions;
    int has_prev;              /* a decision for the same two builds exists */
    int prev_would_promote;
    int prev_same_sessions;    /* it was made on exactly these sessions */
    int64_t prev_decided_at;
} sel_pin_eval;

typedef struct sel_pin_verdict {
    sel_pin_hold hold;
    int would_promote;         /* rules 1-6 pass */
    int promote;               /* hold == SEL_PIN_PROMOTE */
    size_t n_wins, n_regressions; /* n_regressions: pairs shown slower */
    size_t n_inconclusive;     /* pairs neither shown slower nor free of regression */
    char rule[768];            /* the decision in one line ("regression: tg128 on vulkan ...") */
} sel_pin_verdict;

/* Empty evaluation for the two builds (candidate may be NULL), rule
 * stats_rule_pin. */
void sel_pin_eval_init(sel_pin_eval *e, const char *pinned_build, const char *candidate_build,
                       const char *flavour);
void sel_pin_eval_free(sel_pin_eval *e);

/* Compares candidate samples c[0..nc) against pinned p[0..np) for one test
 * of one arm and appends the pair. 0, or -1 (err) for a sample that is not a
 * finite positive throughput. */
int sel_pin_add_pair(sel_pin_eval *e, const char *artifact, const char *backend,
                     const char *arm_key, const lvd_params *params, const char *test,
                     int64_t pinned_engine, int64_t candidate_engine, const double *c, size_t nc,
                     const double *p, size_t np, lvd_err *err);
/* Appends an issue (what may be NULL). */
void sel_pin_add_issue(sel_pin_eval *e, const char *artifact, const char *backend,
                       const char *device, const char *kind, const char *status,
                       const char *what);
/* Adds a session to the sorted set (NULL or duplicates ignored). */
void sel_pin_add_session(sel_pin_eval *e, const char *session);

/* The rule table (see the header comment). Pure. */
void sel_pin_judge(const sel_pin_eval *e, sel_pin_verdict *out);

/* A ratio as the rule lines print it: "-3.1 %" for 0.969, "+0.0 %" for
 * anything that rounds to zero. */
void sel_pin_fmt_pct(lvd_sb *sb, double ratio);

/* "promote", "no-candidate", "correctness", "candidate-failed",
 * "few-samples", "regression", "inconclusive", "no-win", "first-night",
 * "no-digest". */
const char *sel_pin_hold_name(sel_pin_hold h);

/* What lvd pin prints (pin_print.c): "pinned B (F), candidate C: promote"
 * and the rule, every comparison a line (the arm column as wide as its widest
 * arm), the issues, and with applied the pin file's new build and digest. */
void sel_pin_print(FILE *f, const sel_pin_eval *e, const sel_pin_verdict *v, const char *pin_file, int applied);

/* What lvd-pin reads from the store. */
typedef struct sel_pin_opts {
    const char *candidate;     /* build; NULL = the newest fetched build that is not the pin */
    const char *host;          /* NULL = this machine */
} sel_pin_opts;

/* Fills e from the store for the pin's build (see the header comment):
 * engines, their latest probes, arms and checks on host, the candidate's
 * digest, and the previous decision for the same two builds. 0 or -1 (err,
 * store failures only: finding nothing to compare is the rule table's job). */
int sel_pin_gather(struct store *s, const struct builds_pin *pin, const sel_pin_opts *o,
                   sel_pin_eval *e, lvd_err *err);

/* The fetched engine of build and flavour (compared canonically) that has a
 * digest, among v[0..n); NULL when none. Used by sel_pin_gather for the
 * candidate's digest and by sel_pin_apply for the other flavours'. */
const lvd_engine *sel_pin_fetched_engine(const lvd_engine *v, size_t n, const char *build,
                                         const char *flavour);

/* The decision's details as recorded in pin_decisions.details_json:
 *   {"pinned", "candidate", "flavour", "candidate_digest", "decision",
 *    "hold", "rule", "would_promote", "applied", "sessions": [...],
 *    "comparisons": [{"artifact", "backend", "arm_key", "params", "test",
 *       "pinned_engine", "candidate_engine", "pinned": {"median", "n",
 *       "warmup"}, "candidate": {...}, "stats": stats_comparison_json,
 *       "win", "no_regression", "verdict": "win"|"regression"|"inconclusive"|""}],
 *    "issues": [{"artifact", "backend", "device", "kind", "status", "what"}]}
 * Caller owns the object. */
struct cJSON *sel_pin_details_json(const sel_pin_eval *e, const sel_pin_verdict *v, int applied);

/* One comparison as read back from details_json (for the evidence page). */
typedef struct sel_pin_row {
    char artifact[LVD_SHA256_HEX_LEN + 1];
    char backend[16];
    char *params;              /* sel_params_brief */
    char test[48];
    double pinned_median, candidate_median;
    size_t pinned_n, candidate_n;
    double pinned_tpj, candidate_tpj; /* median tokens per joule; NAN: not measured */
    double ratio, ci_lo, ci_hi, p; /* NAN when absent */
    int win, no_regression;
    char verdict[16];          /* sel_pin_word_name: "win", "regression", "inconclusive", "" */
} sel_pin_row;

/* Reads the comparisons and issues of a recorded details_json. Unknown or
 * missing fields read as empty / NAN; text that is not a JSON object is an
 * error. Issues come back as "device: status: what" lines. */
int sel_pin_details_rows(const char *details_json, sel_pin_row **rows, size_t *n_rows,
                         char ***issues, size_t *n_issues, lvd_err *err);
void sel_pin_rows_free(sel_pin_row *rows, size_t n);

struct sel_pin_fleet;
/* The decision's document, the one both the store's record and `lvd pin
 * --json` carry: sel_pin_details_json, and with fleet (NULL: one host) each
 * comparison's and issue's host and every host's outcome
 * (sel_pin_fleet_json). */
struct cJSON *sel_pin_decision_json(const sel_pin_eval *e, const sel_pin_verdict *v, int applied,
                                    const struct sel_pin_fleet *fleet);
/* Records the night's decision (its document: sel_pin_decision_json; and,
 * when applied, the new pin) in one transaction. applied says whether the
 * pin file was rewritten. */
int sel_pin_record(struct store *s, const sel_pin_eval *e, const sel_pin_verdict *v, int applied,
                   const struct sel_pin_fleet *fleet, lvd_err *err);

/* Promotion: writes the candidate's build and digest into the pin file at
 * path atomically (comments and order kept, digests of the old build
 * dropped), adding the digests of the candidate's fetched engines of the
 * other flavours the file lists. Only for a verdict that promotes. */
int sel_pin_apply(struct store *s, struct builds_pin *pin, const char *path, const sel_pin_eval *e,
                  lvd_err *err);

#endif
