/* fake_memory.c: what the fake llama-bench's load puts on its device, whether
 * the device really has it, and what offloading costs in speed.
 *   - where: the instance's -ngl / -ncmoe, or, with -fitt, the plan
 *     llama.cpp's own fit chooses (fake_fit.c);
 *   - need: what llama.cpp allocates: the weights on the device and their KV
 *     (exact, as the captures in tests/fixtures/llama.cpp/alloc-b9749/ show;
 *     computed from the GGUF's shape by placement_price with no headroom)
 *     plus the compute buffer by the closed form of fake_compute.c (a shape
 *     without graph widths: 1.97 MiB per 20 MB of model at ubatch 512, the
 *     capture's);
 *   - dev.NAME.real_mib = N: the memory the device really has, below what its
 *     probe line claims; a load that needs more fails as `oom` does;
 *   - offload_tg / offload_pp = F: the speed of a run is divided by
 *     1 + F x (share of the model's bytes left on the host), so what a
 *     placement keeps on the device decides its speed (default 0: no effect).
 * Not for printing the allocation lines (fake_bench.c's print_alloc). */
#include "fake_bench.h"

#include "placement/placement.h"

double fake_need_mib(const gguf_shape *s, fake_where *w)
{
    placement_place_in pin;
    placement_place_in_init(&pin);
    pin.shape = s;
    pin.ctx = w->ctx;
    pin.reserve_mib = pin.compute_mib_at_ref = 0;
    pin.ubatch = w->ubatch;
    pin.type_k = w->type_k;
    pin.type_v = w->type_v;
    placement_result pl;
    lvd_err err = {{0}};
    if (placement_price(&pin, w->ngl, w->host_experts, &pl, &err) != 0)
        return -1;
    w->device_weights = (double)pl.weight_bytes;
    double host;
    if (s->graph)
        return (double)(pl.weight_bytes + pl.kv_bytes) / 1048576.0 + fake_compute_mib(s, w, w->fa, 1, &host);
    double ub = w->ubatch > 0 ? w->ubatch : 512;
    return (double)(pl.weight_bytes + pl.kv_bytes) / 1048576.0 +
           1.97 * (double)s->tensor_bytes / 20550656.0 * ub / 512.0;
}

void fake_load_where(const bench_opts *o, const binst *in, const gguf_shape *s, fake_where *w)
{
    memset(w, 0, sizeof *w);
    long ctx = in->n_prompt + in->n_gen + atol(o->dim[D_ND].v[in->ix[D_ND]]);
    w->ctx = (uint32_t)((ctx + 255) / 256 * 256);
    long ub = atol(o->dim[D_NUB].v[in->ix[D_NUB]]), nb = atol(o->dim[D_NB].v[in->ix[D_NB]]);
    ub = ub < nb ? ub : nb;
    w->ubatch = (int)(ub < ctx ? ub : ctx);
    w->type_k = o->dim[D_TK].v[in->ix[D_TK]];
    w->type_v = o->dim[D_TV].v[in->ix[D_TV]];
    int ngl = atoi(o->dim[D_NGL].v[in->ix[D_NGL]]);
    w->ngl = ngl < 0 || ngl > (int)s->n_block ? -1 : ngl;
    w->host_experts = atoi(o->dim[D_NCMOE].v[in->ix[D_NCMOE]]);
    w->fa = atoi(o->dim[D_FA].v[in->ix[D_FA]]) == 1;
}

/* The instance's placement into *w and the model's shape into *s; 0, or -1
 * when the model has no known shape (then nothing here applies). */
static int instance_where(const bench_opts *o, const binst *in, const char *T, const char *model,
                          gguf_shape *s, fake_where *w)
{
    lvd_err err = {{0}};
    if (strncmp(T, "dev.", 4) != 0 || gguf_read_shape(model, s, &err) != 0 || !s->known)
        return -1;
    fake_load_where(o, in, s, w);
    int fitt = atoi(o->dim[D_FITT].v[in->ix[D_FITT]]);
    if (fitt > 0)
        return fake_fit_plan(s, fake_device_mib(T + 4) - fitt, w);
    return 0;
}

int fake_memory_short(const bench_opts *o, const binst *in, const char *T, const char *model)
{
    gguf_shape s;
    fake_where w;
    if (instance_where(o, in, T, model, &s, &w) != 0)
        return 0;
    char *k = lvd_xasprintf("%s.real_mib", T);
    double real = scn_dbl(k, -1);
    free(k);
    double need = fake_need_mib(&s, &w);
    return real >= 0 && need >= 0 && need > real;
}

double fake_offload_mult(const bench_opts *o, const binst *in, const char *T, const char *model, const char *K)
{
    char *k = lvd_xasprintf("offload_%s", K);
    double f = scn_dbl(k, 0);
    free(k);
    gguf_shape s;
    fake_where w;
    if (f <= 0 || instance_where(o, in, T, model, &s, &w) != 0 || fake_need_mib(&s, &w) < 0 ||
        !s.tensor_bytes)
        return 1;
    double host = (double)s.tensor_bytes - w.device_weights;
    return 1 / (1 + f * (host > 0 ? host : 0) / (double)s.tensor_bytes);
}
