/* devices.h: reading what an engine's `--list-devices` printed (stdout) and
 * what its backends logged while starting (stderr) into lvd_device records,
 * naming the engine's backend from them, and the device an arm is checked
 * under. Not for running the engine (see
 * engine/probe.h) nor for storing the answer (store/store.h). */
#ifndef LVD_ENGINE_DEVICES_H
#define LVD_ENGINE_DEVICES_H

#include "common/types.h"
#include "common/util.h"

#include <stddef.h>

/* Parses the device list in out_text (the stdout of `llama-bench
 * --list-devices` or `llama-server --list-devices`), as every era prints it:
 *     Available devices:
 *       CUDA0: NVIDIA H200 (143155 MiB, 142629 MiB free)
 * "  (none)" after the header for a build without accelerators (b10156 on;
 * llama-bench from b6522), or nothing after it (llama-server before, and a
 * build whose GPU backend failed to load): both are a list of no device.
 * Metal's device is "Metal" in older builds and "MTL0" in newer ones. Host
 * accelerators (BLAS, ZenDNN, zDNN: "BLAS: Accelerate (0 MiB, 0 MiB free)")
 * are left out: they hold no layers and take no GPU flags. Noise lines
 * (loader and backend logs, stderr in the same text) are skipped, and so are
 * CR line ends and llama.cpp's log prefix ("0.00.126.784 I "); a missing
 * header is tolerated when device lines carry their memory figures.
 * Selectors are kept verbatim. When err_text (the stderr, may be NULL) or
 * out_text holds CUDA's init lines ("  Device 0: NVIDIA H200, compute
 * capability 9.0, ...") the capability is set on device CUDA<N>. Fills *devs
 * (malloc'd, NULL when none) and *n; returns 0, or -1 when the text holds no
 * device list at all (no header, no "(none)", no device line), naming what
 * was wrong: such output says nothing, and "no devices" must never be
 * guessed. */
int engine_devices_parse(const char *out_text, const char *err_text, lvd_device **devs, size_t *n,
                        lvd_err *err);

/* The backend one selector belongs to, from its alphabetic prefix: CUDA ->
 * cuda, Vulkan -> vulkan, ROCm/HIP -> rocm, MTL/Metal -> metal, SYCL -> sycl,
 * anything else -> its prefix in lowercase ("BLAS0" -> blas). */
void engine_backend_of_selector(const char *selector, char *buf, size_t len);

/* The engine's backend label: "cpu" when n == 0, else the distinct device
 * backends in order of first appearance joined by '+' ("cuda", "cuda+vulkan").
 * A component that does not fit in len is left out whole. */
void engine_devices_label(const lvd_device *devs, size_t n, char *buf, size_t len);

/* The device an arm's correctness check is recorded and looked up under,
 * for parameters p on an engine whose newest probe is probe (NULL or one
 * with no devices: none lists a device):
 *   p's selector when it names one;
 *   else the probe's first device when -ngl is not 0 (select/engines.h
 *     sel_arm_device applies the same to a registered engine);
 *   else ENGINE_DEVICE_DEFAULT when p asks for GPU layers (-ngl > 0): the
 *     engine's default device, unnamed because no probe here lists it (an
 *     engine imported from another machine; "auto" is llama-bench's own
 *     word for it in its "devices" field);
 *   else "": the CPU, the reference, which needs no check.
 * One rule for lvd check --import, verdicts, selection, pin and evidence. */
#define ENGINE_DEVICE_DEFAULT "auto"
void engine_check_device(const lvd_probe *probe, const lvd_params *p, char *out, size_t len);

/* 1 when a device name is a software rasterizer (Mesa's llvmpipe, lavapipe
 * or softpipe, Google's SwiftShader, Windows' Microsoft Basic Render Driver):
 * listed by a Vulkan build as a device, it computes on the host's CPU cores
 * and is no accelerator. The only place that knows these names (matched
 * caseless): the probe's table and JSON say so, and the selection rules
 * (select/heuristic.h) never offload to one unless a verdict measured it. */
int engine_device_is_software(const char *name);

#endif
