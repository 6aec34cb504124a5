/* select.c: lvd select's pipeline (see select.h), top to bottom in
 * sel_select: gather, decide, place, render, each step handing a plain
 * struct to the next and appending its explain lines to one list. Not for
 * any step's work (gather.c, decide.c, place.c, render.c). */
#include "select/select.h"

#include "common/cli.h"
#include "select/choice.h"
#include "select/decide.h"
#include "select/explain.h"
#include "select/gather.h"
#include "select/place.h"
#include "select/render.h"

#include <stdlib.h>
#include <string.h>

int sel_select(store *s, const store_artifact *artifact, const sel_request *rq, sel_result *out,
               int *exit_code, lvd_err *err)
{
    sel_facts facts;          /* gather.h: what the store and the disk say */
    sel_decision decision;    /* decide.h: the rule, the engine, the device */
    sel_choice_lines line;    /* place.h (choice.h): the launch line and its placement */
    sel_explain explain = {0}; /* explain.h: every step's lines, in order */
    memset(out, 0, sizeof *out);
    memset(&line, 0, sizeof line);
    int code = sel_gather(s, artifact, rq, &facts, err);
    if (code == LVD_EXIT_OK)
        code = sel_decide(&facts, rq, &decision, &explain, err);
    if (code == LVD_EXIT_OK)
        code = sel_place(&facts, rq, &decision, &line, &explain, err);
    if (code == LVD_EXIT_OK)
        sel_render(&decision, &line, &explain, out);
    sel_choice_lines_free(&line);
    sel_explain_free(&explain);
    sel_facts_free(&facts);
    *exit_code = code;
    return code == LVD_EXIT_OK ? 0 : -1;
}

void sel_result_free(sel_result *r)
{
    if (!r)
        return;
    free(r->model);
    lvd_engine_free(&r->engine);
    sel_launch_free(&r->launch);
    for (size_t i = 0; i < r->n_explain; i++)
        free(r->explain[i]);
    free(r->explain);
    memset(r, 0, sizeof *r);
}
