/* check_item.h: building a check report, shared by the live session
 * (check.c, which defines these) and lvd check --import (check_import.c);
 * private to those files. Not for callers of the check session (check.h). */
#ifndef LVD_CHECK_CHECK_ITEM_H
#define LVD_CHECK_CHECK_ITEM_H

#include "check/check.h"

/* Appends an item for engine e (device dev, NULL for the CPU) to r, its
 * check identified by o's artifact and host, statistics NAN, no status. */
check_item *check_add_item(check_report *r, const lvd_engine *e, const char *backend,
                                       const lvd_device *dev, const check_opts *o);

/* Counts its status in r and records its check in the store. */
int check_record(store *s, check_report *r, check_item *it, lvd_err *err);

/* The CPU reference's record: its perplexity, against itself; status
 * "base" with reason (owned). */
void check_set_base(lvd_check *c, double ppl, char *reason);

#endif
