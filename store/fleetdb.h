/* fleetdb.h: the store seen as a fleet: which hosts wrote it, and
 * the local fallback copy lvd select reads when the store cannot be opened.
 * Not for deciding anything about the fleet (select/pin_fleet.h,
 * evidence/fleet.h). */
#ifndef LVD_STORE_FLEETDB_H
#define LVD_STORE_FLEETDB_H

#include "store/store.h"

#include <stddef.h>

/* The distinct hosts with a run in the store, sorted, into *hosts (a NULL-
 * terminated vector, free with lvd_strv_free; NULL when none) and *n. One
 * indexed scan (runs_host, schema 17). 0, or -1 with err. */
int store_fleet_hosts(store *s, char ***hosts, size_t *n, lvd_err *err);

/* Writes a fresh SQLite store at fallback_path holding what `lvd select`
 * reads for host: every artifact, path and shard cache entry, engine, probe
 * and device, file hash and pin, and host's verdicts, checks and ceilings,
 * each row with its id (verdicts name engines by id, fingerprints too).
 * Measurements (runs, results, samples) are not copied. The copy is built
 * beside fallback_path and renamed over it: a reader sees the old copy or
 * the new one, never half of one. A fallback_path that is the primary's own
 * file is refused. 0, or -1 with err (fallback_path as it was). */
int store_fallback_refresh(store *primary, const char *fallback_path, const char *host, lvd_err *err);

#endif
