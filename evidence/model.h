/* model.h: the evidence page as data. ev_page_load (load.c) reads the store
 * into an ev_page (per model: arms with medians, CIs, deltas, correctness,
 * history; the verdict, placement and launch line; the pin decisions) through
 * the pure computation (model.c); the renderers (evidence/render.h:
 * markdown.c, svg.c, write.c) turn that into bytes without touching the
 * store, so they are tested on hand-built pages. Every figure is derived from stored
 * data: the same store gives the same page.
 *
 * Per model, the arms (select/armset.h: newest session, kept samples) are:
 *   ranked     eligible arms with samples of the objective's test(s), in the
 *              order stats_rank gives under the verdict's objective (tg when
 *              no verdict); rank 1 is the measured leader;
 *   unranked   eligible arms without those samples;
 *   excluded   status failed or gpu_ignored (newest session had no ok run),
 *              or the latest correctness check of the arm's engine and
 *              device failed or errored; shown with why, never ranked.
 * Columns: the pp test and the tg test at the serving depth (the deepest
 * measured, where the verdict decides) most arms measured (ties: the larger
 * test); an arm without that test shows its own test of the kind, named.
 * Depth: the leading arms' medians at every depth measured (ev_depth_build).
 * Figures: median t/s of the kept samples with a 95 % percentile-bootstrap CI
 * of the median (stats_bootstrap_ratio_ci of the samples against the constant
 * 1, same seed as every verdict); deltas are ratios of medians with their
 * bootstrap CI (stats_compare, default rule): against the CPU reference (stats/rank.h
 * stats_cpu_reference: the first eligible arm with figures whose backend is
 * cpu, in armset order; the bench's reference by the same rule) and against the best-ranked
 * arm of another backend (for the leader's backend that is the runner-up
 * backend; for the others, the leader). The leader is also compared with the
 * arm ranked second, whatever its backend. Placement and launch line: the
 * verdict's engine and parameters, or, with no verdict, the measured
 * leader's (and the page says so); made by the function that makes what
 * `lvd select --record --artifact` prints (select/choice.h
 * sel_choice_lines_load: lvd select's context, 2 x the arm's measured depth,
 * else min(4096, trained); the arm's -ngl/--n-cpu-moe/-ub kept where they
 * fit, else placement's; -c) from the store alone: the
 * model's shape and the free memory of the engine's latest probe (the
 * verdict records neither), the model's last known path or a placeholder
 * said to be one. Unlike lvd select, nothing on disk is consulted, so the
 * page depends on the store only. History: per arm and session date (UTC day of
 * the session's first run), the median of the kept samples of the arm's tg
 * test (and of its pp test) over that date's ok runs; the last `nights` dates. */
#ifndef LVD_EV_MODEL_H
#define LVD_EV_MODEL_H

#include "common/types.h"
#include "common/util.h"
#include "evidence/hunt.h"
#include "select/armset.h"
#include "store/store.h"
#include "select/pin.h"
#include "store/store.h"
#include "stats/energy.h"

#include <stddef.h>
#include <stdint.h>

struct store;

/* Median and CI of one arm on one test. */
typedef struct ev_stat {
    int has;                /* kept samples exist */
    char test[48];          /* the test the figures are of */
    double median, lo, hi;  /* t/s; lo/hi: 95 % CI of the median */
    size_t n, n_warmup;     /* kept samples, samples dropped as warm-up */
} ev_stat;

/* This arm against another: ratio of medians with its 95 % CI and p. */
typedef struct ev_delta {
    int has;
    double ratio, lo, hi, p;
    size_t other;           /* index of the other arm in ev_model.arms */
} ev_delta;

/* One point of the tg or pp history. */
typedef struct ev_point {
    char date[11];          /* YYYY-MM-DD (UTC) */
    double median;
    size_t n;
} ev_point;

/* One arm's medians at one llama-bench depth (-d), for the depth chart. */
typedef struct ev_depth_point {
    int depth;              /* n_depth of the tests */
    int has_pp, has_tg;
    double pp, tg;          /* median t/s of the kept samples */
} ev_depth_point;

typedef struct ev_arm {
    char *label;            /* "cuda · fa 1": backend (+ engine when a backend has several) + params */
    char *backend;          /* backend label (armset.h sel_backend_label) */
    char *engine;           /* engine name */
    char *build;
    char *params;           /* the parameter words not every arm shares; "" */
    char *arm_key;
    int64_t engine_id;
    char status[16];        /* "ok", "failed", "gpu_ignored", "excluded" */
    char *why;              /* failed/excluded: why; ok: failed runs beside the ok ones; NULL */
    size_t rank;            /* 1-based; 0 = not ranked */
    int is_ref;             /* the CPU reference arm */
    int is_verdict;         /* the arm the recorded verdict chose */
    ev_stat pp, tg;
    stats_energy_stat pp_j, tg_j; /* energy (evidence/energy.h); has 0: not measured */
    lvd_params run_params;  /* of the arm's newest run */
    ev_delta pp_vs_cpu, tg_vs_cpu; /* against the CPU reference */
    ev_delta pp_vs_alt, tg_vs_alt; /* against the best-ranked arm of another backend */
    char *check;            /* "pass (PPL ratio 1.0006, KLD 0.0012)", "base (CPU reference)", "not checked" */
    ev_point *hist;         /* the tg history (the arm's tg test), by date */
    size_t n_hist;
    ev_point *hist_pp;      /* the pp history (the arm's pp test), by date */
    size_t n_hist_pp;
    ev_depth_point *depth;  /* the leading arms only (evidence/depth.c), by depth */
    size_t n_depth;
} ev_arm;

/* One run's allocation on one device: placement's prediction next to what
 * llama.cpp reported (lvd_alloc, bytes, -1 = none), for the predicted-vs-
 * actual table (newest run of each arm) and the estimator's error (every run). */
typedef struct ev_alloc_row {
    char *arm;              /* the run's arm_key (the rows' key) */
    char *words;            /* the same in the page's words (sel_params_brief): the cell shown */
    char backend[16];       /* "vulkan", "cuda", "cpu" (from the device name) */
    lvd_alloc a;
    int newest;             /* the newest run of this arm and device */
} ev_alloc_row;

/* One context ceiling lvd fit measured (evidence/ceilings.c): per engine,
 * device and KV pair, with the placement's prediction beside it and what
 * choosing this backend costs in window against the best of the same KV
 * pair (percent; 0 for the best). */
typedef struct ev_ceiling {
    char *engine;
    char backend[16];       /* "cuda", "vulkan", "cpu" */
    char device[64];
    char kv[40];            /* "f16/f16" */
    int64_t ceiling;
    int capped;             /* the top loaded: the true ceiling is higher */
    int64_t predicted;      /* -1 unknown */
    int64_t free_mib;       /* -1 unknown */
    char *placement;
    char date[24];
    char *stale;            /* why it no longer holds; NULL when it does */
    double cost_pct;        /* window lost against best_engine's; NAN when stale or alone */
    char *best;             /* "b9749-vulkan Vulkan0" (the best of its KV pair), or NULL */
} ev_ceiling;

/* One serving arm at one load (evidence/serving.c): lvd serve's launch
 * line at -np N under N concurrent clients. */
typedef struct ev_serve_point {
    int clients;            /* N */
    char status[16];        /* "ok", "failed" (its newest session had no ok run) */
    char *why;              /* failed: the run's reason; NULL */
    double ttft_p50, ttft_p95; /* ms, of the kept requests; NAN none */
    ev_stat tps;            /* serve-tps: aggregate t/s, median with its 95 % CI */
    int is_verdict;         /* the recorded (serve) verdict chose this arm */
} ev_serve_point;

/* One launch line at every N it was served at, for one prompt shape. */
typedef struct ev_serve_line {
    char *label;            /* the arm's words without np ("cpu on b9749-cpu") */
    char backend[16];
    int n_prompt, n_gen;    /* P, G */
    ev_serve_point *pts;    /* by N, ascending */
    size_t n_pts;
    size_t rank;            /* by aggregate t/s at its largest N (ties: the lower TTFT); 1 leads */
} ev_serve_line;

typedef struct ev_model {
    char sha256[LVD_SHA256_HEX_LEN + 1];
    char *name;             /* file name, else sha256's first 12 */
    char *desc;             /* "llama 1B F16, 1.71 GB" or "" */
    char *common;           /* parameters every arm shares ("ub 512, t 16"); "" */
    char objective[16];     /* "tg", "pp", "w=0.70" */
    char pp_test[48], tg_test[48]; /* column tests; "" when none */
    char *state;            /* ranking state (rank.h): "win", "tie", "undecided", ... */
    ev_delta second_pp, second_tg; /* the leader against the arm ranked second */
    /* the recorded verdict */
    int has_verdict;
    char *verdict_arm;      /* label of the chosen arm, or "ENGINE (params)" when not measured */
    char *verdict_rule;
    char *verdict_explain;  /* may be NULL */
    char verdict_date[24];  /* "YYYY-MM-DD HH:MM UTC" */
    char *placement;        /* one line, or NULL when unknown */
    char *placement_unknown;/* why it is unknown ("shape not recorded (...)"), or NULL */
    char *launch;           /* shell line, or NULL */
    char *launch_note;      /* what a placeholder model path stands for, or NULL */
    int launch_of_leader;   /* placement and launch are the measured leader's (no verdict) */
    ev_arm *arms;           /* ranked by rank, then unranked, then excluded */
    size_t n_arms;
    char **dates;           /* history dates, sorted */
    size_t n_dates;
    ev_alloc_row *alloc;    /* evidence/alloc.c */
    size_t n_alloc;
    int *depths;            /* the depths the leading arms were measured at, sorted */
    size_t n_depths;
    ev_ceiling *ceilings;   /* evidence/ceilings.c */
    size_t n_ceilings;
    store_fit_plan *fit_plans; /* llama.cpp's own fit beside ours (evidence/fitplan.c) */
    size_t n_fit_plans;
    ev_serve_line *serve;   /* serving under load (evidence/serving.c), ranked */
    size_t n_serve;
} ev_model;

/* One serving arm as ev_serve_build takes it. Pointers are borrowed. */
typedef struct ev_serve_in {
    const sel_arm *arm;     /* params.parallel > 0 */
    const char *backend;
    const char *engine;
    int is_verdict;
} ev_serve_in;

/* The leading serving lines the chart shows (rank 1 to this). */
#define EV_SERVE_LINES 3
/* Fills m->serve from the serving arms in[0..n) (evidence/serving.c):
 * grouped by their launch line without -np and their prompt shape, each N
 * a point, the lines ranked. Pure. */
void ev_serve_build(ev_model *m, const ev_serve_in *in, size_t n);
void ev_serve_free(ev_model *m);

/* Fills m->ceilings from the store's newest ceiling of each engine, device
 * and KV pair of artifact a (NULL: none) on host; engines[i] with probes[i]
 * (engine_id 0: none) say whether each still holds (fit_ceiling_fresh). 0
 * or -1 (store). Computes the costs (ev_ceilings_cost). */
int ev_ceilings_load(struct store *s, const char *host, const store_artifact *a, const lvd_engine *engines,
                     const lvd_probe *probes, size_t n, ev_model *m, lvd_err *err);
/* Each valid ceiling's cost in window: (best - ceiling) / best x 100 against
 * the largest valid ceiling of the same KV pair. */
void ev_ceilings_cost(ev_model *m);
void ev_ceilings_free(ev_model *m);

/* Fills m->alloc from the runs' allocations (evidence/alloc.c). */
void ev_alloc_build(ev_model *m, const lvd_run *runs, size_t n);
void ev_alloc_free(ev_model *m);

typedef struct ev_pin_entry {
    char date[24];
    char *pinned, *candidate, *decision, *rule;
    int applied;
} ev_pin_entry;

typedef struct ev_pin {
    ev_pin_entry *hist;     /* newest first */
    size_t n_hist;
    sel_pin_row *rows;      /* the newest decision's comparisons */
    size_t n_rows;
    char **issues;          /* and its issues */
    size_t n_issues;
} ev_pin;

typedef struct ev_page {
    char *title;
    char *host;
    char first_date[11], last_date[11]; /* of the measurements shown; "" none */
    ev_model *models;
    size_t n_models;
    ev_pin pin;
    char **older;           /* "b10500-cuda is older than the pin b10715: rebuild at b10715 ..." */
    size_t n_older;
    const char *const *notes;  /* lvd evidence --note lines (borrowed), shown first */
    size_t n_notes;
    ev_hunt hunt;           /* the newest bisect's culprit, drift flags (evidence/hunt.h) */
    struct ev_fleet *fleet; /* the fleet section (evidence/fleet.h) when the store holds more
                               than one host; NULL else */
} ev_page;

/* --- the pure part ---------------------------------------------------------- */

/* One arm as the caller knows it. Pointers are borrowed for the call. */
typedef struct ev_arm_in {
    const sel_arm *arm;
    const char *backend;
    const char *engine;
    const char *build;
    const char *semver;     /* the engine's SemVer version ("0.4.1-dev"); NULL before them */
    const char *family;     /* the engine's family (LVD_FAMILY_*); NULL: llama.cpp */
    const char *check_status;  /* "pass", "fail", "error", "base"; NULL = not checked */
    const char *check_text;    /* "PPL ratio 1.0006, KLD 0.0012"; may be NULL */
    int is_verdict;
} ev_arm_in;

/* Fills m's arms, columns, labels, ranking and deltas from in[0..n) under
 * objective ("tg", "pp", "w=W"; NULL = tg). m's identity fields (sha256,
 * name, desc, verdict) are the caller's. 0, or -1 (err) for an objective
 * stats_objective_parse refuses. */
int ev_model_compute(ev_model *m, const ev_arm_in *in, size_t n, const char *objective, lvd_err *err);
/* The leading arms the depth chart shows (rank 1 to this). */
#define EV_DEPTH_ARMS 3
/* Fills the depth points of m's ranked arms up to EV_DEPTH_ARMS and
 * m->depths from in[0..n) (as ev_model_compute took them; matched by engine
 * id and arm key): per depth, the median of the kept samples of the tests
 * with the column tests' sizes (m->pp_test, m->tg_test at any depth). */
void ev_depth_build(ev_model *m, const ev_arm_in *in, size_t n);
void ev_depth_free(ev_model *m);

/* Adds the tg and pp histories to m's arms from runs[0..n) (the model's
 * runs, any session, with samples): the last nights session dates of
 * either (0 = all). Arms are matched by engine id and arm key; each arm's
 * tests are m->arms[i].tg.test and .pp.test (evidence/history.c). */
void ev_history_build(ev_model *m, const lvd_run *runs, size_t n, size_t nights);

/* YYYY-MM-DD and "YYYY-MM-DD HH:MM UTC" of epoch seconds. */
void ev_date(int64_t t, char out[11]);
void ev_datetime(int64_t t, char out[24]);

void ev_model_free(ev_model *m);
void ev_page_free(ev_page *p);

/* --- from the store -------------------------------------------------------- */

#define EV_NIGHTS_DEFAULT 14 /* history dates and pin decisions shown when not asked */
#define EV_TITLE_DEFAULT "Backend selection evidence"

typedef struct ev_opts {
    const char *title;         /* NULL = EV_TITLE_DEFAULT */
    const char *host;          /* NULL = this machine */
    const char *const *models; /* sha256, unique prefix of >= 8 hex, or a file path; NULL = all */
    size_t n_models;
    size_t nights;             /* history dates and pin decisions shown; 0 = EV_NIGHTS_DEFAULT */
} ev_opts;

/* Reads the page from the store: every artifact measured on host (or those
 * named), ordered by name then sha256. Only reads the store (lvd evidence
 * opens it read-only): a path is identified from the path cache, else by
 * hashing the file, and never recorded. Returns 0, -1 when the store fails,
 * or -2 when a named model is unknown, ambiguous or its file cannot be read
 * (err names it). */
int ev_page_load(struct store *s, const ev_opts *o, ev_page *out, lvd_err *err);

#endif
