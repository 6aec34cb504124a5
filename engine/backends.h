/* backends.h: which ggml backends an engine carries, read from its file set
 * (engine/files.h) without running it, and the note for a backend that is
 * present but listed no device. Not for the backend label of a probe (the
 * devices it listed: engine_devices_label in devices.h). */
#ifndef LVD_ENGINE_BACKENDS_H
#define LVD_ENGINE_BACKENDS_H

#include "common/types.h"
#include "engine/files.h"

#include <stddef.h>

/* The backends fs carries, distinct, sorted, joined with ',' ("cpu,vulkan";
 * "" when none is recognisable):
 *   - every library or module named libggml-NAME[-TIER].so* (linked, as
 *     libggml-cpu.so.0, or a GGML_BACKEND_DL module, as libggml-cuda.so and
 *     libggml-cpu-haswell.so), NAME as engine_backend_of_selector spells it
 *     (hip -> rocm); libggml-base is ggml's core, not a backend;
 *   - the GPU runtime a file of the set names in DT_NEEDED: libcuda,
 *     libcudart, libcublas -> cuda; libvulkan -> vulkan; libamdhip64,
 *     libhipblas, librocblas -> rocm; libOpenCL -> opencl; libsycl -> sycl;
 *     libmusa, libmusart -> musa (a backend linked statically into libggml).
 * A component that does not fit in len is left out whole. */
void engine_backends_of(const engine_fileset *fs, char *buf, size_t len);

/* The note for every accelerator backend (cuda, vulkan, rocm, metal, sycl,
 * opencl, musa, cann) in backends that none of devs[0..n) belongs to:
 * "Vulkan backend present, no Vulkan device (driver missing?)", several
 * joined by "; ". NULL (nothing to say) when each lists a device. malloc'd. */
char *engine_backends_no_device(const char *backends, const lvd_device *devs, size_t n);

/* The accelerator backends (those of engine_backends_no_device) in backends,
 * in its order, joined by '+' into buf ("cpu,cuda,vulkan" -> "cuda+vulkan";
 * "" when it carries none). A component that does not fit is left out. */
void engine_backends_accelerators(const char *backends, char *buf, size_t len);

#endif
