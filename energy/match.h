/* match.h: which energy sources meter an arm, matched to
 * llama.cpp's device selectors honestly. Not for reading them (energy.h) or
 * for windows (watch.h).
 *
 * Rules (energy_match):
 *   - a CPU arm (no device): the CPU domains (RAPL package and dram); none:
 *     not measured;
 *   - a GPU arm: the GPU sources of its vendor (NVIDIA: nvml; AMD: hwmon;
 *     from the device name, else the backend: cuda -> NVIDIA, rocm/hip ->
 *     AMD). With a PCI bus id (the engine's log or the caller), the source
 *     with that id; else the sources whose name equals the device's (NVML;
 *     hwmon has none) and whose memory is within ENERGY_MEM_TOLERANCE of the
 *     device's (llama.cpp reports what the runtime can use, NVML the whole
 *     card: 143155 vs 143771 MiB on an H200). Exactly one: matched, plus the
 *     CPU domains (the host's part of a GPU arm's energy); none or several
 *     (identical cards, no bus id): not measured, never another device's.
 * Not for the CPU domains' permission (sysfs.c says it once). */
#ifndef LVD_ENERGY_MATCH_H
#define LVD_ENERGY_MATCH_H

#include "energy/energy.h"

#include <stddef.h>
#include <stdint.h>

#define ENERGY_MEM_TOLERANCE 0.02
#define ENERGY_MAX_PICK 8

/* The sources of one arm. n 0: not measured, note says why. */
typedef struct energy_pick {
    size_t idx[ENERGY_MAX_PICK];
    size_t n;
    char source[32];       /* "nvml+rapl" */
    char device[96];       /* "CUDA0=00000000:17:00.0+package-0" */
    char note[96];
} energy_pick;

/* The device an arm runs on, as its engine's probe saw it. */
typedef struct energy_target {
    const char *selector;  /* "CUDA0"; NULL or "" for a CPU arm */
    const char *backend;   /* "cuda", "vulkan", "rocm" ... */
    const char *name;      /* "NVIDIA H200" */
    int64_t mem_mib;       /* -1 unknown */
    const char *bus_id;    /* NULL unless the engine's log gave it */
} energy_target;

void energy_match(const energy_set *set, const energy_target *t, energy_pick *out);

/* 1 when two PCI addresses name the same function ("00000000:17:00.0" and
 * "0000:17:00.0" do). */
int energy_same_pci(const char *a, const char *b);

#endif
