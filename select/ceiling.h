/* ceiling.h: lvd select and the context ceilings lvd fit measured
 * (fit/ceiling.h has the rules): --ctx max serves the ceiling of the pick
 * less its margin, and a context asked for above a valid ceiling is refused.
 * The ceilings come from the gather step (the newest of each key for the
 * model on this host, read once); this file only looks the pick's up and
 * applies it. Not for measuring ceilings (fit/) nor for the launch line
 * (choice.h). */
#ifndef LVD_SEL_CEILING_H
#define LVD_SEL_CEILING_H

#include "select/choice.h"
#include "select/engines.h"
#include "select/explain.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/* 1 when a launch asking for context ctx (sel_request.ctx: -1 the profile's,
 * 0 the trained one, SEL_CTX_MAX) with profile p (NULL: none) on artifact a
 * weighs a ceiling: --ctx max, or a context given as a number by the caller
 * or the profile; 0 when it takes the default. */
int sel_ceiling_weighed(int64_t ctx, const sel_profile *p, const store_artifact *a);

/* Applies the ceiling of pick pk (in the list cl[0..n), store_ceiling_list)
 * to the launch line's input in: with --ctx max, sets in->ctx to the
 * ceiling less its margin and in->place_ctx to the context it was measured
 * at; a -c (or 0: the trained context) above a valid ceiling is refused
 * (LVD_EXIT_INPUT, the ceiling in the message); --ctx max without a valid
 * ceiling fails (LVD_EXIT_FAIL). Explain lines say which. Returns the exit
 * code (LVD_EXIT_OK, or with err). */
int sel_ceiling_apply(const store_ceiling *cl, size_t n, const sel_pick *pk, sel_line_in *in, sel_explain *x,
                      lvd_err *err);

#endif
