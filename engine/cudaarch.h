/* cudaarch.h: the CUDA architectures a llama.cpp CUDA build was compiled
 * for, as its log prints them (the CUDA part of the system_info line:
 * "system_info: ... | CUDA : ARCHS = 890,900 | USE_GRAPHS = 1 | CPU : ..."),
 * and the flag for a device whose compute capability the build has no code
 * for: it would JIT-compile its kernels from PTX for minutes at start, or
 * fail. Not for reading compute capabilities (engine/devices.h). */
#ifndef LVD_ENGINE_CUDAARCH_H
#define LVD_ENGINE_CUDAARCH_H

#include "common/types.h"
#include "common/util.h"
#include "store/store.h"

#include <stddef.h>

/* Copies the ARCHS list of the first "CUDA : ARCHS = " in log ("900",
 * "500,610,700,750,800,860,890") into buf. 1 found, 0 not (buf ""). */
int engine_cuda_archs_parse(const char *log, char *buf, size_t len);

/* 1 when CUDA device d (compute capability M.m known) is not served by
 * archs: no arch of the same major version with a minor at most m (a cubin
 * for X.y runs on X.z, z >= y; anything else is JIT from PTX or nothing).
 * 0 when it is served, or when that cannot be said (no archs, no compute
 * capability, not a CUDA device). */
int engine_cuda_arch_missing(const char *archs, const lvd_device *d);

/* The flag as a phrase: "cc 8.9 is not among the build's CUDA archs (900):
 * it would JIT-compile for minutes or fail"; "" when not flagged. */
void engine_cuda_arch_flag(const char *archs, const lvd_device *d, char *buf, size_t len);

/* Records the archs log printed (e.g. llama-perplexity's stderr in lvd
 * check) with engine e's newest probe, when that probe is not "unknown" and
 * its recorded file set is the one on disk now (the log came from those
 * files). Nothing to record is not an error. 0, or -1 with err (store). */
int engine_cuda_archs_note(store *s, const lvd_engine *e, const char *log, lvd_err *err);

#endif
