/* check_item.h: building a check report, shared by the live session
 * (check.c, which defines these) and lvd check --import (check_import.c);
 * private to those files. Not for callers of the check session (check.h). */
#ifndef LVD_BENCH_CHECK_ITEM_H
#define LVD_BENCH_CHECK_ITEM_H

#include "bench/check.h"

/* Appends an item for engine e (device dev, NULL for the CPU) to r, its
 * check identified by o's artifact and host, statistics NAN, no status. */
bench_check_item *bench_check_add_item(bench_check_report *r, const lvd_engine *e, const char *backend,
                                       const lvd_device *dev, const bench_check_opts *o);

/* Counts its status in r and records its check in the store. */
int bench_check_record(store *s, bench_check_report *r, bench_check_item *it, lvd_err *err);

/* The CPU reference's record: its perplexity, against itself; status
 * "base" with reason (owned). */
void bench_check_set_base(lvd_check *c, double ppl, char *reason);

#endif
