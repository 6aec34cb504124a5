/* hostfacts.h: the facts of this host that change while the build does not,
 * recorded per bench session (store/factsdb.h) so that a step in a history
 * the builds did not cause can name what changed: the NVIDIA driver
 * (/proc/driver/nvidia/version, else nvidia-smi), the amdgpu module version,
 * the kernel, the CPU model and governor, the GPU power limit and clocks
 * where nvidia-smi or sysfs tell them, and the Vulkan driver an engine's log
 * names. Files are read under $LVD_PROC_ROOT (default /proc) and
 * $LVD_SYSFS_ROOT (default /sys), so tests can fake them; nvidia-smi is
 * $LVD_NVIDIA_SMI (empty: never), else the first on PATH, run with a timeout.
 * A fact that cannot be read is left out, never guessed. Not for deciding
 * what a change means (stats/changepoint.h, evidence/drift.c). */
#ifndef LVD_ENGINE_HOSTFACTS_H
#define LVD_ENGINE_HOSTFACTS_H

#include <stddef.h>

#define ENGINE_FACTS_MAX 16

typedef struct engine_facts {
    char *names[ENGINE_FACTS_MAX];  /* "driver", "kernel", "cpu", "governor", "power_limit", ... */
    char *values[ENGINE_FACTS_MAX];
    size_t n;
} engine_facts;

/* Reads this host's facts into f (empty to start). */
void engine_host_facts(engine_facts *f);
/* Adds "vulkan_driver" from a llama.cpp log line "ggml_vulkan: 0 = NAME (DRIVER) | ..."
 * (the first one), unless f has it. */
void engine_facts_from_log(engine_facts *f, const char *log);
/* Sets name = value (replacing); copies both. */
void engine_facts_set(engine_facts *f, const char *name, const char *value);
/* The value of name, or NULL. */
const char *engine_facts_get(const engine_facts *f, const char *name);
void engine_facts_free(engine_facts *f);

#endif
