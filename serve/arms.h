/* arms.h: the launch lines a serving measurement starts, each an arm: the
 * line `lvd select` prints for the model (sel_select: profile, verdict,
 * heuristic, first engine; the line service start would run), or the lines
 * of the leading arms of the model's newest llama-bench session (ranked as
 * its tg verdict ranks them, each line made by sel_choice_lines_load, as
 * the evidence page makes it). The model word of each line is the model
 * given. An arm at load N is the same line at -np N (lvd_params.parallel,
 * its own arm key). Not for running them (serve/run.h). */
#ifndef LVD_SERVE_ARMS_H
#define LVD_SERVE_ARMS_H

#include "common/types.h"
#include "common/util.h"
#include "select/select.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

typedef struct serve_arm {
    int64_t engine_id;
    char *engine;           /* its name */
    char *build;
    char backend[32];       /* "cpu", "vulkan", ... (the device's label) */
    lvd_params params;      /* what the line passes; parallel 0 (each load sets it) */
    char **argv;            /* the line (NULL-terminated), argv[0] ENGINE_DIR/llama-server */
    char **env;             /* its NAME=VALUE assignments (NULL-terminated) */
    char *line;             /* the same as one shell line */
    char *from;             /* where the line came from: "lvd select (rule verdict)",
                               "leading arm 2 of session night-..." */
    int metrics;            /* its llama-server --help lists --metrics */
    char *url;              /* a running server's base URL (lvd serve --url): nothing is
                               started, argv and env are NULL; else NULL */
} serve_arm;

/* The line lvd select prints for artifact a (model: the path launched)
 * under rq: one arm into *arms. 0, or -1 with err and *exit_code as
 * sel_select gives them. */
int serve_arms_selected(store *s, const store_artifact *a, const sel_request *rq, serve_arm **arms, size_t *n,
                        int *exit_code, lvd_err *err);
/* The lines of the k leading eligible arms of a's newest llama-bench
 * session on host (NULL: this machine), ranked as its tg verdict ranks
 * them (not recorded), model the path launched. 0, or -1 with err and
 * *exit_code (LVD_EXIT_FAIL: no bench session, or no arm with a line;
 * LVD_EXIT_STORE). */
int serve_arms_leading(store *s, const store_artifact *a, const char *host, const char *model, size_t k,
                       serve_arm **arms, size_t *n, int *exit_code, lvd_err *err);
/* The server already running at url (http://HOST:PORT, a trailing '/'
 * dropped) as the one arm: no line, nothing started, its /metrics read when
 * it offers them. 0, or -1 with err when url is not http://. */
int serve_arms_url(const char *url, serve_arm **arms, size_t *n, lvd_err *err);
void serve_arms_free(serve_arm *v, size_t n);

#endif
