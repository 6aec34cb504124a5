/* store_imported.c: whether an imported run is already in the store (see
 * store.h, store_run_imported): one indexed query on the run's start, no
 * results or samples loaded, so re-importing a file costs what importing it
 * did. Not for listing runs (store_runs.c). */
#include "store/store_internal.h"

#include <stdlib.h>
#include <string.h>

int store_run_imported(store *s, const lvd_run *r, char **session, lvd_err *err)
{
    *session = NULL;
    lvd_sb tests = {0};
    for (size_t i = 0; i < r->n_results; i++) {
        if (i)
            lvd_sb_addc(&tests, ',');
        lvd_sb_adds(&tests, r->results[i].test);
    }
    store_stmt *st;
    /* started_at = ? is served by runs_started; the tests in id order, as stored */
    if (store_prepare(s,
                      "SELECT r.session, (SELECT group_concat(test, ',') FROM"
                      "   (SELECT test FROM results WHERE run_id = r.id ORDER BY id))"
                      " FROM runs r WHERE r.started_at = ?1 AND r.artifact = ?2 AND r.engine_id = ?3"
                      " AND r.arm_key = ?4 AND r.source = 'import'",
                      &st, err)) {
        lvd_sb_free(&tests);
        return -1;
    }
    store_bind_i64(st, 1, r->started_at);
    store_bind_text(st, 2, r->artifact);
    store_bind_i64(st, 3, r->engine_id);
    store_bind_text(st, 4, r->arm_key);
    int rc, found = 0;
    while (!found && (rc = store_step(st)) == STORE_ROW) {
        const char *t = store_col_text(st, 1);
        if (strcmp(t ? t : "", lvd_sb_str(&tests)))
            continue;
        found = 1;
        *session = store_col_strdup(st, 0);
        if (!*session)
            *session = lvd_xstrdup("");
    }
    if (!found && rc != STORE_DONE) {
        store_fail(s, err, "cannot look up imported runs");
        found = -1;
    }
    store_finalize(st);
    lvd_sb_free(&tests);
    return found;
}
