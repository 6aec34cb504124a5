/* select_finish.c: the result of a selection once a rule has picked an
 * engine and device (see select_internal.h): the launch line through
 * choice.c's one builder, the placement and device explain lines, the
 * carried device-visibility variables. Not for the rules themselves
 * (select.c) nor for assembling a line (choice.c). */
#include "select/select_internal.h"

#include "common/cli.h"
#include "common/util.h"
#include "builds/older.h"
#include "engine/cudaarch.h"
#include "placement/correction.h"
#include "select/choice.h"
#include "select/heuristic.h"
#include "select/launch.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

void sel_say(sel_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lvd_strv_vpushf(&r->explain, &r->n_explain, fmt, ap);
    va_end(ap);
}

/* --- placement and launch ----------------------------------------------- */

static void engine_copy(lvd_engine *dst, const lvd_engine *src)
{
    *dst = *src;
    dst->name = src->name ? lvd_xstrdup(src->name) : NULL;
    dst->dir = src->dir ? lvd_xstrdup(src->dir) : NULL;
    dst->build = src->build ? lvd_xstrdup(src->build) : NULL;
    dst->commit = src->commit ? lvd_xstrdup(src->commit) : NULL;
    dst->flavour = src->flavour ? lvd_xstrdup(src->flavour) : NULL;
    dst->digest = src->digest ? lvd_xstrdup(src->digest) : NULL;
    dst->origin = src->origin ? lvd_xstrdup(src->origin) : NULL;
    dst->host = src->host ? lvd_xstrdup(src->host) : NULL;
}

/* The explain line of the line's placement (choice.h made it). */
static void say_placement(sel_result *r, const sel_choice_lines *l, const sel_profile *p)
{
    if (l->cpu_run)
        sel_say(r, "placement: none: the model runs on the CPU%s; ctx %u (%s)",
            l->gpu_capable ? " (-ngl 0 on an engine that lists devices)" : "", l->ctx, l->ctx_from);
    else if (l->placed)
        sel_say(r, "placement: %s on %s (%s), %lld MiB free (from %s), ctx %u (%s): %s%s",
            placement_rung_name(l->placement.rung), l->device.selector, l->device.name,
            (long long)l->free_mib, l->free_from, l->ctx, l->ctx_from, l->placement.reason,
            l->kept_arm ? "; the measured arm's -ngl/--n-cpu-moe/-ub fit and are kept"
                        : "; its -ngl/--n-cpu-moe/-ub replace the measured arm's, which would not fit");
    else if (l->params.split_mode[0] && l->placement_line)
        sel_say(r, "placement: %s", l->placement_line);
    else if (l->free_mib < 0)
        sel_say(r, "placement: %s's free memory is unknown (the probe did not print it; pass"
            " --free-mib): -ngl %s", l->device.selector,
            l->params.ngl >= 0 ? "as measured" : "left to llama.cpp");
    else
        sel_say(r, "placement: %s", l->placement_line);
    if (l->placed)
        sel_say(r, "placement: margin correction: %s", l->margin_why);
    if (l->profile_overrides)
        sel_say(r, "placement: the profile %s overrides it: ngl %d, n-cpu-moe %d, ub %d", p->file,
            l->params.ngl, l->params.n_cpu_moe, l->params.ubatch);
}

/* Fills the result for the pick of rule `by`: the launch line of the pick's
 * parameters (choice.h, the one function that makes it) with --ctx,
 * --free-mib and the profile. */
int sel_finish(ctx *c, const pick *pk, sel_by by, int *exit_code, lvd_err *err)
{
    sel_result *r = c->out;
    r->by = by;
    engine_copy(&r->engine, &pk->eng->e);
    lvd_params params;
    lvd_params_init(&params);
    int depth = 0;
    if (by == SEL_BY_VERDICT) {
        params = c->verdict.params; /* its device as measured ("" = the default device) */
        r->verdict_id = c->verdict.id;
        char backends[64];
        depth = c->verdict.depth; /* a verdict from before schema 18: its arm's newest session */
        if (depth < 0 && sel_arm_measured(c->s, c->a->sha256, c->verdict.host, c->verdict.engine_id,
                                          c->verdict.arm_key, backends, sizeof backends, &depth, err) != 0) {
            *exit_code = LVD_EXIT_STORE;
            return -1;
        }
    } else if (pk->dev) {
        snprintf(params.device, sizeof params.device, "%s", pk->dev->selector);
    } else {
        params.ngl = 0; /* the CPU */
    }
    sel_line_in in;
    sel_line_in_init(&in);
    in.engine = &pk->eng->e;
    in.probe = &pk->eng->probe;
    in.params = &params;
    in.artifact = c->a;
    in.model = r->model;
    in.profile = c->rq->profile;
    in.ctx = c->rq->ctx;
    in.depth = depth; /* the launch serves the context the verdict was measured at */
    in.free_mib = c->rq->free_mib;
    if (sel_ceiling_apply(c, pk, &in, exit_code, err) != 0)
        return -1;
    lvd_alloc *rows = NULL;
    if (c->s && store_alloc_rows(c->s, PLACEMENT_CORRECTION_WINDOW, &rows, &in.n_alloc_rows, err) != 0) {
        *exit_code = LVD_EXIT_STORE;
        return -1;
    }
    in.alloc_rows = rows;
    sel_choice_lines l;
    int built = sel_choice_lines_build(&in, &l, err);
    free(rows);
    if (built != 0) {
        *exit_code = LVD_EXIT_INPUT;
        return -1;
    }
    int rc = 0;
    if (l.placement_failed) {
        *exit_code = LVD_EXIT_INPUT;
        rc = lvd_errf(err, "%s", l.placement_line);
    } else {
        say_placement(r, &l, c->rq->profile);
        if (l.launch.left_out) /* the engine's llama-server lacks a flag of the line */
            sel_say(r, "launch: %s", l.launch.left_out);
        sel_device_label(pk->dev, r->backend, sizeof r->backend);
        if (pk->dev)
            r->device = *pk->dev;
        if (pk->dev && engine_device_is_software(pk->dev->name))
            sel_say(r, "device: %s (%s) is %s: a software rasterizer on the host's CPU cores, not an"
                " accelerator; used because the %s", pk->dev->selector, pk->dev->name, r->backend,
                by == SEL_BY_VERDICT ? "verdict measured it fastest" : "profile names it");
        char flag[256] = "";
        if (pk->dev)
            engine_cuda_arch_flag(pk->eng->probe.cuda_archs, pk->dev, flag, sizeof flag);
        if (*flag)
            sel_say(r, "warning: %s %s: %s", pk->eng->e.name, pk->dev->selector, flag);
        char pin[64], older[512];
        if (builds_pin_build_default(pin, sizeof pin) && builds_local_older(&pk->eng->e, pin, older, sizeof older))
            sel_say(r, "warning: %s; its figures were not measured on the pin", older);
        r->placed = l.placed;
        r->placement = l.placement;
        r->params = l.params;
        r->ctx = l.ctx;
        r->launch = l.launch;
        memset(&l.launch, 0, sizeof l.launch); /* moved into r */
        if (pk->dev) /* the device as probed: a service must see what was chosen */
            sel_launch_carry_env(&r->launch, pk->eng->probe.env, pk->dev->backend);
    }
    sel_choice_lines_free(&l);
    return rc;
}

