/* watch.h: energy attributed to llama-bench's repetitions, not to the model
 * load, and the idle baseline it is taken net of. Not for
 * statistics over the windows (stats/energy.h) nor for running llama-bench
 * (bench/invoke.h passes the watcher to proc_run).
 *
 * Attribution: llama-bench runs with --progress, which prints on stderr,
 *   before each step, "llama-bench: benchmark J/N: starting", "... warmup
 *   generation run", "... generation run K/R" (prompt run for pp). The watcher
 *   gets stderr as it arrives (proc_spec.on_err) and reads the arm's sources
 *   when a line completes: benchmark J's window opens at its first timed run
 *   ("run 1/R") and closes at the next "starting" line or at the process's
 *   end, so it holds J's R repetitions (and the few ms between them), never
 *   the load or the warm-up run. Benchmark J is llama-bench's J-th result row.
 * A window is measured when every source advanced (a 0 delta is a stalled or
 *   slow counter, never 0 J) and it lasted at least the minimum window
 *   ($LVD_ENERGY_MIN_WINDOW_MS, default 1000: NVML's counter updates every
 *   20-100 ms, sampled power every 100 ms); else its note says why.
 * Idle: energy_idle reads every source over ms milliseconds with nothing
 *   running (before a session); a source whose counter did not move has no
 *   idle figure (NAN) and its energy is taken gross. */
#ifndef LVD_ENERGY_WATCH_H
#define LVD_ENERGY_WATCH_H

#include "common/types.h"
#include "common/util.h"
#include "energy/energy.h"
#include "energy/match.h"

#include <stddef.h>
#include <stdint.h>

#define ENERGY_MIN_WINDOW_MS_DEFAULT 1000
#define ENERGY_IDLE_MS_DEFAULT 3000

typedef struct energy_window {
    int open, closed, failed;
    int64_t t0, t1;                    /* lvd_mono_ms */
    double j0[ENERGY_MAX_PICK], j1[ENERGY_MAX_PICK];
} energy_window;

typedef struct energy_watch {
    energy_set *set;                   /* borrowed */
    const energy_pick *pick;           /* borrowed */
    const double *idle_w;              /* per source of set (energy_idle); NULL = none */
    int64_t min_window_ms;
    lvd_sb partial;                    /* an incomplete stderr line */
    energy_window *w;                  /* per benchmark, 0-based */
    size_t n;
    size_t cur;                        /* the open window, (size_t)-1 when none */
} energy_watch;

/* The minimum window ($LVD_ENERGY_MIN_WINDOW_MS or the default). */
int64_t energy_min_window_ms(void);

/* Measures every source's idle watts over ms into idle_w[set->n] (NAN where
 * the counter did not advance or could not be read). */
void energy_idle(energy_set *set, int64_t ms, double *idle_w);

void energy_watch_init(energy_watch *w, energy_set *set, const energy_pick *pick, const double *idle_w);
/* proc_spec.on_err: ctx is the energy_watch. */
void energy_watch_feed(const char *buf, size_t n, void *ctx);
/* The process ended: the open window closes now. */
void energy_watch_end(energy_watch *w);
/* The energy of benchmark j (0-based) as out (lvd_energy). */
void energy_watch_result(const energy_watch *w, size_t j, lvd_energy *out);
void energy_watch_free(energy_watch *w);

/* Parses one --progress line: 1 with *bench (0-based) and *run (1-based; 0
 * for "starting", -1 for a warm-up run), else 0. */
int energy_progress_line(const char *line, size_t *bench, int *run);

#endif
