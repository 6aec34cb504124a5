/* prices.h: what earlier llama-bench processes cost, as the runs table holds
 * it, so a bench session can size its first invocations from the last night
 * (bench/prices.h). Each bench run records which llama-bench process it came
 * from (runs.invocation: the id of that process's first run, unique in the
 * store whatever the session ids; NULL for imported runs and runs recorded
 * before the column), so the runs one shared process was split into
 * (`-fa 1,0,0,1`: four runs) are priced as one process.
 * Not for the cost model (bench/cost.h) or recording runs (store_runs.c). */
#ifndef LVD_STORE_PRICES_H
#define LVD_STORE_PRICES_H

#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/* Marks run_id as coming from the llama-bench process whose first run is
 * `invocation` (a run id; run_id itself for the first). */
int store_run_set_invocation(store *s, int64_t run_id, int64_t invocation, lvd_err *err);

/* One ok run of an arm in the session priced, with its process's price. */
typedef struct store_price {
    int64_t invocation;            /* the process (its first run's id) */
    double fixed_ms;               /* the process: its runs' wall minus their kept samples' ns */
    int reps;                      /* this run: the most samples of one of the tests asked */
    double samples_ms;             /* this run: every sample's ns of the tests asked */
    double longest_ms;             /* this run: its longest sample of those tests */
    int dropped;                   /* this run: its samples of those tests dropped as warm-up */
} store_price;

typedef struct store_prices {
    char *session;                 /* NULL when no earlier session ran the arm */
    int64_t started_at;            /* the session's first run of the arm (epoch s) */
    store_price *v;
    size_t n;
} store_prices;

/* The newest session other than not_session (by its last run) with ok bench
 * runs of arm_key on engine_id, host and artifact, and those runs with their
 * processes' prices, samples counted over the tests named (n_tests of them).
 * At most one session and STORE_PRICES_MAX_RUNS runs (the newest) are read.
 * 0 (out->session NULL when there is none), or -1 with err. */
#define STORE_PRICES_MAX_RUNS 64
int store_prices_last(store *s, const char *artifact, const char *host, int64_t engine_id, const char *arm_key,
                      const char *not_session, const char *const *tests, size_t n_tests, store_prices *out,
                      lvd_err *err);
void store_prices_free(store_prices *p);

#endif
