/* placereport.h: the placement part of lvd bench's report (issue 14): the
 * margin correction each placed device kept, the next rungs taken after an
 * out-of-memory load, and llama.cpp's own fit beside ours (the plan's
 * notes, bench_plan.notes). Not for the tables and decisions (report.h). */
#ifndef LVD_BENCH_PLACEREPORT_H
#define LVD_BENCH_PLACEREPORT_H

#include "bench/runner.h"

#include <cjson/cJSON.h>
#include <stdio.h>

/* "placement: LINE" for every note; nothing when there are none. */
void bench_placement_print(FILE *f, const bench_session *s);
/* The notes as a JSON array of strings. */
cJSON *bench_placement_json(const bench_session *s);

#endif
