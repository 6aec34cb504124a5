/* kvpair.c: the KV cache type pairs and the flash-attention refusal of
 * kvpair.h. Pure. */
#include "bench/kvpair.h"

#include "placement/placement.h"

#include <stdlib.h>
#include <string.h>

static int seen(const char *const *v, size_t n, const char *t)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i], t))
            return 1;
    return 0;
}

size_t bench_kv_pairs(const char *const *ctk, size_t n_ctk, const char *const *ctv, size_t n_ctv,
                      int mixed, bench_kv_pair **out)
{
    *out = NULL;
    if (!n_ctk && !n_ctv)
        return 0;
    bench_kv_pair *p = lvd_xcalloc(n_ctk * (n_ctv ? n_ctv : 1) + n_ctk + n_ctv, sizeof *p);
    size_t n = 0;
    if (mixed) {
        for (size_t i = 0; i < (n_ctk ? n_ctk : 1); i++)
            for (size_t j = 0; j < (n_ctv ? n_ctv : 1); j++)
                p[n++] = (bench_kv_pair){n_ctk ? ctk[i] : NULL, n_ctv ? ctv[j] : NULL};
    } else {
        for (size_t i = 0; i < n_ctk + n_ctv; i++) {
            const char *t = i < n_ctk ? ctk[i] : ctv[i - n_ctk];
            int dup = i < n_ctk ? seen(ctk, i, t) : seen(ctk, n_ctk, t) || seen(ctv, i - n_ctk, t);
            if (!dup)
                p[n++] = (bench_kv_pair){t, t};
        }
    }
    *out = p;
    return n;
}

int bench_kv_quantized(const char *type)
{
    uint32_t elems, bytes;
    lvd_err ignored;
    if (!type || !*type || placement_cache_type_size(type, &elems, &bytes, &ignored) != 0)
        return 0;
    return elems > 1;
}

int bench_kv_check_fa(const char *v, int fa, lvd_err *err)
{
    if (fa == 0 && bench_kv_quantized(v))
        return lvd_errf(err, "-ctv %s with -fa off: llama.cpp needs flash attention for a quantized V cache"
                             " (use -fa on, or -ctv f16)", v);
    return 0;
}
