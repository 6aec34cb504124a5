/* store_energy.h: a result's energy in the store; store_runs.c
 * calls these beside each result. Not for measuring (energy/). */
#ifndef LVD_STORE_ENERGY_H
#define LVD_STORE_ENERGY_H

#include "common/types.h"
#include "store/store.h"

/* Records x->energy for result x->id (nothing when it carries no source). */
int store_energy_put(store *s, const lvd_result *x, lvd_err *err);
/* Fills x->energy from columns first .. first + 5 of st (source, device,
 * joules, window_s, idle_watts, note of a LEFT JOIN on result_energy; a NULL
 * source: no row, not measured), so results and their energy are read in one
 * query. */
struct store_stmt;
void store_energy_col(struct store_stmt *st, int first, lvd_result *x);

#endif
