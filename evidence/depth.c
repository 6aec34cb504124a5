/* depth.c: the evidence page's throughput against context depth (model.h
 * ev_depth_build): per leading arm and llama-bench depth, the median of the
 * kept samples of the column tests' sizes. Pure. Not for drawing (svg.c). */
#include "evidence/model.h"

#include "stats/stats.h"

#include <stdlib.h>
#include <string.h>

/* The sizes (n_prompt, n_gen) of the series named test in a; 0 when none. */
static int sizes_of(const sel_arm *a, const char *test, int *n_prompt, int *n_gen)
{
    const sel_series *s = *test ? sel_arm_series(a, test) : NULL;
    if (!s)
        return 0;
    *n_prompt = s->n_prompt;
    *n_gen = s->n_gen;
    return 1;
}

static ev_depth_point *point_at(ev_arm *a, int depth)
{
    size_t i = 0;
    while (i < a->n_depth && a->depth[i].depth < depth)
        i++;
    if (i < a->n_depth && a->depth[i].depth == depth)
        return &a->depth[i];
    a->depth = lvd_xrealloc(a->depth, (a->n_depth + 1) * sizeof *a->depth);
    memmove(&a->depth[i + 1], &a->depth[i], (a->n_depth - i) * sizeof *a->depth);
    a->n_depth++;
    memset(&a->depth[i], 0, sizeof a->depth[i]);
    a->depth[i].depth = depth;
    return &a->depth[i];
}

static void add_depth(ev_model *m, int depth)
{
    size_t i = 0;
    while (i < m->n_depths && m->depths[i] < depth)
        i++;
    if (i < m->n_depths && m->depths[i] == depth)
        return;
    m->depths = lvd_xrealloc(m->depths, (m->n_depths + 1) * sizeof *m->depths);
    memmove(&m->depths[i + 1], &m->depths[i], (m->n_depths - i) * sizeof *m->depths);
    m->depths[i] = depth;
    m->n_depths++;
}

/* The depth points of arm a from its measurements s. */
static void arm_points(ev_model *m, ev_arm *a, const sel_arm *s)
{
    int pp_p = 0, pp_g = 0, tg_p = 0, tg_g = 0;
    int has_pp = sizes_of(s, m->pp_test, &pp_p, &pp_g), has_tg = sizes_of(s, m->tg_test, &tg_p, &tg_g);
    for (size_t k = 0; k < s->n_series; k++) {
        const sel_series *x = &s->series[k];
        int pp = has_pp && x->n_prompt == pp_p && x->n_gen == pp_g;
        int tg = has_tg && x->n_prompt == tg_p && x->n_gen == tg_g;
        if ((!pp && !tg) || !x->n)
            continue;
        ev_depth_point *p = point_at(a, x->n_depth);
        if (pp) {
            p->has_pp = 1;
            p->pp = stats_median(x->ts, x->n);
        } else {
            p->has_tg = 1;
            p->tg = stats_median(x->ts, x->n);
        }
        add_depth(m, x->n_depth);
    }
}

void ev_depth_build(ev_model *m, const ev_arm_in *in, size_t n)
{
    for (size_t i = 0; i < m->n_arms; i++) {
        ev_arm *a = &m->arms[i];
        if (!a->rank || a->rank > EV_DEPTH_ARMS)
            continue;
        for (size_t k = 0; k < n; k++)
            if (in[k].arm->engine_id == a->engine_id && !strcmp(in[k].arm->arm_key, a->arm_key))
                arm_points(m, a, in[k].arm);
    }
}

void ev_depth_free(ev_model *m)
{
    for (size_t i = 0; i < m->n_arms; i++) {
        free(m->arms[i].depth);
        m->arms[i].depth = NULL;
        m->arms[i].n_depth = 0;
    }
    free(m->depths);
    m->depths = NULL;
    m->n_depths = 0;
}
