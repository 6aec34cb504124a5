/* render.h: the selection's last step (select.h): the result of a decision
 * and its launch line (sel_result: the engine, device, placement and the
 * launch's argv and env, with the explain lines every step collected), and
 * the result as lvd select prints it: the shell line with '# ' comment
 * lines (--explain, --record), or JSON (--json; sel_result_json in
 * select.h). Also the output of `lvd select --record --artifact` (the
 * verdict's own launch line, choice.h). Not for making any of it. */
#ifndef LVD_SEL_RENDER_H
#define LVD_SEL_RENDER_H

#include "common/types.h"
#include "select/choice.h"
#include "select/decide.h"
#include "select/explain.h"
#include "select/select.h"

#include <stdio.h>

struct cJSON;

/* Fills out from decision d and its lines l, moving l's launch and model and
 * x's lines into it (l and x are left empty). */
void sel_render(const sel_decision *d, sel_choice_lines *l, sel_explain *x, sel_result *out);

/* The shell line; then, with recorded (lvd select --record), "# recorded
 * verdict #ID (RULE, objective O): EXPLAIN"; then with explain "# decided by
 * rule: NAME" and a '# ' line per explain line. */
void sel_render_text(FILE *f, const sel_result *r, const lvd_verdict *recorded, int explain);
/* sel_result_json with, when recorded, "recorded": {id, objective, rule,
 * engine_id, arm_key, explain, stats}. Caller owns it. */
struct cJSON *sel_render_json(const sel_result *r, const lvd_verdict *recorded);

/* `lvd select --record --artifact`: the recorded verdict v and its lines c
 * as text (the line, the verdict comment, "# placement[ unknown]: ...", the
 * placeholder's note) or as JSON {recorded, engine, backend, model,
 * model_placeholder, placement, placement_known, argv, env}. */
void sel_render_artifact(FILE *f, int json, const lvd_verdict *v, const sel_choice_lines *c);

#endif
