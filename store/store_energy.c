/* store_energy.c: the energy of a result's timed repetitions (table
 * result_energy, schema migration "11"), written beside the result and read
 * back into lvd_result.energy. Not for measuring it (energy/). */
#include "store/store_energy.h"

#include "store/store_internal.h"

#include <math.h>
#include <string.h>

int store_energy_put(store *s, const lvd_result *x, lvd_err *err)
{
    const lvd_energy *e = &x->energy;
    if (!e->measured && !e->source[0])
        return 0; /* no source at all: nothing to record */
    store_stmt *st;
    if (store_prepare(s, "INSERT INTO result_energy (result_id, source, device, joules, window_s,"
                         " idle_watts, note) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(result_id) DO UPDATE SET"
                         " source = excluded.source, device = excluded.device, joules = excluded.joules,"
                         " window_s = excluded.window_s, idle_watts = excluded.idle_watts, note = excluded.note", &st, err))
        return -1;
    store_bind_i64(st, 1, x->id);
    store_bind_text(st, 2, e->source);
    store_bind_text(st, 3, e->device);
    if (e->measured) {
        store_bind_double(st, 4, e->joules);
        store_bind_double(st, 5, e->window_s);
    }
    if (e->measured && isfinite(e->idle_watts))
        store_bind_double(st, 6, e->idle_watts);
    store_bind_text(st, 7, e->note);
    return store_step_done(s, st, "cannot record energy", err);
}

void store_energy_col(store_stmt *st, int first, lvd_result *x)
{
    lvd_energy *e = &x->energy;
    memset(e, 0, sizeof *e);
    e->idle_watts = NAN;
    if (store_col_null(st, first))
        return; /* no row: not measured */
    store_col_copy(st, first, e->source, sizeof e->source);
    store_col_copy(st, first + 1, e->device, sizeof e->device);
    e->joules = store_col_double(st, first + 2);
    e->window_s = store_col_double(st, first + 3);
    e->idle_watts = store_col_double(st, first + 4);
    store_col_copy(st, first + 5, e->note, sizeof e->note);
    e->measured = isfinite(e->joules) && isfinite(e->window_s);
}
