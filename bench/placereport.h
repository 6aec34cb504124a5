/* placereport.h: the placement part of lvd bench's report: the
 * margin correction each placed device kept, the next rungs taken after an
 * out-of-memory load, and llama.cpp's own fit beside ours (the plan's
 * notes, bench_plan.notes). Not for the tables and decisions (report.h). */
#ifndef LVD_BENCH_PLACEREPORT_H
#define LVD_BENCH_PLACEREPORT_H

#include "bench/session.h"

#include <cjson/cJSON.h>
#include <stdio.h>

/* "placement: LINE" for every note, then for every "llama.cpp fit" arm one
 * line comparing it with our placement's arm on each test the objective
 * decides on: which is faster, by how much (ratio of medians), the CI and
 * the outcome (stats_compare under the session's rule); nothing when there
 * are none. */
void bench_placement_print(FILE *f, const bench_session *s);
/* {"notes": [...], "fit_vs_ours": [{test, ours, fit, ratio, ci_lo, ci_hi,
 * outcome, faster}]} */
cJSON *bench_placement_json(const bench_session *s);

#endif
