/* plan.c: arms from engines, probes and parameter lists (rules in plan.h).
 * The only I/O is asking whether DIR/llama-bench is executable. */
#include "bench/plan.h"

#include "benchio/arm.h"
#include "bench/kvpair.h"
#include "bench/plan_internal.h"
#include "engine/splitmodes.h"
#include "engine/visibility.h"
#include "placement/cbuf.h"
#include "placement/correction.h"
#include "placement/placement.h"
#include "stats/rank.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const int fa_default[] = {1, 0};
/* llama-bench's -b, which lvd bench never passes: a ubatch above it is cut to it. */
#define BENCH_N_BATCH 2048
static const int ngl_default[] = {BENCH_NGL_ALL};

static size_t count_or_one(size_t n)
{
    return n ? n : 1;
}

void bench_plan_add_skip(bench_plan *p, const lvd_engine *e, const char *binary, const char *device,
                         char *reason)
{
    p->skips = lvd_xrealloc(p->skips, (p->n_skips + 1) * sizeof *p->skips);
    bench_skip *s = &p->skips[p->n_skips++];
    memset(s, 0, sizeof *s);
    s->engine_id = e->id;
    s->engine = lvd_xstrdup(e->name ? e->name : "?");
    s->build = lvd_xstrdup(e->build ? e->build : "unknown");
    s->binary = lvd_xstrdup(binary);
    snprintf(s->device, sizeof s->device, "%s", device ? device : "");
    s->reason = reason;
}

char *bench_params_text(const lvd_params *p)
{
    lvd_sb sb = {0};
    if (*p->split_mode)
        lvd_sb_addf(&sb, " sm=%s", p->split_mode);
    if (*p->tensor_split)
        lvd_sb_addf(&sb, " ts=%s", p->tensor_split);
    if (p->ngl >= 0)
        lvd_sb_addf(&sb, " ngl=%d", p->ngl);
    if (p->fa >= 0)
        lvd_sb_addf(&sb, " fa=%s", p->fa ? "on" : "off");
    if (p->ubatch > 0)
        lvd_sb_addf(&sb, " ub=%d", p->ubatch);
    if (*p->type_k)
        lvd_sb_addf(&sb, " ctk=%s", p->type_k);
    if (*p->type_v)
        lvd_sb_addf(&sb, " ctv=%s", p->type_v);
    if (p->n_cpu_moe > 0)
        lvd_sb_addf(&sb, " ncmoe=%d", p->n_cpu_moe);
    if (p->threads > 0)
        lvd_sb_addf(&sb, " t=%d", p->threads);
    if (p->fused_moe >= 0)
        lvd_sb_addf(&sb, " fmoe=%d", p->fused_moe);
    if (p->repack >= 0)
        lvd_sb_addf(&sb, " rtr=%d", p->repack);
    if (p->fit_target > 0)
        lvd_sb_addf(&sb, " llama.cpp-fit=%d", p->fit_target);
    if (*p->env)
        lvd_sb_addf(&sb, " %s", p->env);
    char *s = lvd_xstrdup(sb.len ? sb.buf + 1 : "");
    lvd_sb_free(&sb);
    return s;
}

char *bench_arm_label(const char *engine, const char *device, const lvd_params *p)
{
    char *params = bench_params_text(p);
    char *label = lvd_xasprintf("%s %s%s%s", engine, device && *device ? device : "cpu",
                                *params ? " " : "", params);
    free(params);
    return label;
}

static void add_arm(bench_plan *p, const lvd_engine *e, const char *binary, const char *backend,
                    const lvd_device *dev, const lvd_params *params, const char *placement)
{
    p->arms = lvd_xrealloc(p->arms, (p->n_arms + 1) * sizeof *p->arms);
    bench_arm *a = &p->arms[p->n_arms++];
    memset(a, 0, sizeof *a);
    a->engine_id = e->id;
    a->engine = lvd_xstrdup(e->name ? e->name : "?");
    a->build = lvd_xstrdup(e->build ? e->build : "unknown");
    a->binary = lvd_xstrdup(binary);
    snprintf(a->backend, sizeof a->backend, "%s", backend);
    if (dev)
        snprintf(a->device_name, sizeof a->device_name, "%s", dev->name);
    a->gpu = dev != NULL;
    a->params = *params;
    benchio_arm_key(params, a->arm_key, sizeof a->arm_key);
    a->label = bench_arm_label(a->engine, dev ? dev->selector : NULL, params);
    a->placement = placement ? lvd_xstrdup(placement) : NULL;
    a->free_mib = dev ? dev->free_mib : -1;
}

/* The host's predicted compute buffer: beside a device, what placement
 * priced (pl); on the host alone (pl NULL), the CPU engine's whole buffer,
 * or the seed's constant where the shape predicts nothing. -1 when unknown. */
static int64_t host_compute(const placement_place_in *in, const placement_result *pl)
{
    if (pl)
        return pl->compute_predicted ? (int64_t)pl->host_compute_bytes : -1;
    placement_cbuf_in ci = {.shape = in->shape, .ctx = in->ctx, .ubatch = (uint32_t)in->ubatch,
                            .flash_attn = in->flash_attn > 0, .type_k = in->type_k,
                            .type_v = in->type_v, .n_gpu_layers = 0};
    placement_cbuf c;
    placement_cbuf_predict(&ci, &c);
    if (c.predicted)
        return (int64_t)c.host_bytes;
    return (int64_t)(in->compute_mib_at_ref * 1048576 * in->ubatch / PLACEMENT_COMPUTE_REF_UBATCH);
}

/* What placement predicts for the arm just added (placement_price at the
 * plan's ctx and the arm's ngl, n_cpu_moe, ubatch, flash attention, cache
 * types): device weights, KV and compute buffer on the device; the rest of
 * the weights and KV, and the host's compute buffer, on the host. The ubatch
 * is the one llama-bench's largest context gets: its n_ubatch clamped to
 * n_batch (2048) and to the context (llama_context: n_batch = min(n_ctx,
 * n_batch)). Nothing when the shape is unknown. */
static void predict(bench_plan *p, const bench_plan_opts *o, const lvd_device *dev,
                    const bench_split *split)
{
    bench_arm *a = &p->arms[p->n_arms - 1];
    if (!o->shape || !o->shape->known)
        return;
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = o->shape;
    /* the context as llama-bench asks for it: placement pads the cache to
     * 256 cells (alloc-b9749/vk-bench-v: pp16 + tg4 -> 256) and cuts the
     * ubatch to it */
    in.ctx = o->ctx;
    int ub = a->params.ubatch > 0 ? a->params.ubatch : PLACEMENT_UBATCH_DEFAULT;
    in.ubatch = ub > BENCH_N_BATCH ? BENCH_N_BATCH : ub;
    in.flash_attn = a->params.fa;
    in.type_k = a->params.type_k;
    in.type_v = a->params.type_v;
    if (dev)
        in.dev = placement_cbuf_dev_of(dev->backend, dev->name);
    placement_result all, pl;
    lvd_err ignored = {{0}};
    if (placement_price(&in, -1, 0, &all, &ignored))
        return;
    int ngl = !dev ? 0 : a->params.ngl < 0 ? -1 : a->params.ngl; /* llama-bench's default: 99 */
    if (placement_price(&in, ngl, a->params.n_cpu_moe, &pl, &ignored))
        return;
    placement_spread_result sp;
    if (split && placement_spread(&in, split->free_mib, split->n, &sp, &ignored))
        return;
    for (size_t i = 0; i < LVD_ARRAY_LEN(a->pred); i++) {
        lvd_alloc *x = &a->pred[i];
        x->model = x->kv = x->compute = -1;
        x->pred_model = x->pred_kv = x->pred_compute = -1;
    }
    size_t n = 0;
    uint64_t on_devices = 0;
    for (size_t i = 0; split && i < split->n; i++) {
        lvd_alloc *d = &a->pred[n++];
        snprintf(d->device, sizeof d->device, "%s", split->selector[i]);
        d->pred_model = (int64_t)sp.weight_bytes[i];
        d->pred_kv = (int64_t)sp.kv_bytes[i];
        d->pred_compute = (int64_t)sp.headroom_bytes[i];
        on_devices += sp.weight_bytes[i];
    }
    if (split) {
        pl.weight_bytes = on_devices;
        pl.kv_bytes = all.kv_bytes;
    } else if (dev) {
        lvd_alloc *d = &a->pred[n++];
        snprintf(d->device, sizeof d->device, "%s", dev->selector);
        d->pred_model = (int64_t)pl.weight_bytes;
        d->pred_kv = (int64_t)pl.kv_bytes;
        d->pred_compute = (int64_t)pl.compute_bytes;
    }
    lvd_alloc *h = &a->pred[n++];
    snprintf(h->device, sizeof h->device, "CPU");
    h->pred_model = (int64_t)(o->shape->tensor_bytes - (dev ? pl.weight_bytes : 0));
    h->pred_kv = (int64_t)(all.kv_bytes - (dev ? pl.kv_bytes : 0));
    h->pred_compute = host_compute(&in, dev && !split ? &pl : NULL);
    a->n_pred = n;
}

/* 1 when env variant v applies to a device of backend (see plan.h). */
static int env_applies(const char *v, const char *backend)
{
    static const struct {
        const char *prefix, *backend;
    } scoped[] = {{"GGML_VK_", "vulkan"}, {"GGML_CUDA_", "cuda"}, {"GGML_SYCL_", "sycl"}};
    size_t n;
    char **words = lvd_split(v, ' ', &n);
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++)
        for (size_t k = 0; k < LVD_ARRAY_LEN(scoped); k++)
            if (lvd_starts_with(words[i], scoped[k].prefix) && strcmp(backend, scoped[k].backend))
                ok = 0;
    lvd_strv_free(words);
    return ok;
}

/* An explicit -fa list with off refuses every pair with a quantized V
 * (bench/kvpair.h); the default fa on,off leaves those arms out instead. */
static int check_kv_fa(const bench_plan_opts *o, lvd_err *err)
{
    bench_kv_pair *kv;
    size_t nkv = bench_kv_pairs(o->ctk, o->n_ctk, o->ctv, o->n_ctv, o->kv_mixed, &kv);
    int rc = 0;
    lvd_err why;
    for (size_t i = 0; i < nkv && rc == 0; i++)
        for (size_t k = 0; k < o->n_fa && rc == 0; k++)
            if (bench_kv_check_fa(kv[i].v, o->fa[k], &why))
                rc = lvd_errf(err, "plan: %s", why.msg);
    free(kv);
    return rc;
}

static int validate_opts(const bench_plan_opts *o, lvd_err *err)
{
    if (bench_split_opts_check(o, err))
        return -1;
    for (size_t i = 0; i < o->n_ngl; i++)
        if (o->ngl[i] < 0)
            return lvd_errf(err, "plan: -ngl %d is negative", o->ngl[i]);
    for (size_t i = 0; i < o->n_fa; i++)
        if (o->fa[i] != 0 && o->fa[i] != 1)
            return lvd_errf(err, "plan: -fa %d is not on (1) or off (0)", o->fa[i]);
    for (size_t i = 0; i < o->n_ub; i++)
        if (o->ub[i] <= 0)
            return lvd_errf(err, "plan: -ub %d is not positive", o->ub[i]);
    for (size_t i = 0; i < o->n_ncmoe; i++)
        if (o->ncmoe[i] < 0)
            return lvd_errf(err, "plan: -ncmoe %d is negative", o->ncmoe[i]);
    for (size_t i = 0; i < o->n_fmoe + o->n_rtr; i++)
        if ((i < o->n_fmoe ? o->fmoe[i] : o->rtr[i - o->n_fmoe]) != 0 &&
            (i < o->n_fmoe ? o->fmoe[i] : o->rtr[i - o->n_fmoe]) != 1)
            return lvd_errf(err, "plan: %s takes 0 or 1", i < o->n_fmoe ? "-fmoe" : "-rtr");
    for (size_t i = 0; i < o->n_ctk + o->n_ctv; i++) {
        const char *t = i < o->n_ctk ? o->ctk[i] : o->ctv[i - o->n_ctk];
        if (!*t || strlen(t) >= sizeof(((lvd_params *)0)->type_k))
            return lvd_errf(err, "plan: cache type '%s' is empty or too long", t);
    }
    if (check_kv_fa(o, err))
        return -1;
    for (size_t i = 0; i < o->n_env; i++) {
        if (strlen(o->env[i]) >= sizeof(((lvd_params *)0)->env))
            return lvd_errf(err, "plan: environment variant '%s' is too long", o->env[i]);
        size_t n;
        char **words = lvd_split(o->env[i], ' ', &n);
        int bad = n == 0;
        for (size_t k = 0; k < n && !bad; k++) {
            const char *eq = strchr(words[k], '=');
            bad = !eq || eq == words[k];
        }
        lvd_strv_free(words);
        if (bad)
            return lvd_errf(err, "plan: environment variant '%s' is not NAME=VALUE[ NAME=VALUE...]",
                            o->env[i]);
    }
    return 0;
}

void bench_plan_place_in(const bench_plan_opts *o, placement_place_in *in)
{
    placement_place_in_init(in);
    in->shape = o->shape;
    in->ctx = o->place_ctx ? o->place_ctx : o->ctx;
    in->ubatch = o->n_ub ? o->ub[0] : 0;
    /* flash attention on only when every arm has it: an arm without it
     * needs the larger buffer (kq of n_ctx x ubatch x heads) */
    const int *fa = o->n_fa ? o->fa : fa_default;
    size_t n_fa = o->n_fa ? o->n_fa : LVD_ARRAY_LEN(fa_default);
    in->flash_attn = 1;
    for (size_t i = 0; i < n_fa; i++)
        in->flash_attn = in->flash_attn && fa[i] == 1;
    bench_kv_pair *kv;
    size_t nkv = bench_kv_pairs(o->ctk, o->n_ctk, o->ctv, o->n_ctv, o->kv_mixed, &kv);
    in->type_k = nkv ? kv[0].k : NULL; /* o's strings: kv holds pointers to them */
    in->type_v = nkv ? kv[0].v : NULL;
    free(kv);
}

/* The placement rung for dev, or -1 when placement does not apply; the
 * margin correction it kept is noted in p. */
static int place(bench_plan *p, const bench_plan_opts *o, const lvd_engine *e, const lvd_device *dev,
                 placement_result *pl)
{
    if (o->n_ngl || !o->shape || !o->shape->known || dev->free_mib < 0)
        return -1;
    placement_correction corr;
    double factor = placement_correction_compute(o->alloc_rows, o->n_alloc_rows, dev->backend,
                                                 e->build, &corr);
    bench_plan_note(p, "margin correction for %s: %s", dev->selector, corr.why);
    placement_place_in in;
    bench_plan_place_in(o, &in);
    in.free_mib = dev->free_mib;
    in.dev = placement_cbuf_dev_of(dev->backend, dev->name);
    in.margin_factor = factor;
    lvd_err ignored;
    return placement_compute(&in, pl, &ignored) ? -1 : 0;
}

/* Every combination of the lists for one device (plan_internal.h); vis: the
 * visibility variables the device needs (engine_visibility_for_device), in
 * every arm. */
void bench_plan_device_arms(bench_plan *p, const lvd_engine *e, const char *binary,
                            const lvd_device *dev, const char *vis, const bench_plan_opts *o,
                            const bench_split *split, const char *cover)
{
    placement_result pl;
    int placed = !split && place(p, o, e, dev, &pl) == 0 && pl.rung != PLACEMENT_RUNG_FULL;
    if (placed && cover && *cover && pl.rung != PLACEMENT_RUNG_REDUCED_UBATCH) {
        bench_plan_add_skip(p, e, binary, dev->selector,
                            lvd_xasprintf("placement: %s here, fully resident split across %s",
                                          placement_rung_name(pl.rung), cover));
        return;
    }
    if (placed && (pl.rung == PLACEMENT_RUNG_CPU_ONLY || pl.rung == PLACEMENT_RUNG_NOTHING_FITS)) {
        bench_plan_add_skip(p, e, binary, dev->selector,
                 lvd_xasprintf("placement: %s (%s)", placement_rung_name(pl.rung), pl.reason));
        return;
    }
    lvd_params placed_params;
    lvd_params_init(&placed_params);
    if (placed)
        placement_placement_apply(&pl, o->shape, &placed_params);
    if (split)
        placed_params.ubatch = split->ubatch;

    const int *ngl = o->n_ngl ? o->ngl : ngl_default;
    const int *fa = o->n_fa ? o->fa : fa_default;
    bench_kv_pair *kv;
    size_t nkv = bench_kv_pairs(o->ctk, o->n_ctk, o->ctv, o->n_ctv, o->kv_mixed, &kv);
    /* an odometer over the lists: ngl, fa, ub, KV pair, ncmoe, env (last fastest) */
    enum { D_NGL, D_FA, D_UB, D_KV, D_NCMOE, D_ENV, N_DIMS };
    size_t size[N_DIMS] = {
        [D_NGL] = count_or_one(o->n_ngl), [D_FA] = o->n_fa ? o->n_fa : LVD_ARRAY_LEN(fa_default),
        [D_UB] = count_or_one(o->n_ub),   [D_KV] = count_or_one(nkv),
        [D_NCMOE] = count_or_one(o->n_ncmoe), [D_ENV] = o->n_env + 1,
    };
    size_t at[N_DIMS] = {0};
    for (;;) {
        const bench_kv_pair *pair = nkv ? &kv[at[D_KV]] : NULL;
        lvd_err refused;
        int fa_ok = !pair || bench_kv_check_fa(pair->v, fa[at[D_FA]], &refused) == 0;
        if (fa_ok && (at[D_ENV] == 0 || env_applies(o->env[at[D_ENV] - 1], dev->backend))) {
            lvd_params q;
            lvd_params_init(&q);
            snprintf(q.device, sizeof q.device, "%s", dev->selector);
            if (split) {
                snprintf(q.split_mode, sizeof q.split_mode, "%s", split->split_mode);
                snprintf(q.tensor_split, sizeof q.tensor_split, "%s", split->tensor_split);
            }
            q.ngl = placed ? placed_params.ngl : ngl[at[D_NGL]];
            q.fa = fa[at[D_FA]];
            q.ubatch = o->n_ub ? o->ub[at[D_UB]] : placed_params.ubatch;
            if (pair && pair->k)
                snprintf(q.type_k, sizeof q.type_k, "%s", pair->k);
            if (pair && pair->v)
                snprintf(q.type_v, sizeof q.type_v, "%s", pair->v);
            q.n_cpu_moe = o->n_ncmoe ? o->ncmoe[at[D_NCMOE]] : placed_params.n_cpu_moe;
            q.threads = o->threads;
            const char *variant = at[D_ENV] ? o->env[at[D_ENV] - 1] : "";
            if (engine_env_merge(vis, variant, q.env, sizeof q.env))
                bench_plan_add_skip(p, e, binary, dev->selector,
                         lvd_xasprintf("environment too long: %s %s", vis, variant));
            else
            {
                add_arm(p, e, binary, dev->backend, dev, &q, placed ? pl.reason : NULL);
                predict(p, o, dev, split);
            }
        }
        int d = N_DIMS - 1;
        while (d >= 0 && ++at[d] == size[d])
            at[d--] = 0;
        if (d < 0)
            break;
    }
    free(kv);
}

int bench_plan_build(const lvd_engine *engines, const lvd_probe *probes, size_t n,
                     const bench_plan_opts *o, bench_plan *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    if (validate_opts(o, err))
        return -1;
    for (size_t i = 0; i < n; i++) {
        const lvd_engine *e = &engines[i];
        const lvd_probe *pr = &probes[i];
        size_t first = out->n_arms;
        char *binary = lvd_xasprintf("%s/llama-bench", e->dir ? e->dir : ".");
        if (access(binary, X_OK) != 0) {
            bench_plan_add_skip(out, e, binary, NULL, lvd_xasprintf("no executable llama-bench in %s", e->dir));
        } else if (!strcmp(pr->backend, LVD_BACKEND_UNKNOWN) || !*pr->backend) {
            bench_plan_add_skip(out, e, binary, NULL,
                     lvd_xasprintf("probe unknown: %s", pr->reason ? pr->reason : "never probed"));
        } else if (pr->n_devices == 0) {
            lvd_params q;
            lvd_params_init(&q);
            q.threads = o->threads;
            add_arm(out, e, binary, LVD_BACKEND_CPU, NULL, &q, NULL);
            predict(out, o, NULL, NULL);
        } else {
            bench_split_set sets[BENCH_SPLIT_SETS_MAX];
            size_t n_sets = bench_split_sets(pr, o, sets);
            for (size_t d = 0; d < pr->n_devices; d++) {
                char *vis = engine_visibility_for_device(pr->env, pr->devices[d].backend);
                bench_plan_device_arms(out, e, binary, &pr->devices[d], vis, o, NULL,
                                       bench_split_cover(sets, n_sets, d));
                free(vis);
            }
            bench_plan_split_arms(out, e, binary, pr, sets, n_sets,
                                  o->split_modes ? o->split_modes[i] : ENGINE_SM_ASSUMED, o);
        }
        for (size_t k = first; k < out->n_arms; k++) /* what the invocations may pass */
            out->arms[k].flags = pr->flags ? lvd_xstrdup(pr->flags) : NULL;
        bench_plan_knob_arms(out, first, o);
        free(binary);
    }
    return 0;
}

void bench_arm_free(bench_arm *a)
{
    free(a->engine);
    free(a->build);
    free(a->binary);
    free(a->flags);
    free(a->label);
    free(a->placement);
}

void bench_plan_free(bench_plan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_arms; i++)
        bench_arm_free(&p->arms[i]);
    for (size_t i = 0; i < p->n_skips; i++) {
        free(p->skips[i].engine);
        free(p->skips[i].build);
        free(p->skips[i].binary);
        free(p->skips[i].reason);
    }
    for (size_t i = 0; i < p->n_notes; i++)
        free(p->notes[i]);
    free(p->notes);
    for (size_t i = 0; i < p->n_remarks; i++)
        free(p->remarks[i]);
    free(p->remarks);
    free(p->arms);
    free(p->skips);
    memset(p, 0, sizeof *p);
}

size_t bench_plan_cpu_arm(const bench_plan *p)
{
    const char **backend = lvd_xcalloc(p->n_arms ? p->n_arms : 1, sizeof *backend);
    for (size_t i = 0; i < p->n_arms; i++)
        backend[i] = p->arms[i].gpu ? "" : p->arms[i].backend;
    size_t ref = stats_cpu_reference(backend, NULL, p->n_arms);
    free(backend);
    return ref;
}

size_t bench_plan_add_variant(bench_plan *p, size_t base, const lvd_params *params,
                              const char *placement, const bench_plan_opts *o)
{
    const bench_arm *b = &p->arms[base];
    lvd_engine e = {.id = b->engine_id, .name = lvd_xstrdup(b->engine), .build = lvd_xstrdup(b->build)};
    lvd_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.selector, sizeof d.selector, "%s", b->params.device);
    snprintf(d.name, sizeof d.name, "%s", b->device_name);
    d.free_mib = b->free_mib;
    char *binary = lvd_xstrdup(b->binary), backend[16];
    snprintf(backend, sizeof backend, "%s", b->backend);
    int gpu = b->gpu; /* b dies with the realloc below */
    char *flags = b->flags ? lvd_xstrdup(b->flags) : NULL;
    add_arm(p, &e, binary, backend, gpu ? &d : NULL, params, placement);
    p->arms[p->n_arms - 1].flags = flags;
    predict(p, o, gpu ? &d : NULL, NULL); /* a variant of one device (a rung, a fit arm), never a split */
    free(e.name);
    free(e.build);
    free(binary);
    return p->n_arms - 1;
}

/* Appends the line fmt, ap makes to lines[0..*n). */
static void push_line(char ***lines, size_t *n, const char *fmt, va_list ap)
{
    lvd_sb sb = {0};
    lvd_sb_vaddf(&sb, fmt, ap);
    *lines = lvd_xrealloc(*lines, (*n + 1) * sizeof **lines);
    (*lines)[(*n)++] = lvd_xstrdup(sb.len ? sb.buf : "");
    lvd_sb_free(&sb);
}

void bench_plan_note(bench_plan *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    push_line(&p->notes, &p->n_notes, fmt, ap);
    va_end(ap);
}

void bench_plan_remark(bench_plan *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    push_line(&p->remarks, &p->n_remarks, fmt, ap);
    va_end(ap);
}

char *bench_arm_dir(const bench_arm *a)
{
    char *dir = lvd_xstrdup(a->binary), *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    return dir;
}
