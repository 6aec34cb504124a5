/* rung.c: see rung.h. */
#include "bench/rung.h"

#include "bench/alloc.h"
#include "placement/cbuf.h"
#include "placement/nextrung.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What placement predicted the failed arm's device holds (bench_arm.pred[0]). */
static int64_t predicted_bytes(const bench_arm *a)
{
    if (!a->gpu || !a->n_pred || a->pred[0].pred_model < 0)
        return -1;
    const lvd_alloc *p = &a->pred[0];
    return p->pred_model + (p->pred_kv > 0 ? p->pred_kv : 0) + (p->pred_compute > 0 ? p->pred_compute : 0);
}

/* Grows the session's per-arm state to the plan's arms. */
static void grow_states(bench_session *s, size_t old_n)
{
    size_t n = s->plan->n_arms, nt = s->o.inv.n_tests;
    s->st = lvd_xrealloc(s->st, n * sizeof *s->st);
    for (size_t i = old_n; i < n; i++)
        bench_arm_state_init(&s->st[i], nt);
}

/* The next rung of arm i into the plan; 1 when one was added. */
static int next_rung(bench_session *s, size_t i)
{
    const bench_plan_opts *o = s->o.plan_opts;
    const bench_arm *a = &s->plan->arms[i];
    int64_t failed = predicted_bytes(a);
    if (failed < 0) {
        bench_plan_note(s->plan, "next rung: %s ran out of memory, no prediction to step down from",
                        a->label);
        return 0;
    }
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = o->shape;
    in.ctx = o->ctx; /* as the arm was priced (plan.c): its ubatch cut to this context */
    in.ubatch = a->params.ubatch;
    in.flash_attn = a->params.fa;
    in.type_k = a->params.type_k;
    in.type_v = a->params.type_v;
    in.dev = placement_cbuf_dev_of(a->backend, a->device_name);
    /* like with like: the failed arm's prediction holds no reserve */
    in.reserve_mib = 0;
    placement_result pl;
    lvd_err err = {{0}};
    int rc = placement_next_rung(&in, failed, &pl, &err);
    if (rc <= 0) {
        bench_plan_note(s->plan, "next rung: %s ran out of memory (predicted %.0f MiB); %s", a->label,
                        (double)failed / 1048576.0, rc < 0 ? err.msg : "no rung below keeps a block on the device");
        return 0;
    }
    lvd_params p = a->params;
    placement_placement_apply(&pl, o->shape, &p);
    char *why = lvd_xasprintf("next rung after out of memory: %s (%s)", placement_rung_name(pl.rung), pl.reason);
    size_t k = bench_plan_add_variant(s->plan, i, &p, why, o);
    free(why);
    a = &s->plan->arms[i]; /* moved by the realloc */
    s->plan->arms[k].rung_of = i + 1;
    bench_plan_note(s->plan, "next rung: %s ran out of memory (predicted %.0f MiB): measuring %s instead (%s)",
                    a->label, (double)failed / 1048576.0, s->plan->arms[k].label, placement_rung_name(pl.rung));
    return 1;
}

size_t bench_session_next_rungs(bench_session *s, unsigned char **need, unsigned char **solo)
{
    const bench_plan_opts *o = s->o.plan_opts;
    if (!o || !o->shape || !o->shape->known)
        return s->plan->n_arms;
    size_t n = s->plan->n_arms, added = 0;
    for (size_t i = 0; i < n; i++) {
        bench_arm_state *st = &s->st[i];
        if (st->rung_tried || st->status != BENCH_ARM_ACTIVE || !bench_alloc_reason_is_placement_failure(st->reason))
            continue;
        st->rung_tried = 1;
        st->status = BENCH_ARM_EXCLUDED; /* the same load fails the same way */
        added += (size_t)next_rung(s, i);
    }
    if (added) {
        grow_states(s, n);
        size_t m = s->plan->n_arms;
        *need = lvd_xrealloc(*need, m);
        *solo = lvd_xrealloc(*solo, m);
        memset(*need + n, 0, m - n);
        memset(*solo + n, 0, m - n);
    }
    return s->plan->n_arms;
}
