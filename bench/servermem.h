/* servermem.h: placement's memory figures held against what llama-server
 * allocated. A case is one llama-server load (bench/cbufcases.h's blocks,
 * "$ llama-server ... -np N [-kvu] -lv 4" and its buffer lines); the
 * prediction is the one lvd select makes for the line that starts it: the
 * compute buffer with one output row per slot, the KV cache and one
 * recurrent state per slot, with llama.cpp's own figures where a
 * llama-fit-params --fit-print block of the same model, context, ubatch and
 * flash attention is given (as lvd bench records them), else the shape's.
 * A CPU engine's case is priced as a CPU engine runs it (the host's buffer),
 * a device's at its -ngl, as llama.cpp reported it for the device
 * ("Vulkan0 model / KV / RS / compute buffer"), with the host's compute
 * buffer beside it ("Vulkan_Host compute buffer") and the device's model
 * buffer judged too. Text and arithmetic only: not for running an engine
 * (perf/perf_server_memory does). */
#ifndef LVD_BENCH_SERVERMEM_H
#define LVD_BENCH_SERVERMEM_H

#include "bench/cbufcases.h"
#include "common/gguf.h"
#include "placement/placement.h"

#include <stddef.h>

typedef struct bench_server_verdict {
    int priced;             /* 0: placement could not price the case (why says why) */
    char why[160];
    double pred_kv, act_kv; /* MiB: KV cache and recurrent state */
    double pred_compute, act_compute; /* MiB: the device's compute buffer (the host's for a CPU engine) */
    double ratio_kv, ratio_compute;   /* predicted / actual; -1 when either is unknown */
    int device;                       /* 1: the case's buffers are a device's (the fields below set) */
    double pred_model, act_model;     /* MiB: the weights on the device; -1 for a CPU engine */
    double pred_host, act_host;       /* MiB: the host's compute buffer beside the device; -1 for a
                                         CPU engine */
    double ratio_model, ratio_host;   /* predicted / actual; -1 when either is unknown */
    placement_source kv_from, compute_from;
} bench_server_verdict;

/* The llama-fit-params case of cases (n) for server case c: the same model,
 * context, ubatch and flash attention, with rows; NULL when none. */
const bench_cbuf_case *bench_server_fitprint_of(const bench_cbuf_case *cases, size_t n, const bench_cbuf_case *c);

/* The verdict of server case c for shape s, with fit's rows (NULL: the
 * shape's figures alone). */
void bench_server_judge(const bench_cbuf_case *c, const bench_cbuf_case *fit, const gguf_shape *s,
                        bench_server_verdict *out);

#endif
