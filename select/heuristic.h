/* heuristic.h: selection rule 3 (man lvd-select,
 * HEURISTIC): which engine and device to use when neither an operator profile
 * nor a measured verdict decides. Device identity comes from the names
 * engines print for --list-devices, matched against a PCRE2 table of vendors
 * and generations (NVIDIA compute capability estimated from the name when
 * the probe did not record one). Not for measuring anything, nor for rules
 * 1, 2 and 4 (the caller's order). */
#ifndef LVD_SEL_HEURISTIC_H
#define LVD_SEL_HEURISTIC_H

#include "common/types.h"
#include "engine/devices.h"

#include <stddef.h>
#include <stdint.h>

typedef enum sel_vendor {
    SEL_VENDOR_OTHER = 0, /* an accelerator no row recognised (Adreno, Mali, ...) */
    SEL_VENDOR_NVIDIA,
    SEL_VENDOR_AMD,
    SEL_VENDOR_INTEL,
    SEL_VENDOR_APPLE,
    SEL_VENDOR_NONE,      /* not an accelerator: software rasterizers (llvmpipe), CPUs */
} sel_vendor;

typedef enum sel_cc_source {
    SEL_CC_UNKNOWN = 0,   /* not NVIDIA, or a name the table does not know */
    SEL_CC_TABLE,         /* estimated from the device name */
    SEL_CC_PROBE,         /* recorded by the probe (the CUDA init log) */
} sel_cc_source;

/* What a device name says about the device. */
typedef struct sel_gpu {
    sel_vendor vendor;
    const char *generation;  /* static: "Pascal", "Ampere", "RDNA3", "Alchemist", ...; "" unknown */
    int cc_major, cc_minor;  /* NVIDIA compute capability; -1 when unknown */
    sel_cc_source cc_source;
    int integrated;          /* shares host memory (iGPU, APU) */
} sel_gpu;

/* "nvidia", "amd", "intel", "apple", "other", "none". */
const char *sel_vendor_name(sel_vendor v);

/* Classifies a device name (as --list-devices printed it). backend (the
 * device's backend, "cuda", "vulkan", "rocm", ...; may be NULL) settles the
 * vendor when the name does not: only NVIDIA devices appear under CUDA, AMD
 * under ROCm/HIP, Apple under Metal, Intel under SYCL. compute_cap ("8.6";
 * NULL or "" when not recorded) overrides the table's estimate. */
void sel_classify(const char *name, const char *backend, const char *compute_cap, sel_gpu *out);

/* sel_classify over a probed device; its backend is taken from the record,
 * or from the selector's prefix ("Vulkan0" -> "vulkan") when empty. */
void sel_classify_device(const lvd_device *d, sel_gpu *out);

/* Software rasterizers (llvmpipe, lavapipe, SwiftShader ...) are named by
 * engine_device_is_software (engine/devices.h): sel_classify calls it first
 * (vendor NONE, generation "software"); rules 3 and 4 never offload to such a
 * device; labels say so (sel_device_label). */

/* A device's label for people and --json: its backend ("cuda", "vulkan"),
 * "vulkan (software)" for a software rasterizer, "cpu" for NULL (no
 * device). Writes at most n bytes (32 hold every label). */
void sel_device_label(const lvd_device *d, char *out, size_t n);

/* The backend of a device, lower case: d->backend, else the selector without
 * its trailing index ("MTL" read as "metal"). Writes at most n bytes. */
void sel_device_backend(const lvd_device *d, char *out, size_t n);

/* One engine as lvd-select knows it from the store: its id, its backend
 * label (LVD_BACKEND_CPU for a probe with no devices, LVD_BACKEND_UNKNOWN
 * when it could not be asked) and the devices its latest probe listed. */
typedef struct sel_candidate {
    int64_t engine_id;
    const char *name;           /* for messages; NULL = "engine <id>" */
    const char *backend;
    const lvd_device *devices;
    size_t n_devices;
} sel_candidate;

typedef struct sel_choice {
    size_t candidate;           /* index into the candidates */
    int64_t engine_id;
    int device;                 /* index into that candidate's devices; -1 for a CPU engine */
    char selector[64];          /* that device's selector, verbatim from the probe; "" for CPU */
    sel_gpu gpu;                /* the device's classification (vendor NONE for CPU) */
    char reason[512];           /* one line for --explain, also when nothing was decided */
} sel_choice;

/* Rule 3. The target device is the best accelerator any candidate lists:
 * discrete before integrated, a recognised vendor before OTHER, more total
 * memory first, then the first listed. Devices are the same device across
 * engines when their names agree ignoring case, "(R)"/"(TM)" and a trailing
 * parenthesised driver tag ("(RADV NAVI31)"). Then by vendor:
 *   NVIDIA with compute capability < 8.0  -> Vulkan, else CUDA;
 *   NVIDIA >= 8.0 or capability unknown   -> CUDA, else Vulkan;
 *   AMD -> Vulkan, else ROCm/HIP;  Intel -> Vulkan, else SYCL;
 *   Apple -> Metal, else Vulkan;   OTHER -> no decision;
 * the first candidate whose device of that backend is the target wins. No
 * accelerator anywhere (a software rasterizer is none) -> the first
 * candidate labelled LVD_BACKEND_CPU; its reason names the software devices
 * passed over.
 * Returns 1 with *out filled when the rule decided, 0 when it has no answer
 * (out->reason says why; the caller goes on to rule 4). */
int sel_heuristic(const sel_candidate *cands, size_t n, sel_choice *out);

#endif
