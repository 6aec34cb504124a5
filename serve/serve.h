/* serve.h: `lvd serve` as one call for its front end (tools/lvd-serve.c):
 * open the store and identify the model (select/select.h
 * sel_open_identify, hashing it when new), choose the launch lines
 * (serve/arms.h), run the session (serve/session.h) with the servers' logs
 * in a directory of their own, SIGINT, SIGTERM and SIGHUP ending it at
 * once with every server stopped (a SIGKILL too: common/proc.h's guard),
 * and say what exit status that is. Not for printing (serve/report.h). */
#ifndef LVD_SERVE_SERVE_H
#define LVD_SERVE_SERVE_H

#include "serve/arms.h"
#include "serve/load.h"
#include "serve/session.h"
#include "stats/rank.h"

#include <stdio.h>

typedef struct serve_job_opts {
    const char *store;         /* --store; NULL the default */
    const char *model;
    const char *url;           /* measure the server running there (no model, no store, nothing
                                  recorded); NULL: start the launch lines */
    size_t leading;            /* 0: the line lvd select prints; k: the k leading bench arms' lines */
    stats_objective objective; /* the verdict lvd select's rule 2 reads */
    int64_t ctx;               /* lvd select's --ctx (-1 default) */
    const serve_load *loads;
    size_t n_loads;
    serve_run_opts run;        /* stop and log_dir are the job's own when left NULL */
    size_t max_rounds;
    int64_t budget_ms;
    const char *session;       /* NULL: a new one ("serve-...") */
    int record;                /* record the runs */
    FILE *progress;            /* a line per run; NULL quiet */
} serve_job_opts;

typedef struct serve_job {
    serve_arm *arms;
    size_t n_arms;
    serve_session session;
    char *session_name;
    int ran;                   /* the session ran (session is filled) */
} serve_job;

/* Runs the whole job into out (free with serve_job_free). Returns the exit
 * status (common/cli.h): 0 every run ok; 5 some runs failed (recorded);
 * 1 none was ok or a signal ended it; 3 the model unreadable or the port
 * asked for taken; 4 the store. err holds the one line to print for any
 * status but 0 and 5. */
int serve_job_run(const serve_job_opts *o, serve_job *out, lvd_err *err);
void serve_job_free(serve_job *j);

#endif
