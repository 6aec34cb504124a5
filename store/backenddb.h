/* backenddb.h: the backend an engine's results were measured on, in
 * llama-bench's own words (results.backends: "CUDA", "CPU", "Vulkan"), so
 * that an import never files another build's rows under it (benchio/import.c:
 * a CPU and a CUDA build of one source share commit and build number). Not
 * for the probe's backend label (store_engines.c). */
#ifndef LVD_STORE_BACKENDDB_H
#define LVD_STORE_BACKENDDB_H

#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/* The backends llama-bench reported for the newest ok run of engine_id that
 * has any, into buf. 0 found, 1 none (no ok run reported one), -1 (err). */
int store_engine_reported_backends(store *s, int64_t engine_id, char *buf, size_t len, lvd_err *err);

#endif
