/* fake_fit.c: llama.cpp's own fit, as the fake engine plays it:
 * the plan (fake_fit_plan: llama-bench -fitt and the llama-fit-params
 * persona share it) and the llama-fit-params persona, whose output has the
 * format of llama.cpp's tools/fit-params (fit-params.cpp's printf, its
 * README's log lines; no real build at hand ships it, so the format is
 * reproduced, not captured: tests/fixtures/llama.cpp/README.md). The plan,
 * like llama.cpp's: the whole model when it fits the device's memory less
 * the target; else, for a MoE model, every layer on the device and the
 * experts of the LAST blocks overflowing to the host, the fewest that fit;
 * else the most layers that fit (-ngl N: the output head and the last N - 1
 * blocks, as llama.cpp offloads them). Not for the memory a load needs
 * (fake_memory.c). */
#include "fake_bench.h"

#include "placement/placement.h"

#include <math.h>

int fake_has_fit(void)
{
    return scn_long("fit", 1) != 0;
}

double fake_device_mib(const char *name)
{
    const fake_dev *d = dev_by_name(name);
    char *k = lvd_xasprintf("dev.%s.real_mib", name);
    double real = scn_dbl(k, -1);
    free(k);
    return real >= 0 ? real : d ? (double)d->free_mib : 0;
}

int fake_fit_plan(const gguf_shape *s, double target_mib, fake_where *w)
{
    w->ngl = -1;
    w->host_experts = 0;
    w->overflow = 0;
    if (fake_need_mib(s, w) <= target_mib)
        return 0;
    for (uint32_t k = 1; s->n_expert && s->expert_bytes && k <= s->n_block; k++) {
        w->host_experts = (int)k; /* the experts are priced alike: the last k cost as the first k */
        w->overflow = 1;
        if (fake_need_mib(s, w) <= target_mib)
            return 0;
    }
    w->host_experts = 0;
    w->overflow = 0;
    for (int n = (int)s->n_block; n >= 0; n--) {
        w->ngl = n;
        if (fake_need_mib(s, w) <= target_mib || n == 0)
            return 0;
    }
    return 0;
}

/* The plan line, as llama-fit-params prints it. */
static void print_plan(const gguf_shape *s, const fake_where *w)
{
    int ngl = w->ngl < 0 ? (int)s->n_block + 1 : w->ngl;
    printf("-c %u -ngl %d", w->ctx, ngl);
    for (int k = 0; w->overflow && k < w->host_experts; k++)
        printf("%sblk\\.%d\\.ffn_(up|down|gate)_(ch|)exps=CPU", k ? "," : " -ot \"",
               (int)s->n_block - w->host_experts + k);
    printf("%s\n", w->overflow && w->host_experts ? "\"" : "");
}

/* --fit-print on: llama.cpp's common_fit_print, per device and the host,
 * "NAME model context compute" in MiB, floored. Its context is what the
 * load keeps (the scenario's fitprint_context_x multiplies it: an
 * architecture whose KV the shape misprices); its compute assumes a full
 * ubatch of outputs. */
static int print_memory(const gguf_shape *s, const char *dev, fake_where *w)
{
    w->ngl = dev ? w->ngl : 0;
    double need = fake_need_mib(s, w), host_compute = 0;
    if (need < 0)
        return 1;
    placement_place_in pin;
    placement_place_in_init(&pin);
    pin.shape = s;
    pin.ctx = w->ctx;
    pin.ubatch = w->ubatch;
    pin.type_k = w->type_k;
    pin.type_v = w->type_v;
    placement_result all;
    lvd_err err = {{0}};
    if (placement_price(&pin, -1, 0, &all, &err) != 0)
        return 1;
    double kv = (double)all.kv_bytes / 1048576.0 * scn_dbl("fitprint_context_x", 1);
    double weights = (double)all.weight_bytes / 1048576.0, embd = (double)s->embd_bytes / 1048576.0;
    double compute = fake_compute_mib(s, w, w->fa, dev != NULL, &host_compute);
    if (dev)
        printf("%s %.0f %.0f %.0f\n", dev, floor(weights), floor(kv), floor(compute));
    printf("Host %.0f %.0f %.0f\n", floor(dev ? embd : weights + embd), floor(dev ? 0 : kv),
           floor(dev ? host_compute : compute));
    return 0;
}

int fit_main(int argc, char **argv)
{
    const char *model = NULL, *dev = NULL, *tk = "f16", *tv = "f16", *fitp = NULL;
    long ctx = 0, target = 1024, ub = 512, ngl = -1, fa = 0;
    for (int i = 1; i < argc; i += 2) { /* every flag here takes a value */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long *num = !strcmp(a, "-c") || !strcmp(a, "--ctx-size")     ? &ctx
                    : !strcmp(a, "-fitt") || !strcmp(a, "--fit-target") ? &target
                    : !strcmp(a, "-ub") || !strcmp(a, "--ubatch-size")  ? &ub
                    : !strcmp(a, "-ngl") || !strcmp(a, "--n-gpu-layers") ? &ngl
                                                                        : NULL;
        if (!v) {
            fprintf(stderr, "error: unknown or incomplete argument: %s\n", a);
            return 1;
        }
        if (num)
            *num = atol(v);
        else if (!strcmp(a, "-m") || !strcmp(a, "--model"))
            model = v;
        else if (!strcmp(a, "-dev") || !strcmp(a, "--device"))
            dev = v;
        else if (!strcmp(a, "-ctk") || !strcmp(a, "--cache-type-k"))
            tk = v;
        else if (!strcmp(a, "-ctv") || !strcmp(a, "--cache-type-v"))
            tv = v;
        else if ((!strcmp(a, "--fit-print") || !strcmp(a, "-fitp")) && scn_long("fitprint", 1))
            fitp = v; /* fitprint = 0: a build before --fit-print */
        else if (!strcmp(a, "-fa") || !strcmp(a, "--flash-attn"))
            fa = !strcmp(v, "on") || !strcmp(v, "1");
        else if (strcmp(a, "-fitc") && strcmp(a, "--fit-ctx") && strcmp(a, "-t") && strcmp(a, "-b") &&
                 strcmp(a, "--batch-size")) {
            fprintf(stderr, "error: invalid argument: %s\n", a);
            return 1;
        }
    }
    gguf_shape s;
    lvd_err err = {{0}};
    if (!model || gguf_read_shape(model, &s, &err) != 0 || !s.known) {
        fprintf(stderr, "llama_model_load: error loading model: %s\n", model ? err.msg : "no -m");
        fprintf(stderr, "main: failed to fit CLI arguments to free memory, exiting...\n");
        return 1;
    }
    const char *name = dev ? dev : G.ndev ? G.dev[0].name : NULL;
    double free_mib = name ? fake_device_mib(name) : 0;
    fake_where w;
    memset(&w, 0, sizeof w);
    w.ctx = (uint32_t)(ctx > 0 ? ctx : (long)s.n_ctx_train);
    w.ubatch = (int)ub;
    w.type_k = tk;
    w.type_v = tv;
    w.ngl = -1;
    w.fa = (int)fa;
    if (fitp && !strcmp(fitp, "on")) /* every layer but with -ngl 0: the figures of the full offload */
        return print_memory(&s, name && ngl != 0 ? name : NULL, &w);
    double full = fake_need_mib(&s, &w);
    fake_fit_plan(&s, free_mib - (double)target, &w);
    fprintf(stderr, "llama_params_fit_impl: projected to use %.0f MiB of device memory vs. %.0f MiB of free "
                    "device memory\n", full, free_mib);
    if (full + (double)target > free_mib)
        fprintf(stderr, "llama_params_fit_impl: cannot fulfill margin of %ld MiB, need to reduce device memory "
                        "by %.0f MiB\n", target, full + (double)target - free_mib);
    double used = fake_need_mib(&s, &w);
    fprintf(stderr, "llama_params_fit_impl:   - %s: %u layers (%d overflowing), %6.0f MiB used, %6.0f MiB free\n",
            name ? name : "CPU", w.ngl < 0 ? s.n_block : (uint32_t)w.ngl, w.overflow ? w.host_experts : 0,
            used, free_mib - used);
    fprintf(stderr, "llama_params_fit: successfully fit params to free device memory\n");
    fprintf(stderr, "main: printing fitted CLI arguments to stdout...\n");
    fflush(stderr);
    print_plan(&s, &w);
    return 0;
}
