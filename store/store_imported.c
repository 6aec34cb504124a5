/* store_imported.c: whether an imported run is already in the store (see
 * store.h, store_run_imported): one indexed query on the run's start, no
 * samples loaded, so re-importing a file costs what importing it did. Not
 * for listing runs (store_runs.c). */
#include "store/store_internal.h"

#include <stdlib.h>
#include <string.h>

/* Whether run id's results are tests (comma-separated, in id order): 1, 0,
 * or -1 with err. */
static int same_tests(store *s, int64_t id, const char *tests, lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(s, "SELECT test FROM results WHERE run_id = ? ORDER BY id", &st, err))
        return -1;
    store_bind_i64(st, 1, id);
    lvd_sb have = {0};
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        const char *t = store_col_text(st, 0);
        if (have.len)
            lvd_sb_addc(&have, ',');
        lvd_sb_adds(&have, t ? t : "");
    }
    int same = rc == STORE_DONE ? !strcmp(lvd_sb_str(&have), tests) : store_fail(s, err, "cannot look up imported runs");
    store_finalize(st);
    lvd_sb_free(&have);
    return same;
}

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
    /* started_at = ? is served by runs_started */
    if (store_prepare(s,
                      "SELECT r.session, r.id FROM runs r WHERE r.started_at = ?1 AND r.artifact = ?2"
                      " AND r.engine_id = ?3 AND r.arm_key = ?4 AND r.source = 'import' ORDER BY r.id",
                      &st, err)) {
        lvd_sb_free(&tests);
        return -1;
    }
    store_bind_i64(st, 1, r->started_at);
    store_bind_text(st, 2, r->artifact);
    store_bind_i64(st, 3, r->engine_id);
    store_bind_text(st, 4, r->arm_key);
    int rc = STORE_DONE, found = 0;
    while (!found && (rc = store_step(st)) == STORE_ROW) {
        found = same_tests(s, store_col_i64(st, 1), lvd_sb_str(&tests), err);
        if (found == 1) {
            *session = store_col_strdup(st, 0);
            if (!*session)
                *session = lvd_xstrdup("");
        }
    }
    if (!found && rc != STORE_DONE) {
        store_fail(s, err, "cannot look up imported runs");
        found = -1;
    }
    store_finalize(st);
    lvd_sb_free(&tests);
    return found;
}
