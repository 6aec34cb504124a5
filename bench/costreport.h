/* costreport.h: the session's invocation prices and chosen repetitions, as
 * the bench report shows them (text and JSON): per process key its fixed cost
 * per invocation (load + warm-up), its last -r and instances per arm, the
 * invocations priced and, when its first -r was priced from an earlier
 * night (bench/prices.h), which night and at what fixed cost; per arm its
 * cost per repetition (and the carried-over one); the arms that could not be
 * sampled within the budget. Not for the cost model (bench/cost.h). */
#ifndef LVD_BENCH_COSTREPORT_H
#define LVD_BENCH_COSTREPORT_H

#include "bench/session.h"

#include <stdio.h>

struct cJSON;

void bench_costs_print(FILE *f, const bench_session *s);
/* {"invocations": [...], "arms": [...], "not_sampled": [...]}. */
struct cJSON *bench_costs_json(const bench_session *s);

#endif
