/* run.h: one serving run: an arm's launch line at one load shape N:P:G
 * started as a real llama-server (serve/server.h), driven by N clients
 * (serve/client.h), its /metrics read, stopped, and what came of it as a
 * run like llama-bench's (common/types.h lvd_run: the line's binary and
 * parameters at -np N, its arm key, status, reason, the two serving
 * results of serve/summary.h). A run failed when the server did not start
 * or become healthy, died under the load, streamed something malformed, or
 * answered no request; its reason is that one line and its stderr_tail the
 * server log's last lines. Not for rounds or the store (serve/session.h). */
#ifndef LVD_SERVE_RUN_H
#define LVD_SERVE_RUN_H

#include "common/types.h"
#include "common/util.h"
#include "serve/arms.h"
#include "serve/load.h"
#include "serve/summary.h"

#include <signal.h>
#include <stdint.h>

#define SERVE_REQUEST_TIMEOUT_S_DEFAULT 300 /* one request's limit, lvd serve --timeout */
/* serve_run_opts.requests: SERVE_REQUESTS_PER_CLIENT per client, at least SERVE_REQUESTS_MIN */
#define SERVE_REQUESTS_AUTO (-1)
#define SERVE_REQUESTS_PER_CLIENT 4
#define SERVE_REQUESTS_MIN 8

typedef struct serve_run_opts {
    int requests;              /* per run; 0: for duration_ms; SERVE_REQUESTS_AUTO */
    int64_t duration_ms;       /* with requests 0 */
    int request_timeout_ms;    /* one request's limit */
    int health_timeout_ms;     /* the server's, to /health 200 */
    int port;                  /* 0: a free one each run */
    const char *log_dir;       /* the servers' logs go here (one file a run); NULL: none kept */
    volatile sig_atomic_t *stop; /* set by a signal: end the run at once; NULL none */
} serve_run_opts;

/* How a run ended, for the session. */
typedef enum serve_run_end {
    SERVE_RUN_DONE = 0,        /* ran (ok or failed: run->status) */
    SERVE_RUN_PORT,            /* the port asked for is taken: no run can start */
    SERVE_RUN_STOPPED,         /* interrupted by a signal: nothing to record */
} serve_run_end;

/* One run of arm at load l (an arm with a url: the server running there,
 * neither started nor stopped, its -np whatever it has) (seed varies its prompts) into run (zeroed
 * first; identity fields the session owns, artifact, host and session, are
 * left empty), *fig (free with serve_figures_free; empty unless the drive
 * ran) and, when reqs is not NULL and the run is ok, its requests (free
 * with serve_drive_free; zeroed otherwise). Returns the end; err holds the
 * failure's line when the run failed or could not start. */
serve_run_end serve_run_once(const serve_arm *arm, const serve_load *l, const serve_run_opts *o, unsigned seed,
                             lvd_run *run, serve_figures *fig, serve_drive *reqs, lvd_err *err);

#endif
