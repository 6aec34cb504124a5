/* decide.h: the selection's third step (select.h): the selection order over
 * what the gather step read (gather.h), pure (no store, no file), with an
 * explain line for each rule consulted:
 *   1. profile    a profile that names an engine, backend or device wins
 *                 (a warning when its device's check failed);
 *   2. verdict    the newest verdict, when it stands (gather.h, sel_standing);
 *   3. heuristic  select/heuristic.h over the offered engines' devices, less
 *                 those whose newest check failed or errored;
 *   4. first      the first engine listing a device that is no software
 *                 rasterizer, else the first CPU engine, else the first
 *                 engine listing only software devices, on the CPU.
 * Not for the launch line of the choice (place.h). */
#ifndef LVD_SEL_DECIDE_H
#define LVD_SEL_DECIDE_H

#include "common/util.h"
#include "select/engines.h"
#include "select/explain.h"
#include "select/gather.h"
#include "select/select.h"

/* The choice: the rule that decided and its engine and device (of the
 * facts' engines; dev NULL: the CPU). */
typedef struct sel_decision {
    sel_by by;
    sel_pick pick;
    const lvd_verdict *verdict; /* rule 2's verdict (its parameters are the launch's); else NULL */
    int depth;             /* rule 2: the serving depth its arm was measured at; else 0 */
} sel_decision;

/* Runs the order over f for request rq into d, saying each rule's line
 * into x. Returns the exit code: LVD_EXIT_OK, or LVD_EXIT_FAIL with err
 * (listing each engine's reason) when no engine can serve at all. */
int sel_decide(const sel_facts *f, const sel_request *rq, sel_decision *d, sel_explain *x, lvd_err *err);

#endif
