/* kvpair.h: which KV cache types an arm may ask for, each rule in one
 * function: the (-ctk, -ctv) pairs a plan measures and the pairing llama.cpp
 * refuses. Shared by bench planning (bench/plan.c) and the launch line
 * (select/launch.c). Not for the cache's size (placement/placement.h).
 *
 * Rules:
 *   - matched pairs by default: every type named in -ctk or -ctv (first seen
 *     first) becomes one pair with K and V of that type (-ctk f16,q8_0 gives
 *     f16/f16 and q8_0/q8_0; -ctk q8_0 alone gives q8_0/q8_0). Mixed K/V types
 *     are a known slow path in llama.cpp (the flash-attention kernels are
 *     built for matching K and V types; a mixed pair falls back to a generic
 *     kernel or to dequantizing), so they are measured only when asked
 *     (--kv-mixed: the cross product -ctk x -ctv, as llama-bench itself does);
 *   - a quantized V cache (any type but f32, f16, bf16) needs flash attention
 *     on: llama.cpp refuses -ctv q8_0 with -fa off ("V cache quantization
 *     requires flash_attn"), so that pairing is refused with one line. */
#ifndef LVD_BENCH_KVPAIR_H
#define LVD_BENCH_KVPAIR_H

#include "common/util.h"

#include <stddef.h>

typedef struct bench_kv_pair {
    const char *k, *v;     /* borrowed from the lists; NULL: not passed */
} bench_kv_pair;

/* The pairs of the lists (rules above) into *out (malloc'd; free it), their
 * count returned; 0 when neither list is given (nothing passed). */
size_t bench_kv_pairs(const char *const *ctk, size_t n_ctk, const char *const *ctv, size_t n_ctv,
                      int mixed, bench_kv_pair **out);

/* 1 when type (a -ctk/-ctv value) is quantized: a known type that is not
 * f32, f16 or bf16 (NULL or "" is f16). */
int bench_kv_quantized(const char *type);

/* 0 when cache type v may run with flash attention fa (1 on, 0 off, -1 not
 * passed: llama.cpp's auto); -1 with err ("-ctv q8_0 with -fa off: ...") for
 * a quantized V with fa off. */
int bench_kv_check_fa(const char *v, int fa, lvd_err *err);

#endif
