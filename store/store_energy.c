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
    sqlite3_stmt *st;
    if (store_prepare(s, "INSERT OR REPLACE INTO result_energy (result_id, source, device, joules, window_s,"
                         " idle_watts, note) VALUES (?, ?, ?, ?, ?, ?, ?)", &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, x->id);
    store_bind_text(st, 2, e->source);
    store_bind_text(st, 3, e->device);
    if (e->measured) {
        sqlite3_bind_double(st, 4, e->joules);
        sqlite3_bind_double(st, 5, e->window_s);
    }
    if (e->measured && isfinite(e->idle_watts))
        sqlite3_bind_double(st, 6, e->idle_watts);
    store_bind_text(st, 7, e->note);
    return store_step_done(s, st, "cannot record energy", err);
}

int store_energy_load(store *s, lvd_result *x, lvd_err *err)
{
    sqlite3_stmt *st;
    if (store_prepare(s, "SELECT source, device, joules, window_s, idle_watts, note FROM result_energy"
                         " WHERE result_id = ?", &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, x->id);
    memset(&x->energy, 0, sizeof x->energy);
    x->energy.idle_watts = NAN;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        lvd_energy *e = &x->energy;
        store_col_copy(st, 0, e->source, sizeof e->source);
        store_col_copy(st, 1, e->device, sizeof e->device);
        e->joules = store_col_double(st, 2);
        e->window_s = store_col_double(st, 3);
        e->idle_watts = store_col_double(st, 4);
        store_col_copy(st, 5, e->note, sizeof e->note);
        e->measured = isfinite(e->joules) && isfinite(e->window_s);
        rc = sqlite3_step(st);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_fail(s, err, "cannot read energy");
    return 0;
}
