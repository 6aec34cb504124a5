/* prices.h: a bench session's price records, one per process key
 * (bench/cost.h), and the prices it starts with, carried over from the
 * earlier nights in the store:
 *   - per plan arm, the last earlier session (by its newest run) with ok
 *     bench runs of the arm on the same host, model artifact and engine
 *     (store_prices_last; at most STORE_PRICES_MAX_RUNS runs of it);
 *   - each of those runs seeds the arm's repetition cost (its samples of
 *     tonight's tests, every one: they ran) and each distinct llama-bench
 *     process they came from seeds the arm's process key once with that
 *     process's fixed cost (wall minus kept samples, over all its runs);
 *     and the arm's record there: the repetitions it ran, in how many
 *     processes (a shared process's runs are one), and how many samples it
 *     dropped as warm-up; and, for a throughput objective that decides on
 *     one test, the arm's mean sample on that test and its samples of it
 *     dropped as warm-up (seed_obj_ms: how far behind last night's leader it
 *     was, bench/reps.h, "far behind");
 *   - the seeds count until the key's (the arm's) first invocation of this
 *     session is measured (bench/cost.h), so night 2's first invocation is
 *     planned against the budget with real prices and sized from last
 *     night's record (bench/reps.h, "carried over"), where night 1's is sized
 *     by the first look alone.
 * Every run a session records carries its invocation's number
 * (store_run_set_invocation), which is what groups a shared process's runs.
 * Not for the cost model (bench/cost.h) or its SQL (store/prices.h). */
#ifndef LVD_BENCH_PRICES_H
#define LVD_BENCH_PRICES_H

#include "bench/session.h"
#include "store/store.h"

/* The price record of arm's process key in s, created on first use. */
bench_cost *bench_prices_of(bench_session *s, const bench_arm *arm);
/* Seeds s's prices from the store (rules above): 0, or -1 with err. */
int bench_prices_seed(store *st, bench_session *s, lvd_err *err);

#endif
