/* alloclog.h: what llama.cpp says it allocated, per device, from a tool's
 * stderr (llama-bench -v, llama-server): the lines
 *   load_tensors:      Vulkan0 model buffer size =    11.30 MiB
 *   llama_kv_cache:    Vulkan0 KV buffer size =     8.00 MiB
 *   llama_memory_recurrent:        CPU RS buffer size =     4.50 MiB   (a recurrent state:
 *                                            counted with the KV, as placement prices it)
 *   sched_reserve:     Vulkan0 compute buffer size =     9.13 MiB
 * (also with llama-server's "-lv" prefix "0.00.111.995 I "), captured in
 * tests/fixtures/llama.cpp/alloc-b9749/. Host buffers (CPU, CPU_Mapped,
 * CPU_REPACK, AMX, Vulkan_Host, CUDA_Host, ...) are folded into device "CPU".
 * Buffers of one load (consecutive lines of one kind) add up; of several
 * loads or contexts (llama-bench makes one per test) the largest is kept.
 * Also: whether the stderr says a load failed for memory. Pure text; not for
 * running anything. */
#ifndef LVD_ENGINE_ALLOCLOG_H
#define LVD_ENGINE_ALLOCLOG_H

#include "common/types.h"
#include "common/util.h"

#include <stddef.h>

#define ENGINE_ALLOC_MAX_DEVICES 64 /* bound on hostile output */

/* Parses text[0..len) into *out (malloc'd, *n entries, free with free()),
 * pred_* set to -1 and the kinds never reported to -1. Lines that are not
 * allocation lines are ignored. 0, or -1 with err (pattern failure only). */
int engine_alloc_parse(const char *text, size_t len, lvd_alloc **out, size_t *n, lvd_err *err);

/* The first line of text that says an allocation failed for memory
 * ("failed to allocate", "out of memory", "ErrorOutOfDeviceMemory",
 * "cudaMalloc failed"; any case), malloc'd without its newline; NULL when none. */
char *engine_alloc_oom_line(const char *text, size_t len);

/* The device of a buffer name: "CPU" for host buffers, else the name. */
const char *engine_alloc_device(const char *buffer);

#endif
