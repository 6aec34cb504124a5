/* select_internal.h: what select.c (the rules) and select_finish.c (the
 * launch line of a pick) share: the selection's state, a rule's pick and the
 * explain-line writer. Internal to the selection; not for other files. */
#ifndef LVD_SELECT_SELECT_INTERNAL_H
#define LVD_SELECT_SELECT_INTERNAL_H

#include "select/choice.h"
#include "select/engines.h"
#include "select/select.h"
#include "select/verdict.h"

/* Appends one explain line to r. */
void sel_say(sel_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What a rule chose: an engine and a device of its probe (NULL = the CPU). */
typedef struct pick {
    const sel_engine *eng;
    const lvd_device *dev;
} pick;

/* The selection's state while the rules run. */
typedef struct ctx {
    store *s;
    const store_artifact *a;
    const sel_request *rq;
    const char *host;
    sel_engines es;        /* probes under the environment a server started here sees */
    sel_engines ves;       /* probes under the verdict's environment, when it differs */
    int have_ves;
    sel_result *out;
    lvd_verdict verdict;   /* rule 2's verdict when it decided */
    int have_verdict;
} ctx;

/* The context ceiling lvd fit measured for the pick (select/ceiling.c):
 * with --ctx max, sets in->ctx to the ceiling less its margin and
 * in->place_ctx to the context it was measured at; a -c (or 0: the trained
 * context) above a valid ceiling is refused (LVD_EXIT_INPUT, the ceiling in
 * the message); --ctx max without a valid ceiling fails (LVD_EXIT_FAIL).
 * Explain lines say which. 0, or -1 with *exit_code and err. */
int sel_ceiling_apply(ctx *c, const pick *pk, sel_line_in *in, int *exit_code, lvd_err *err);

/* Fills c->out for the pick of rule `by`: the launch line of the pick's
 * parameters (choice.h, the one function that makes it) with --ctx,
 * --free-mib and the profile, and the explain lines of its placement and
 * device. 0, or -1 with *exit_code and err. */
int sel_finish(ctx *c, const pick *pk, sel_by by, int *exit_code, lvd_err *err);

#endif
