/* energy.h: the energy sources of this box, read the way each vendor
 * documents them, as cumulative joules per source. Not for
 * attributing energy to llama-bench's repetitions (energy/watch.h), matching
 * arms to sources (energy/match.h) or any statistics (stats/).
 *
 * Sources (discovered by energy_open, in this order):
 *   nvml   NVIDIA GPUs through NVML, loaded at run time (dlopen of
 *          libnvidia-ml.so.1, or $LVD_NVML_LIBRARY; none: no NVIDIA source):
 *          nvmlDeviceGetTotalEnergyConsumption (mJ, Volta and newer) where it
 *          answers, else nvmlDeviceGetPowerUsage (mW) sampled;
 *   hwmon  AMD GPUs: ROOT/class/hwmon/hwmonN with name "amdgpu": energy1_input
 *          (uJ) where present, else power1_average (uW) sampled;
 *   rapl   the CPU: ROOT/class/powercap/intel-rapl:N (package) and its
 *          intel-rapl:N:M children named "dram": energy_uj, which wraps at
 *          max_energy_range_uj. Unreadable without root on kernels since 5.10
 *          (CVE-2020-8694): said once in the set's notes, no source.
 *   ROOT is $LVD_SYSFS_ROOT, default /sys.
 * Readings: a counter's wraps are unfolded (a raw value below the last one
 *   adds the range: max_energy_range_uj for RAPL, 2^64 otherwise); a sampled
 *   source is integrated by a sampler thread every $LVD_ENERGY_SAMPLE_MS (100)
 *   ms, trapezoids, so every source reads as cumulative joules. A counter may
 *   update more slowly than a short window, so callers read over windows of
 *   seconds and never trust a 0 delta (energy/watch.h).
 * Not thread-safe across callers; the sampler thread is internal. */
#ifndef LVD_ENERGY_ENERGY_H
#define LVD_ENERGY_ENERGY_H

#include "common/util.h"

#include <stddef.h>
#include <stdint.h>

typedef struct energy_source {
    char kind[8];          /* "nvml", "hwmon", "rapl" */
    char id[64];           /* nvml: PCI bus id; hwmon: PCI address; rapl: "package-0", "dram" */
    char name[128];        /* NVML's device name; "amdgpu"; the RAPL domain */
    int64_t mem_mib;       /* GPU memory; -1 unknown or a CPU domain */
    int cpu;               /* a CPU domain (RAPL) */
    int counter;           /* 1: an energy counter; 0: power, sampled */
    char path[512];        /* the sysfs file read */
    uint64_t range;        /* a counter's wrap range in its unit; 0: 2^64 */
    unsigned nvml_index;
    void *nvml_dev;
    /* reading state */
    int have_last;
    uint64_t last_raw;     /* counter: raw; power: uW */
    double total_j;        /* cumulative, wraps unfolded */
    int64_t last_ms;
} energy_source;

typedef struct energy_nvml energy_nvml; /* energy/nvml.c */

typedef struct energy_set {
    energy_source *v;
    size_t n;
    lvd_sb notes;          /* one line per thing the user should know ("RAPL ... root") */
    energy_nvml *nvml;
    void *sampler;         /* energy/meter.c */
} energy_set;

/* Finds every source (above) into set; a box with none is not an error.
 * Starts the sampler thread when a source is sampled. */
void energy_open(energy_set *set);
void energy_close(energy_set *set);

/* The cumulative joules of source i now. 0, or -1 when it cannot be read. */
int energy_read(energy_set *set, size_t i, double *joules);

/* The sysfs root ($LVD_SYSFS_ROOT or /sys). */
const char *energy_sysfs_root(void);

/* --- the vendors (energy/nvml.c, energy/sysfs.c) ------------------------- */

/* Adds the NVML devices to set (nothing when the library does not load). */
void energy_nvml_open(energy_set *set);
void energy_nvml_close(energy_set *set);
/* A raw reading of an NVML source: mJ (counter) or mW (power). */
int energy_nvml_raw(energy_set *set, const energy_source *src, uint64_t *raw);

/* Adds the hwmon amdgpu and RAPL sources under the sysfs root. */
void energy_sysfs_open(energy_set *set);
/* A raw reading of a sysfs source: uJ (counter) or uW (power). */
int energy_sysfs_raw(const energy_source *src, uint64_t *raw);

/* Appends a source to set (a copy of src). */
void energy_add_source(energy_set *set, const energy_source *src);
/* Adds one line to set's notes. */
void energy_note(energy_set *set, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
