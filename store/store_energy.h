/* store_energy.h: a result's energy in the store (issue 20); store_runs.c
 * calls these beside each result. Not for measuring (energy/). */
#ifndef LVD_STORE_ENERGY_H
#define LVD_STORE_ENERGY_H

#include "common/types.h"
#include "store/store.h"

/* Records x->energy for result x->id (nothing when it carries no source). */
int store_energy_put(store *s, const lvd_result *x, lvd_err *err);
/* Fills x->energy from the store (not measured when there is no row). */
int store_energy_load(store *s, lvd_result *x, lvd_err *err);

#endif
