/* store_merge_internal.h: what store_merge.c (engines, runs, the whole)
 * and store_merge_rows.c (the tables copied row by row) share: the id maps
 * from the other store's ids to this one's. */
#ifndef LVD_STORE_MERGE_INTERNAL_H
#define LVD_STORE_MERGE_INTERNAL_H

#include "store/mergedb.h"
#include "store/store_internal.h"

#include <stddef.h>
#include <stdint.h>

/* Other store's id -> this store's, added in increasing `from` order. */
typedef struct merge_map {
    int64_t *from, *to;
    size_t n, cap;
} merge_map;

void merge_map_add(merge_map *m, int64_t from, int64_t to);
/* The id mapped from `from`, 0 when none. */
int64_t merge_map_get(const merge_map *m, int64_t from);
void merge_map_free(merge_map *m);

/* One merge: both stores, the maps built so far and the counts. */
typedef struct merge_job {
    store *dst, *src;
    merge_map engines, probes;
    store_merge_counts *added;
} merge_job;

/* The tables copied row by row: artifacts before the engines; probes,
 * devices, checks, verdicts, ceilings, fit plans and session facts after
 * them (store_merge_rows.c). 0 or -1 with err. */
int merge_artifacts(merge_job *j, lvd_err *err);
int merge_engine_rows(merge_job *j, lvd_err *err);

#endif
