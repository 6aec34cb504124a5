/* fake_memory.c: what the fake llama-bench's load needs on its device, and
 * whether the device really has it (scenario key dev.NAME.real_mib: the memory
 * the device really has, below what its probe line claims; issue 14's "the
 * probe said 2048 MiB free, the load ran out"). The need is what llama.cpp
 * allocates: the weights on the device and their KV (exact, as the captures
 * in tests/fixtures/llama.cpp/alloc-b9749/ show; computed from the GGUF's
 * shape by placement_price with no headroom) plus a compute buffer of 1.97
 * MiB per 20 MB of model at ubatch 512 (the capture's). Not for printing the
 * allocation lines (fake_bench.c's print_alloc). */
#include "fake_bench.h"

#include "common/gguf.h"
#include "placement/placement.h"

/* The instance's device need in MiB; -1 when the model has no known shape. */
static double need_mib(const bench_opts *o, const binst *in, const char *model)
{
    gguf_shape s;
    lvd_err err = {{0}};
    if (gguf_read_shape(model, &s, &err) != 0 || !s.known)
        return -1;
    placement_place_in pin;
    placement_place_in_init(&pin);
    pin.shape = &s;
    pin.ctx = (uint32_t)((in->n_prompt + in->n_gen + 255) / 256 * 256);
    pin.reserve_mib = pin.compute_mib_at_ref = 0;
    pin.ubatch = atoi(o->dim[D_NUB].v[in->ix[D_NUB]]);
    const char *tk = o->dim[D_TK].v[in->ix[D_TK]], *tv = o->dim[D_TV].v[in->ix[D_TV]];
    pin.type_k = tk;
    pin.type_v = tv;
    int ngl = atoi(o->dim[D_NGL].v[in->ix[D_NGL]]), ncmoe = atoi(o->dim[D_NCMOE].v[in->ix[D_NCMOE]]);
    placement_result pl;
    if (placement_price(&pin, ngl < 0 ? -1 : ngl, ncmoe, &pl, &err) != 0)
        return -1;
    double ub = pin.ubatch > 0 ? pin.ubatch : 512;
    return (double)pl.bytes / 1048576.0 + 1.97 * (double)s.tensor_bytes / 20550656.0 * ub / 512.0;
}

/* 1 when target T (dev.NAME) has a real_mib below the instance's need. */
int fake_memory_short(const bench_opts *o, const binst *in, const char *T, const char *model)
{
    if (strncmp(T, "dev.", 4) != 0)
        return 0;
    char *k = lvd_xasprintf("%s.real_mib", T);
    double real = scn_dbl(k, -1);
    free(k);
    if (real < 0)
        return 0;
    double need = need_mib(o, in, model);
    return need >= 0 && need > real;
}
