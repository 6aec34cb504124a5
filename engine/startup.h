/* startup.h: the devices a build's backends announce as they start, for an
 * engine that has no `--list-devices` (ik_llama.cpp: its llama-bench
 * initialises CUDA before it reads its arguments, so any invocation, even
 * a refused option, prints them on stderr):
 *   ggml_cuda_init: found 1 CUDA devices:
 *     Device 0: NVIDIA H200, compute capability 9.0, VMM: yes, VRAM: 143156 MiB
 *   ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected
 * (GGML_CUDA_NAME is "ROCm" for HIP builds and "MUSA" for MUSA's; the
 * "(Total VRAM: N MiB)" of later mainline builds is read too). A device is
 * named as ggml names it (CUDA0, ROCm0), its total memory from VRAM when
 * printed (free memory is never printed: -1), its compute capability kept.
 * Pure: running the engine is engine/probe.c's. Not for `--list-devices`
 * output (engine/devices.h). */
#ifndef LVD_ENGINE_STARTUP_H
#define LVD_ENGINE_STARTUP_H

#include "common/types.h"

#include <stddef.h>

/* Reads text (a tool's stderr) for backend start-up lines. Returns 1 when a
 * backend announced itself, with *devs (malloc'd, NULL when none) and *n its
 * devices and, when one started without any device, note (may be NULL) its
 * words ("CUDA: failed to initialize CUDA: no CUDA-capable device is
 * detected"); 0 when no backend said anything (*devs NULL, *n 0, note ""). */
int engine_startup_devices(const char *text, lvd_device **devs, size_t *n, char *note, size_t len);

#endif
