/* fake_ctx_limit.c: the fake llama-bench's context limit: a test
 * whose context (n_prompt + n_gen + n_depth, what llama-bench sizes the KV
 * cache for) exceeds the scenario's ctx_limit fails to create its context as
 * llama.cpp b9749 does when the allocation fails: with -v the allocator's
 * lines, then "failed to create context", exit 1 (the capture
 * tests/fixtures/llama.cpp/ceiling-b9749/). Not for the other faults
 * (fake_common.c) nor the speeds. */
#include "fake_bench.h"

/* Bytes per 32 elements of a KV cache type (f16 64, q8_0 34, q4_0 18, ...). */
static double type_bytes32(const char *t)
{
    static const struct { const char *name; double bytes; } sizes[] = {
        {"f32", 128}, {"f16", 64}, {"bf16", 64}, {"q8_0", 34}, {"q5_1", 24}, {"q5_0", 22},
        {"q4_1", 20}, {"q4_0", 18}, {"iq4_nl", 18},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (streq(t, sizes[i].name))
            return sizes[i].bytes;
    return 64;
}

/* The largest context that loads on target T with these cache types:
 * TARGET.ctx_limit, else ctx_limit (at f16/f16; other types hold
 * proportionally more cells in the same memory); 0 = no limit. */
static long ctx_limit(const char *T, const char *ctk, const char *ctv)
{
    char *key = lvd_xasprintf("%s.ctx_limit", T);
    const lvd_kv *e = scn_find(key);
    free(key);
    if (!e)
        e = scn_find("ctx_limit");
    if (!e)
        return 0;
    double limit = ent_dbl(e);
    return (long)(limit * 128.0 / (type_bytes32(ctk) + type_bytes32(ctv)));
}

void ctx_limit_check(const char *T, const char *ctk, const char *ctv, long n_ctx, int verbose, const char *model)
{
    long limit = ctx_limit(T, ctk, ctv);
    if (limit <= 0 || n_ctx <= limit)
        return;
    if (verbose) {
        /* the capture's lines, its compute buffer (2049193984 bytes at 2000128
           cells) scaled to the cells asked, padded to 256 as llama.cpp pads n_ctx */
        long cells = (n_ctx + 255) / 256 * 256;
        long bytes = (long)(2049193984.0 * (double)cells / 2000128.0);
        double mib = (double)bytes / 1048576.0;
        fprintf(stderr,
                "ggml_aligned_malloc: insufficient memory (attempted to allocate %.2f MB)\n"
                "ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size %ld\n"
                "ggml_gallocr_reserve_n_impl: failed to allocate CPU buffer of size %ld\n"
                "graph_reserve: failed to allocate compute buffers\n"
                "llama_init_from_model: failed to initialize the context: failed to allocate compute pp buffers\n",
                mib, bytes, bytes);
    }
    fprintf(stderr, "llama_bench: error: failed to create context with model '%s'\n", model);
    flush_all();
    _exit(1);
}
