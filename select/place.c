/* place.c: the launch line of a decision (see place.h): its parameters and
 * context, placement through choice.c's one builder, and the explain lines
 * of what the line is and warns of. Reads no store (the ceilings and the
 * allocation rows are the gather step's); the pin file is read for the
 * older-than-pin warning. Not for choosing (decide.c) nor for assembling a
 * line (choice.c). */
#include "select/place.h"

#include "builds/older.h"
#include "engine/family.h"
#include "common/cli.h"
#include "engine/cudaarch.h"
#include "engine/devices.h"
#include "select/ceiling.h"
#include "select/heuristic.h"
#include "select/launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The parameters the launch starts from: the verdict's arm as measured (its
 * device "" = the default device), else the rule's device, else the CPU. */
static void params_of(const sel_decision *d, lvd_params *p)
{
    lvd_params_init(p);
    if (d->by == SEL_BY_VERDICT)
        *p = d->verdict->params;
    else if (d->pick.dev)
        snprintf(p->device, sizeof p->device, "%s", d->pick.dev->selector);
    else
        p->ngl = 0; /* the CPU */
}

/* The explain line of the line's placement (choice.h made it). */
static void say_placement(const sel_choice_lines *l, const sel_profile *p, sel_explain *x)
{
    if (l->cpu_run)
        sel_say(x, "placement: none: the model runs on the CPU%s; ctx %u (%s)",
                l->gpu_capable ? " (-ngl 0 on an engine that lists devices)" : "", l->ctx, l->ctx_from);
    else if (l->placed)
        sel_say(x, "placement: %s on %s (%s), %lld MiB free (from %s), ctx %u (%s): %s%s",
                placement_rung_name(l->placement.rung), l->device.selector, l->device.name,
                (long long)l->free_mib, l->free_from, l->ctx, l->ctx_from, l->placement.reason,
                l->kept_arm ? "; the measured arm's -ngl/--n-cpu-moe/-ub fit and are kept"
                            : "; its -ngl/--n-cpu-moe/-ub replace the measured arm's, which would not fit");
    else if (l->params.split_mode[0] && l->placement_line)
        sel_say(x, "placement: %s", l->placement_line);
    else if (l->free_mib < 0)
        sel_say(x, "placement: %s's free memory is unknown (the probe did not print it; pass --free-mib): -ngl %s",
                l->device.selector, l->params.ngl >= 0 ? "as measured" : "left to llama.cpp");
    else
        sel_say(x, "placement: %s", l->placement_line);
    if (l->placed) {
        const placement_result *pl = &l->placement;
        sel_say(x, "placement: memory: weights %llu MiB and KV %llu MiB%s from %s; compute %llu MiB from %s",
                (unsigned long long)(pl->weight_bytes >> 20), (unsigned long long)(pl->kv_bytes >> 20),
                pl->recurrent_bytes ? " (recurrent state included)" : "",
                l->engine_mem.known ? l->engine_mem.from : "the GGUF shape",
                (unsigned long long)(pl->compute_bytes >> 20), pl->compute_why);
        if (l->engine_mem_why[0])
            sel_say(x, "placement: %s", l->engine_mem_why);
        sel_say(x, "placement: margin correction: %s", l->margin_why);
    }
    if (l->profile_overrides)
        sel_say(x, "placement: the profile %s overrides it: ngl %d, n-cpu-moe %d, ub %d", p->file, l->params.ngl,
                l->params.n_cpu_moe, l->params.ubatch);
}

/* What the line warns of: a software device, an engine of another family
 * than mainline's (said), a CUDA build without the device's architecture,
 * an engine older than the pin. */
static void say_warnings(const sel_facts *f, const sel_decision *d, sel_explain *x)
{
    const sel_engine *e = d->pick.eng;
    const lvd_device *dev = d->pick.dev;
    if (dev && engine_device_is_software(dev->name)) {
        char label[32];
        sel_device_label(dev, label, sizeof label);
        sel_say(x, "device: %s (%s) is %s: a software rasterizer on the host's CPU cores, not an accelerator;"
                " used because the %s", dev->selector, dev->name, label,
                d->by == SEL_BY_VERDICT ? "verdict measured it fastest" : "profile names it");
    }
    if (strcmp(lvd_engine_family(&e->e), LVD_FAMILY_MAINLINE)) { /* its line is in its family's vocabulary */
        char family[128];
        engine_family_describe(&e->e, family, sizeof family);
        sel_say(x, "engine: %s is %s", e->e.name, family);
    }
    char flag[256] = "";
    if (dev)
        engine_cuda_arch_flag(e->probe.cuda_archs, dev, flag, sizeof flag);
    if (*flag)
        sel_say(x, "warning: %s %s: %s", e->e.name, dev->selector, flag);
    char pin[64], older[512];
    lvd_engine *all = lvd_xcalloc(f->es.n ? f->es.n : 1, sizeof *all); /* the engines, as builds/ takes them */
    for (size_t i = 0; i < f->es.n; i++)
        all[i] = f->es.v[i].e;
    int pinned = builds_pin_default_resolved(all, f->es.n, pin, sizeof pin);
    free(all);
    if (pinned && builds_local_older(&e->e, pin, older, sizeof older))
        sel_say(x, "warning: %s; its figures were not measured on the pin", older);
}

int sel_place(const sel_facts *f, const sel_request *rq, const sel_decision *d, sel_choice_lines *out,
              sel_explain *x, lvd_err *err)
{
    lvd_params params;
    params_of(d, &params);
    sel_line_in in;
    sel_line_in_init(&in);
    in.engine = &d->pick.eng->e;
    in.probe = &d->pick.eng->probe;
    in.params = &params;
    in.artifact = f->artifact;
    in.model = f->model;
    in.profile = rq->profile;
    in.ctx = rq->ctx;
    in.depth = d->depth; /* the launch serves the context the verdict was measured at */
    in.free_mib = rq->free_mib;
    in.alloc_rows = f->alloc_rows;
    in.n_alloc_rows = f->n_alloc_rows;
    in.fitprints = f->fitprints;
    in.n_fitprints = f->n_fitprints;
    memset(out, 0, sizeof *out);
    int code = sel_ceiling_apply(f->ceilings, f->n_ceilings, &d->pick, &in, x, err);
    if (code != LVD_EXIT_OK)
        return code;
    if (sel_choice_lines_build(&in, out, err) != 0)
        return LVD_EXIT_INPUT;
    if (out->placement_failed) {
        lvd_errf(err, "%s", out->placement_line);
        return LVD_EXIT_INPUT;
    }
    say_placement(out, rq->profile, x);
    if (out->launch.left_out) /* the engine's llama-server lacks a flag of the line */
        sel_say(x, "launch: %s", out->launch.left_out);
    say_warnings(f, d, x);
    if (d->pick.dev) /* the device as probed: a service must see what was chosen */
        sel_launch_carry_env(&out->launch, d->pick.eng->probe.env, d->pick.dev->backend);
    return LVD_EXIT_OK;
}
