/* fake_bench_alloc.c: the fake llama-bench's allocation lines (-v): the
 * model, KV and compute buffers per device in llama.cpp's format, split
 * over the devices of a -dev A/B run. Not for the run itself (fake_bench.c). */
#include "fake_bench.h"

#include "placement/placement.h"

/* The devices a run loads onto and each one's share: the -dev list when it
 * names several (all but the first at -sm none), split by -ts (normalised;
 * all zero: by each device's free memory, as llama.cpp splits by default);
 * else the target alone. Returns how many (<= 16). */
static size_t alloc_devices(const char *target, const bench_opts *o, const binst *in,
                            const fake_dev *devs[16], double share[16])
{
    const char *list = o->dim[D_DEV].v[in->ix[D_DEV]];
    size_t n = 0;
    if (strncmp(target, "dev.", 4) || !strchr(list, '/') || streq(o->dim[D_SM].v[in->ix[D_SM]], "none")) {
        devs[0] = strncmp(target, "dev.", 4) ? NULL : dev_by_name(target + 4);
        share[0] = 1;
        return 1;
    }
    char **names = lvd_split(list, '/', NULL);
    char **ts = lvd_split(o->dim[D_TS].v[in->ix[D_TS]], '/', NULL);
    double sum = 0;
    size_t nts = 0;
    while (ts[nts])
        nts++;
    for (size_t i = 0; names[i] && n < 16; i++) {
        devs[n] = dev_by_name(names[i]);
        share[n] = i < nts ? atof(ts[i]) : 0;
        sum += share[n++];
    }
    for (size_t i = 0; i < n; i++)
        share[i] = sum > 0 ? share[i] / sum : 0;
    if (sum <= 0) { /* no -ts: by free memory */
        for (size_t i = 0; i < n; i++)
            sum += (double)devs[i]->free_mib;
        for (size_t i = 0; i < n; i++)
            share[i] = (double)devs[i]->free_mib / sum;
    }
    lvd_strv_free(names);
    lvd_strv_free(ts);
    return n;
}

/* "Vulkan0" -> "Vulkan_Host": the host buffer type beside a device. */
static void host_name(const char *dev, char out[32])
{
    size_t n = 0;
    while (dev[n] && (dev[n] < '0' || dev[n] > '9') && n < 20)
        n++;
    snprintf(out, 32, "%.*s_Host", (int)n, dev);
}

/* The lines of a model whose GGUF shape is known: its weights and KV as
 * llama.cpp places them (the output head and the last -ngl - 1 blocks on
 * the device; token embeddings and the rest on the host), the compute buffers by the closed
 * form (fake_compute.c); each device its share of a split. */
static void print_shaped(const fake_dev *const devs[16], const double share[16], size_t n,
                         const bench_opts *o, const binst *in, const gguf_shape *s, int load)
{
    fake_where w;
    fake_load_where(o, in, s, &w);
    int dev = devs[0] != NULL;
    int fitt = atoi(o->dim[D_FITT].v[in->ix[D_FITT]]);
    if (fitt > 0 && dev) /* the plan llama.cpp's own fit chose */
        fake_fit_plan(s, fake_device_mib(devs[0]->name) - fitt, &w);
    fake_need_mib(s, &w); /* sets w.device_weights */
    placement_place_in pin;
    placement_place_in_init(&pin);
    pin.shape = s;
    pin.ctx = w.ctx;
    pin.ubatch = w.ubatch;
    pin.type_k = w.type_k;
    pin.type_v = w.type_v;
    placement_result all, on;
    if (placement_price(&pin, -1, 0, &all, NULL) != 0 ||
        placement_price(&pin, dev ? w.ngl : 0, dev ? w.host_experts : 0, &on, NULL) != 0)
        return;
    double weights = dev ? w.device_weights : 0, host_mib;
    double compute = fake_compute_mib(s, &w, w.fa, dev, &host_mib);
    double kv_dev = dev ? (double)on.kv_bytes : 0;
    if (load) {
        fprintf(stderr, "load_tensors:   CPU_Mapped model buffer size = %8.2f MiB\n",
                ((double)s->tensor_bytes - weights) / 1048576.0);
        for (size_t i = 0; dev && i < n; i++)
            fprintf(stderr, "load_tensors: %12s model buffer size = %8.2f MiB\n", devs[i]->name,
                    weights * share[i] / 1048576.0);
    }
    if ((double)all.kv_bytes > kv_dev)
        fprintf(stderr, "llama_kv_cache: %10s KV buffer size = %8.2f MiB\n", "CPU",
                ((double)all.kv_bytes - kv_dev) / 1048576.0);
    for (size_t i = 0; dev && i < n; i++)
        fprintf(stderr, "llama_kv_cache: %10s KV buffer size = %8.2f MiB\n", devs[i]->name,
                kv_dev * share[i] / 1048576.0);
    for (size_t i = 0; dev && i < n; i++)
        fprintf(stderr, "sched_reserve: %10s compute buffer size = %8.2f MiB\n", devs[i]->name,
                compute * share[i]);
    char host[32];
    host_name(dev ? devs[0]->name : "CPU", host);
    fprintf(stderr, "sched_reserve: %10s compute buffer size = %8.2f MiB\n", dev ? host : "CPU",
            host_mib);
}

/* llama-bench -v's allocation lines, in the format of
 * tests/fixtures/llama.cpp/alloc-b9749/vk-bench-v.stderr: from the model's
 * GGUF shape where it has one (print_shaped); else scaled from the
 * capture's small-llama (20550656 bytes, 8.30 MiB of it token embeddings on
 * the host; 0.50 MiB of KV and 1.97 MiB of compute per 256 cells); over
 * several devices one model, KV and compute buffer line per device, each its
 * share of the split. */
void print_alloc(const char *target, const bench_opts *o, const binst *in, const model_meta *m,
                        int load)
{
    const fake_dev *devs[16];
    double share[16];
    size_t n = alloc_devices(target, o, in, devs, share);
    gguf_shape s;
    lvd_err err = {{0}};
    if (gguf_read_shape(o->dim[D_MODEL].v[in->ix[D_MODEL]], &s, &err) == 0 && s.known && s.graph) {
        print_shaped(devs, share, n, o, in, &s, load);
        return;
    }
    int dev = devs[0] != NULL;
    double size = (double)m->size / 1048576.0, scale = (double)m->size / 20550656.0;
    double host = dev ? size * 8.30 / 19.60 : size;
    int cells = (in->n_prompt + in->n_gen + 255) / 256 * 256;
    if (load) {
        fprintf(stderr, "load_tensors:   CPU_Mapped model buffer size = %8.2f MiB\n", host);
        for (size_t i = 0; dev && i < n; i++)
            fprintf(stderr, "load_tensors: %12s model buffer size = %8.2f MiB\n", devs[i]->name,
                    (size - host) * share[i]);
    }
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "llama_kv_cache: %10s KV buffer size = %8.2f MiB\n", dev ? devs[i]->name : "CPU",
                0.50 * scale * cells / 256.0 * share[i]);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "sched_reserve: %10s compute buffer size = %8.2f MiB\n", dev ? devs[i]->name : "CPU",
                1.97 * scale * share[i]);
}
