/* armset.h: what the store measured, grouped the way decisions read it. Runs
 * of one host become arms (artifact x engine x arm key); each arm keeps the
 * runs of its newest session only, and per test the kept samples
 * (stats/stats.h stats_result_kept) of that session's ok runs. Shared by lvd-pin
 * (candidate against pinned) and lvd-evidence (the tables and charts).
 * Not for statistics (stats.h, rank.h) nor for choosing a winner.
 *
 * Newest session of an arm: the session of its run with the latest
 * started_at (ties: the higher run id); runs without a session form the
 * session "". An arm's status is "ok" when that session has at least one ok
 * run, else the status and reason of the session's newest run ("failed" or
 * "gpu_ignored"): a night whose runs all crashed does not fall back to the
 * numbers of an older night. An arm whose session has no ok run but runs
 * that ignored the GPU flags keeps their samples (the CPU speed it delivered,
 * for display: such an arm never ranks); backends stays what ok runs
 * reported, so such an engine is not labelled "cpu". */
#ifndef LVD_SEL_ARMSET_H
#define LVD_SEL_ARMSET_H

#include "common/types.h"
#include "common/util.h"

#include <stddef.h>
#include <stdint.h>

struct store;

/* One test of one arm in its newest session (see the header comment). */
typedef struct sel_series {
    char test[48];          /* "pp512", "tg128" as llama-bench names them */
    int n_prompt, n_gen, n_depth;
    double *ts;             /* kept samples (t/s), in run order */
    size_t n;
    size_t n_warmup;        /* samples flagged as warm-up (not in ts) */
    double *tpj;            /* the kept samples with measured energy, as tokens per joule
                               (stats/energy.h); n_tpj of them */
    size_t n_tpj;
} sel_series;

/* One arm: an engine with one parameter set, on one artifact. */
typedef struct sel_arm {
    char artifact[LVD_SHA256_HEX_LEN + 1];
    int64_t engine_id;
    char *arm_key;
    lvd_params params;      /* of the newest run */
    char *session;          /* the newest session ("" when runs carry none) */
    int64_t started_at;     /* the earliest start among that session's runs of the arm */
    char status[16];        /* "ok", "failed", "gpu_ignored" (see the header comment) */
    char *reason;           /* the newest non-ok run's reason in that session; NULL if none */
    size_t n_runs;          /* runs of the arm in that session */
    size_t n_failed;        /* of which not ok */
    char backends[64];      /* what llama-bench reported for the ok results ("CUDA"); "" none */
    sel_series *series;     /* by first appearance */
    size_t n_series;
} sel_arm;

typedef struct sel_armset {
    sel_arm *v;             /* ordered by artifact, engine id, arm key */
    size_t n;
} sel_armset;

/* Groups runs[0..n) (with results and samples loaded) into arms. Pure. */
void sel_armset_build(const lvd_run *runs, size_t n, sel_armset *out);
/* Loads the runs of host (NULL = this machine) for artifact (NULL = every
 * artifact), engine (0 = every engine) and arm key (NULL = every arm) and
 * groups them; only each arm's newest session is read (store_newest.h finds
 * it by index), so the cost is those sessions', not the history's. 0 or -1 (err). */
int sel_armset_load(struct store *s, const char *artifact, const char *host, int64_t engine_id, const char *arm_key,
                    sel_armset *out, lvd_err *err);
/* sel_armset_load without the samples (every series empty) nor parameters:
 * what each arm ran (series with their sizes, backends, status, runs), for
 * a reader that needs no statistics (the launch line's measured depth and
 * backends); one query per arm for its newest session's runs and results
 * (store_newest.h store_arm_session_shape). */
int sel_armset_load_shape(struct store *s, const char *artifact, const char *host, int64_t engine_id,
                          const char *arm_key, sel_armset *out, lvd_err *err);
/* Which arms to read, chosen from all of them before any run is: sets
 * keep[i] (zeroed) for arms[0..n) wanted. */
struct store_arm_session;
typedef void (*sel_arm_pick_fn)(const struct store_arm_session *arms, size_t n, unsigned char *keep, void *ctx);
/* sel_armset_load of the arms pick keeps (a reader that pairs arms reads no arm without its pair). */
int sel_armset_load_picked(struct store *s, const char *artifact, const char *host, int64_t engine_id,
                           const char *arm_key, sel_arm_pick_fn pick, void *ctx, sel_armset *out, lvd_err *err);
void sel_armset_free(sel_armset *set);

/* The series of test in arm a, or NULL. */
const sel_series *sel_arm_series(const sel_arm *a, const char *test);

/* The backend label of an engine: its latest probe's label when there is one
 * that is not "unknown" (probe may be NULL), else what llama-bench reported
 * for its ok results, lower case, first backend only ("CUDA" -> "cuda",
 * "Vulkan" -> "vulkan", "BLAS,CPU" -> "blas"), else "unknown". */
void sel_backend_label(const lvd_probe *probe, const char *reported, char *out, size_t n);

/* The parameters that were passed, as short words in arm-key order:
 * "CUDA0", "ngl 99", "fa 1", "ub 256", "ctk q8_0", "ctv q8_0", "ncmoe 4",
 * "t 16", "np 4" (a serving arm's slots), then each environment assignment. Writes up to max words of at
 * most 256 bytes; returns how many were written. */
size_t sel_params_words(const lvd_params *p, char (*words)[256], size_t max);
/* The same joined by ", "; "defaults" when nothing was passed. Caller frees. */
char *sel_params_brief(const lvd_params *p);
/* An arm as a person reads it, in the words of the evidence page's table:
 * backend label, then its parameters' words, then the engine (NULL: left
 * out): "cuda · CUDA0, ngl 99, fa 1 on b9749-cuda", "cpu on b9749-cpu".
 * Every line a person reads names arms so (the arm key stays in --json).
 * Caller frees. */
char *sel_arm_words(const char *backend, const char *engine, const lvd_params *p);

#endif
