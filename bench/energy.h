/* energy.h: energy in a bench session: the box's sources opened
 * once with their idle baseline, each arm's sources (energy/match.h), the
 * hook that brackets each invocation's repetitions (--progress,
 * energy/watch.h) and fills each result's lvd_result.energy, and per arm and
 * test the tokens-per-joule samples (stats/energy.h) that the report and the
 * per-joule objectives (tpj, ppj, wj=W) use. Not for printing
 * (bench/energy_report.c) or reading sources (energy/).
 *
 * No source on the box (or every arm unmatched): nothing changes, the
 * invocations get no --progress, and the report says in one line that energy
 * was not measured and why. */
#ifndef LVD_BENCH_ENERGY_H
#define LVD_BENCH_ENERGY_H

#include "bench/plan.h"
#include "common/proc.h"
#include "common/types.h"
#include "energy/energy.h"
#include "energy/match.h"
#include "energy/watch.h"

#include <stddef.h>
#include <stdint.h>

typedef struct bench_energy {
    energy_set set;
    double *idle_w;        /* per source; NAN where not measured */
    energy_pick *picks;    /* per plan arm */
    size_t n_picks;
    int64_t idle_ms;
} bench_energy;

/* The tokens-per-joule samples of one arm on one test. */
typedef struct bench_joules {
    double *tpj;           /* net of idle */
    double *gross;         /* idle included; as many */
    size_t n, cap;
    lvd_energy last;       /* the newest measured window's figures (source, device, idle) */
    char note[96];         /* why the newest window was not measured; "" */
} bench_joules;

/* Opens the sources, measures their idle baseline over idle_ms (nothing
 * running) and matches every arm of plan (its engine's probe among
 * probes[0..n) gives the device's name and memory). */
void bench_energy_open(bench_energy *e, const bench_plan *plan, const lvd_probe *probes, size_t n,
                       int64_t idle_ms);
void bench_energy_close(bench_energy *e);
/* 1 when some arm has a source. */
int bench_energy_any(const bench_energy *e);
/* One line: why energy was not measured ("no energy source on this box"). */
const char *bench_energy_why_not(const bench_energy *e, char *buf, size_t len);

/* The hook around one invocation of the group whose first arm is arm:
 * begin adds the watcher to spec and returns 1 when the arm has sources
 * (the invocation then passes --progress, engine/argv.h); end (the process ended) closes
 * the last window; attach gives every result row of all (in output order =
 * llama-bench's benchmark order) its energy. e NULL: nothing. The caller
 * frees w (energy_watch_free) either way. */
int bench_energy_begin(bench_energy *e, size_t arm, proc_spec *spec, energy_watch *w);
void bench_energy_end(bench_energy *e, energy_watch *w);
void bench_energy_attach(bench_energy *e, size_t arm, const energy_watch *w, lvd_run *all);

/* Folds r's kept samples into j as tokens per joule. */
void bench_joules_absorb(bench_joules *j, const lvd_result *r);
void bench_joules_free(bench_joules *j);

#endif
