/* energy_report.h: what lvd-bench says about energy: per test a
 * block of joules per token and tokens per joule with 95 % CIs, net of idle,
 * under the speed table; one line when energy was not measured; the
 * "energy" object of each result in --json. And whether an arm can be ranked
 * under a per-joule objective. Not for measuring (bench/energy.h). */
#ifndef LVD_BENCH_ENERGY_REPORT_H
#define LVD_BENCH_ENERGY_REPORT_H

#include "bench/session.h"

#include <stdio.h>

struct cJSON;

/* Under a per-joule objective an arm is eligible when it has an energy
 * source and either fewer than two ok runs (the second one runs with -r
 * raised to fill the minimum window, bench_energy_reps) or a tokens-per-joule
 * sample on some test; an arm without a source never ranks there. Always 1
 * otherwise. */
int bench_energy_eligible(const bench_session *s, size_t arm);
/* -r for an invocation whose first arm is arm: reps, raised so that one
 * test's repetitions last at least 1.25 x the minimum window
 * (energy/watch.h) once the arm's repetition cost is known (at most 1000,
 * past max_samples if need be: a window too short measures nothing); a
 * given --reps and an arm without a source keep reps. */
int bench_energy_reps(const bench_session *s, size_t arm, int reps);

/* The energy block of test t, or (t == 0, nothing measured) the one line. */
void bench_energy_print(FILE *f, const bench_session *s, size_t t);
/* {source, device, joules_per_token, tokens_per_joule, ci, idle_watts, ...}
 * of arm on test t, or JSON null when not measured. */
struct cJSON *bench_energy_json(const bench_session *s, size_t arm, size_t t);

#endif
