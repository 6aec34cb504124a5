/* session.h: a serving session: every arm (serve/arms.h) at every load
 * shape (serve/load.h), a cell each, run in rounds with the cells
 * interleaved (A B C, then C B A: drift hits every cell alike, as
 * bench/runner.c interleaves llama-bench's arms), each run recorded in the
 * store as soon as it ends (its session, this model and host), and after
 * each round the cells of each prompt shape (P, G) ranked on their
 * serve-tps samples (stats/rank.h at the round's look: the sequential
 * decision and its error bound spent over the looks) to decide whether
 * another round is needed.
 *
 * Stops: no ranking open and every cell still measured holding the rule's
 * min_samples kept samples of both serving tests (settled; one cell alone
 * is never open); max_rounds rounds; the budget spent (checked before each
 * run); no cell left. A cell whose run failed is excluded from then on (its
 * failed run is recorded, with its reason). The port asked for being taken
 * ends the session before anything runs, and a signal ends it at once (the
 * run it interrupted is not recorded). Not for printing (serve/report.h). */
#ifndef LVD_SERVE_SESSION_H
#define LVD_SERVE_SESSION_H

#include "serve/arms.h"
#include "serve/load.h"
#include "serve/run.h"
#include "serve/summary.h"
#include "stats/rank.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

#define SERVE_MAX_ROUNDS_DEFAULT 3

typedef struct serve_cell {
    size_t arm, load;          /* indices into the session's arms and loads */
    int excluded;              /* a run failed: measured no more */
    char *reason;              /* that failure's line */
    size_t runs, runs_ok;
    serve_drive all;           /* the requests of every ok run (their walls summed) */
    double *tps, *ttft;        /* kept samples (t/s) of serve-tps and serve-ttft, in run order */
    size_t n_tps, n_ttft;
    int64_t healthy_ms;        /* the newest ok run's time to /health 200 */
    serve_metric *metrics;     /* the newest ok run's /metrics (moved into fig at the end) */
    size_t n_metrics;
    serve_figures fig;         /* of all, after the session (healthy_ms and metrics: the newest run's) */
    size_t rank;               /* in its prompt shape's last ranking; 0 not ranked */
} serve_cell;

typedef enum serve_stop {
    SERVE_STOP_SETTLED = 0,
    SERVE_STOP_MAX_ROUNDS,
    SERVE_STOP_BUDGET,
    SERVE_STOP_NOTHING,        /* no cell left to measure */
    SERVE_STOP_PORT,           /* the port asked for is taken */
    SERVE_STOP_SIGNAL,         /* interrupted */
} serve_stop;

struct serve_session;
/* Called after each run is recorded (progress lines). */
typedef void (*serve_run_cb)(const struct serve_session *s, const serve_cell *c, const lvd_run *run,
                             const serve_figures *f, const char *failure, void *ctx);

typedef struct serve_session_opts {
    const char *artifact, *host, *session; /* on every run */
    const serve_arm *arms;
    size_t n_arms;
    const serve_load *loads;
    size_t n_loads;
    serve_run_opts run;
    size_t max_rounds;         /* 0: SERVE_MAX_ROUNDS_DEFAULT */
    int64_t budget_ms;         /* 0: none */
    int record;                /* record the runs in the store */
    serve_run_cb on_run;
    void *ctx;
} serve_session_opts;

typedef struct serve_session {
    serve_session_opts o;
    serve_cell *cells;         /* arm-major: arm 0 at every load, then arm 1 ... */
    size_t n_cells;
    size_t rounds, runs_ok, runs_failed;
    serve_stop stop;
    char *stop_why;            /* the port's or the signal's line; NULL */
    int64_t wall_ms;
} serve_session;

/* Runs the session into out (free with serve_session_free). 0 when it ran
 * to one of its stops, -1 with err when the options are invalid or the
 * store failed (runs recorded before stay). */
int serve_session_run(store *st, const serve_session_opts *o, serve_session *out, lvd_err *err);
void serve_session_free(serve_session *s);

/* "settled", "max-rounds", "budget", "nothing-measured", "port-taken", "interrupted". */
const char *serve_stop_name(serve_stop s);

#endif
