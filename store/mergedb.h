/* mergedb.h: `lvd store merge`: another store's measurements copied into
 * this one (an air-gapped box's file, a colleague's results), idempotent
 * and in one transaction. Not for importing llama-bench output
 * (benchio/import.h) nor for the fleet's views of a merged store (evidence/). */
#ifndef LVD_STORE_MERGEDB_H
#define LVD_STORE_MERGEDB_H

#include "store/store.h"

#include <stdint.h>

/* Rows a merge added, per table (samples and results: those of the runs
 * added; devices: those of the probes added). */
typedef struct store_merge_counts {
    int64_t artifacts, engines, probes, devices, runs, results, samples, checks, verdicts, ceilings,
        fit_plans, session_facts;
} store_merge_counts;

/* The counts' names and fields in one order, for printing. */
typedef struct store_merge_field {
    const char *name;     /* the table: "runs" */
    int64_t value;
} store_merge_field;
#define STORE_MERGE_FIELDS 12
void store_merge_fields(const store_merge_counts *c, store_merge_field out[STORE_MERGE_FIELDS]);

enum { STORE_MERGE_OK = 0, STORE_MERGE_BAD_OTHER = 1, STORE_MERGE_FAILED = -1 };

/* Copies the store `other` (a path or URI store_open takes, opened
 * read-only) into dst: artifacts, engines (matched by host and directory,
 * new local ids), probes with their devices, runs (matched by uid) with
 * results, samples, energy and allocations, checks, verdicts, ceilings,
 * llama.cpp's fit plans and session facts; every row keeps its host. Not
 * merged: the path hash caches (paths on the other box), pins and pin
 * decisions (the other box's own pinned build, no host), hunts and their
 * runs (a hunt's working state; store_run_list leaves its runs out). All in
 * one transaction: on failure dst is as it was. Refuses dst itself.
 * STORE_MERGE_OK with *added; STORE_MERGE_BAD_OTHER (other cannot be
 * opened, is newer or older than this binary, or is dst) or
 * STORE_MERGE_FAILED (writing dst) with err. */
int store_merge(store *dst, const char *other, store_merge_counts *added, lvd_err *err);

#endif
