/* servermem.c: see servermem.h. */
#include "bench/servermem.h"

#include <stdio.h>
#include <string.h>

#define MIB 1048576.0

const bench_cbuf_case *bench_server_fitprint_of(const bench_cbuf_case *cases, size_t n, const bench_cbuf_case *c)
{
    for (size_t i = 0; i < n; i++) {
        const bench_cbuf_case *f = &cases[i];
        if (f->has_fitprint && !strcmp(f->model, c->model) && f->ctx == c->ctx && f->ubatch == c->ubatch &&
            f->fa == c->fa)
            return f;
    }
    return NULL;
}

/* The figures of fit's rows: the first device row beside the host's. */
static void engine_mem_of(const bench_cbuf_case *fit, placement_engine_mem *m)
{
    memset(m, 0, sizeof *m);
    const engine_fitprint *fp = &fit->fitprint;
    const engine_fitprint_row *host = &fp->rows[fp->n - 1];
    m->known = 1;
    m->has_device = fp->n > 1;
    if (m->has_device) {
        m->dev_model_mib = fp->rows[0].model_mib;
        m->dev_context_mib = fp->rows[0].context_mib;
        m->dev_compute_mib = fp->rows[0].compute_mib;
    }
    m->host_model_mib = host->model_mib;
    m->host_context_mib = host->context_mib;
    m->host_compute_mib = host->compute_mib;
    m->ubatch = (int)fit->ubatch;
    snprintf(m->from, sizeof m->from, "llama-fit-params");
}

/* A device's case: its model buffer, and the host's compute buffer beside it. */
static void judge_device(const bench_cbuf_case *c, const lvd_alloc *dev, const placement_result *pl,
                         bench_server_verdict *out)
{
    const lvd_alloc *host = bench_cbuf_case_row(c, 1);
    out->device = 1;
    out->pred_model = (double)pl->weight_bytes / MIB;
    out->act_model = dev->model < 0 ? -1 : (double)dev->model / MIB;
    /* the seed's constant and the bound price the device's buffer alone */
    int host_known = pl->compute_from == PLACEMENT_FROM_GRAPH || pl->compute_from == PLACEMENT_FROM_ENGINE;
    out->pred_host = host_known ? (double)pl->host_compute_bytes / MIB : -1;
    out->act_host = host && host->compute >= 0 ? (double)host->compute / MIB : -1;
    out->ratio_model = bench_cbuf_ratio(out->pred_model, out->act_model);
    out->ratio_host = bench_cbuf_ratio(out->pred_host, out->act_host);
}

void bench_server_judge(const bench_cbuf_case *c, const bench_cbuf_case *fit, const gguf_shape *s,
                        bench_server_verdict *out)
{
    memset(out, 0, sizeof *out);
    out->ratio_kv = out->ratio_compute = out->ratio_model = out->ratio_host = -1;
    out->pred_model = out->act_model = out->pred_host = out->act_host = -1;
    placement_engine_mem m;
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = s;
    in.ctx = c->ctx;
    in.ubatch = (int)(c->ubatch < c->ctx ? c->ubatch : c->ctx);
    in.flash_attn = c->fa;
    in.reserve_mib = 0;
    in.dev = c->dev;
    in.host_only = !c->gpu;
    in.n_outputs = in.n_seq = c->np > 0 ? c->np : PLACEMENT_SERVER_SLOTS_DEFAULT;
    in.kv_unified = c->kvu || c->np <= 0;
    if (fit) {
        engine_mem_of(fit, &m);
        in.engine_mem = &m;
    }
    const lvd_alloc *act = bench_cbuf_case_row(c, !c->gpu);
    int ngl = !c->gpu || c->ngl < 0 || (uint32_t)c->ngl > s->n_block ? -1 : c->ngl;
    placement_result pl;
    lvd_err ignored = {{0}};
    if (!act || placement_price(&in, ngl, c->gpu ? c->n_cpu_moe : 0, &pl, &ignored) != 0) {
        snprintf(out->why, sizeof out->why, "%.150s", act ? ignored.msg : "no buffer lines");
        return;
    }
    out->priced = 1;
    out->pred_kv = (double)pl.kv_bytes / MIB;
    out->pred_compute = (double)pl.compute_bytes / MIB;
    out->act_kv = act->kv < 0 ? 0 : (double)act->kv / MIB;
    out->act_compute = act->compute < 0 ? -1 : (double)act->compute / MIB;
    out->ratio_kv = out->act_kv > 0 ? bench_cbuf_ratio(out->pred_kv, out->act_kv) : out->pred_kv == 0 ? 1 : -1;
    out->ratio_compute = bench_cbuf_ratio(out->pred_compute, out->act_compute);
    out->kv_from = pl.kv_from;
    out->compute_from = pl.compute_from;
    if (c->gpu)
        judge_device(c, act, &pl, out);
}
