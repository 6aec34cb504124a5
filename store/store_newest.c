/* store_newest.c: each arm's newest session (see store_newest.h). One query:
 * the distinct arms of the host from the runs_arm index (schema migration
 * "indexes"), then per arm one seek to its newest run on the same index (one
 * arm named whole: that seek alone). */
#include "store/store_newest.h"

#include "store/bisectdb.h"
#include "store/store_internal.h"

#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void col_arm(store_stmt *st, void *item)
{
    store_arm_session *a = item;
    memset(a, 0, sizeof *a);
    store_col_copy(st, 0, a->artifact, sizeof a->artifact);
    a->engine_id = store_col_i64(st, 1);
    a->arm_key = store_col_strdup(st, 2);
    a->session = store_col_strdup(st, 3);
}

static void free_arm(void *item)
{
    store_arm_session *a = item;
    free(a->arm_key);
    free(a->session);
}

/* The order of the list: artifact, engine id, arm key, text bytewise (in C:
 * a database's collation need not be bytewise). */
static int cmp_key(const store_arm_session *a, const char *artifact, int64_t engine_id, const char *arm_key)
{
    int c = strcmp(a->artifact, artifact);
    if (c)
        return c;
    if (a->engine_id != engine_id)
        return a->engine_id < engine_id ? -1 : 1;
    return strcmp(a->arm_key ? a->arm_key : "", arm_key ? arm_key : "");
}

static int cmp_arms(const void *pa, const void *pb)
{
    const store_arm_session *b = pb;
    return cmp_key(pa, b->artifact, b->engine_id, b->arm_key);
}

/* The newest run of one arm named whole (lvd select's read): a seek to the
 * arm's last entry on runs_arm, past a hunt's. */
#define NEWEST_OF_ONE_ARM                                                                               \
    "SELECT artifact, engine_id, arm_key, session FROM runs WHERE host = ?2 AND artifact = ?1"          \
    " AND engine_id = ?3 AND arm_key = ?4 AND (session IS NULL OR session NOT LIKE '"                   \
    STORE_HUNT_SESSION_PREFIX "%') ORDER BY started_at DESC, id DESC LIMIT 1"

int store_arm_newest_sessions(store *s, const char *artifact, const char *host, int64_t engine_id,
                              const char *arm_key, store_arm_session **out, size_t *n, lvd_err *err)
{
    *out = NULL;
    *n = 0;
    lvd_sb sql = {0};
    if (artifact && engine_id && arm_key)
        lvd_sb_adds(&sql, NEWEST_OF_ONE_ARM);
    else {
        /* only the filters that are set (a "?1 IS NULL OR" term keeps the planner off the index) */
        lvd_sb_adds(&sql, "SELECT a.artifact, a.engine_id, a.arm_key, t.session FROM (SELECT d.artifact, d.engine_id,"
                          " d.arm_key, (SELECT n.id FROM runs n WHERE n.host = ?2 AND n.artifact = d.artifact"
                          " AND n.engine_id = d.engine_id AND n.arm_key = d.arm_key AND (n.session IS NULL OR"
                          " n.session NOT LIKE '" STORE_HUNT_SESSION_PREFIX "%') ORDER BY n.started_at DESC,"
                          " n.id DESC LIMIT 1) AS newest FROM (SELECT DISTINCT artifact, engine_id, arm_key"
                          " FROM runs WHERE host = ?2");
        if (artifact)
            lvd_sb_adds(&sql, " AND artifact = ?1");
        if (engine_id)
            lvd_sb_adds(&sql, " AND engine_id = ?3");
        if (arm_key)
            lvd_sb_adds(&sql, " AND arm_key = ?4");
        lvd_sb_adds(&sql, ") d) a JOIN runs t ON t.id = a.newest");
    }
    store_stmt *st;
    int rc = store_prepare(s, lvd_sb_str(&sql), &st, err);
    lvd_sb_free(&sql);
    if (rc)
        return -1;
    store_bind_text(st, 1, artifact);
    store_bind_text(st, 2, host);
    store_bind_i64(st, 3, engine_id);
    store_bind_text(st, 4, arm_key);
    void *v;
    if (store_rows(s, st, sizeof **out, col_arm, free_arm, "cannot read the arms' newest sessions", &v, n, err))
        return -1;
    *out = v;
    if (*n > 1)
        qsort(*out, *n, sizeof **out, cmp_arms);
    return 0;
}

const store_arm_session *store_arm_session_find(const store_arm_session *v, size_t n, const char *artifact,
                                                int64_t engine_id, const char *arm_key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_key(&v[mid], artifact, engine_id, arm_key);
        if (c == 0)
            return &v[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

void store_arm_sessions_free(store_arm_session *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free_arm(&v[i]);
    free(v);
}

/* A named session is read on runs_night (host, session), the engine and arm
 * filtered beside it, as store_run_list reads one. */
#define SHAPE_SQL                                                                                              \
    "SELECT r.id, r.status, r.started_at, x.test, x.n_prompt, x.n_gen, x.n_depth, x.backends FROM runs r"      \
    " LEFT JOIN results x ON x.run_id = r.id WHERE r.host = ?1 AND r.artifact = ?3"
#define SHAPE_ORDER " ORDER BY r.started_at, r.id, x.id"

/* Row of SHAPE_SQL into the run it belongs to: a new one when its id is not the last's. */
static void shape_row(store_stmt *st, const store_arm_session *a, const char *host, lvd_run **v, size_t *n,
                      size_t *cap)
{
    int64_t id = store_col_i64(st, 0);
    if (!*n || (*v)[*n - 1].id != id) {
        if (*n == *cap) {
            *cap = *cap ? *cap * 2 : 8;
            *v = lvd_xrealloc(*v, *cap * sizeof **v);
        }
        lvd_run *r = &(*v)[(*n)++];
        memset(r, 0, sizeof *r);
        r->id = id;
        snprintf(r->artifact, sizeof r->artifact, "%s", a->artifact);
        r->engine_id = a->engine_id;
        r->arm_key = lvd_xstrdup(a->arm_key ? a->arm_key : "");
        r->session = a->session ? lvd_xstrdup(a->session) : NULL;
        r->host = lvd_xstrdup(host);
        store_col_copy(st, 1, r->status, sizeof r->status);
        r->started_at = store_col_i64(st, 2);
    }
    lvd_run *r = &(*v)[*n - 1];
    if (store_col_null(st, 3))
        return; /* a run without results */
    r->results = lvd_xrealloc(r->results, (r->n_results + 1) * sizeof *r->results);
    lvd_result *x = &r->results[r->n_results++];
    memset(x, 0, sizeof *x);
    store_col_copy(st, 3, x->test, sizeof x->test);
    x->n_prompt = store_col_int(st, 4);
    x->n_gen = store_col_int(st, 5);
    x->n_depth = store_col_int(st, 6);
    store_col_copy(st, 7, x->backends, sizeof x->backends);
}

int store_arm_session_shape(store *s, const store_arm_session *a, const char *host, lvd_run **out, size_t *n,
                            lvd_err *err)
{
    *out = NULL;
    *n = 0;
    const char *sql = a->session ? SHAPE_SQL " AND r.session = ?2 AND r.engine_id + 0 = ?4 AND r.arm_key || '' = ?5"
                                             SHAPE_ORDER
                                 : SHAPE_SQL " AND r.session IS NULL AND r.engine_id = ?4 AND r.arm_key = ?5"
                                             SHAPE_ORDER;
    store_stmt *st;
    if (store_prepare(s, sql, &st, err))
        return -1;
    store_bind_text(st, 1, host);
    store_bind_text(st, 2, a->session);
    store_bind_text(st, 3, a->artifact);
    store_bind_i64(st, 4, a->engine_id);
    store_bind_text(st, 5, a->arm_key ? a->arm_key : "");
    size_t cap = 0;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW)
        shape_row(st, a, host, out, n, &cap);
    store_finalize(st);
    if (rc != STORE_DONE) {
        store_run_list_free(*out, *n);
        *out = NULL;
        *n = 0;
        return store_fail(s, err, "cannot read the arm's runs");
    }
    return 0;
}
