/* store_runs.c: llama-bench runs with their results (one per test) and every
 * repetition's sample (packed in the result's row: store_samples.h; the
 * reported object's shared head: store_reported.h), written in one
 * transaction and read back with filters.
 * Not for parsing llama-bench output (benchio/benchout.c) or statistics (select/). */
#include "store/bisectdb.h"
#include "store/store_cols.h"
#include "store/store_energy.h"
#include "store/store_internal.h"
#include "store/store_reported.h"
#include "store/store_samples.h"


#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A run's columns, in the order of the runs table's INSERT and SELECT. */
#define RUN_COL(FIELD, KIND, NAME) STORE_COL(lvd_run, FIELD, KIND, NAME, STORE_COL_RW)
static const store_col run_cols[] = {
    STORE_COL(lvd_run, id, STORE_COL_I64, "id", STORE_COL_R),
    RUN_COL(artifact, STORE_COL_CHARS, "artifact"),
    RUN_COL(engine_id, STORE_COL_I64, "engine_id"),
    RUN_COL(binary, STORE_COL_TEXT, "\"binary\""),
    RUN_COL(build, STORE_COL_TEXT, "build"),
    RUN_COL(host, STORE_COL_TEXT, "host"),
    RUN_COL(session, STORE_COL_TEXT, "session"),
    RUN_COL(arm_key, STORE_COL_TEXT, "arm_key"),
    RUN_COL(params, STORE_COL_PARAMS,
            "p_device, p_ngl, p_fa, p_ubatch, p_type_k, p_type_v, p_n_cpu_moe, p_threads, p_env"),
    RUN_COL(build_commit, STORE_COL_TEXT, "build_commit"),
    RUN_COL(build_number, STORE_COL_I64, "build_number"),
    RUN_COL(status, STORE_COL_CHARS, "status"),
    RUN_COL(reason, STORE_COL_TEXT, "reason"),
    RUN_COL(exit_code, STORE_COL_INT, "exit_code"),
    RUN_COL(stderr_tail, STORE_COL_TEXT, "stderr_tail"),
    RUN_COL(started_at, STORE_COL_I64, "started_at"),
    RUN_COL(wall_ms, STORE_COL_I64, "wall_ms"),
    RUN_COL(source, STORE_COL_CHARS, "source"),
    RUN_COL(params, STORE_COL_SPLIT, "p_split_mode, p_tensor_split"),
    RUN_COL(params, STORE_COL_FIT, "p_fit_target, p_fit_ctx"),
    STORE_COL(lvd_run, uid, STORE_COL_UID, "uid", STORE_COL_W), /* r's own (a merged run keeps it), else new */
    RUN_COL(left_out, STORE_COL_TEXT, "left_out"),
    RUN_COL(params, STORE_COL_PARALLEL, "p_parallel"),
    STORE_COL_KNOBS(lvd_run),
};
#define N_RUN_COLS LVD_ARRAY_LEN(run_cols)

/* A result's columns, in the order of the results table's INSERT and of
 * the SELECT that joins its energy: its run, its reported object (written
 * as the tail of its shared head, read back whole), the sample count, the
 * packed samples and the head are bound by hand, the energy read by
 * store_energy_col and the samples decoded by hand. */
#define RESULT_COL(FIELD, KIND) STORE_COL(lvd_result, FIELD, KIND, #FIELD, STORE_COL_RW)
static const store_col result_cols[] = {
    STORE_COL(lvd_result, id, STORE_COL_I64, "id", STORE_COL_R),
    {.name = "run_id", .kind = STORE_COL_HAND, .use = STORE_COL_W},
    RESULT_COL(test, STORE_COL_CHARS),
    RESULT_COL(n_prompt, STORE_COL_INT),
    RESULT_COL(n_gen, STORE_COL_INT),
    RESULT_COL(n_depth, STORE_COL_INT),
    RESULT_COL(backends, STORE_COL_CHARS),
    RESULT_COL(rep_ngl, STORE_COL_INT),
    RESULT_COL(rep_fa, STORE_COL_INT),
    RESULT_COL(rep_ubatch, STORE_COL_INT),
    RESULT_COL(rep_n_cpu_moe, STORE_COL_INT),
    RESULT_COL(rep_threads, STORE_COL_INT),
    RESULT_COL(rep_type_k, STORE_COL_CHARS),
    RESULT_COL(rep_type_v, STORE_COL_CHARS),
    {.name = "reported_json", .kind = STORE_COL_HAND, .use = STORE_COL_W},
    {.name = "reported", .read = STORE_REPORTED_SQL, .kind = STORE_COL_TEXT,
     .off = offsetof(lvd_result, reported_json), .use = STORE_COL_R},
    {.name = "n_samples", .kind = STORE_COL_HAND, .use = STORE_COL_W},
    {.name = "energy", .read = "e.source, e.device, e.joules, e.window_s, e.idle_watts, e.note",
     .kind = STORE_COL_HAND, .use = STORE_COL_R, .n = 6},
    {.name = "samples", .kind = STORE_COL_HAND, .use = STORE_COL_RW},
    {.name = "reported_head", .kind = STORE_COL_HAND, .use = STORE_COL_W},
};
#define N_RESULT_COLS LVD_ARRAY_LEN(result_cols)
#define RESULT_AT(USE, FIRST, NAME) store_cols_at(result_cols, N_RESULT_COLS, USE, FIRST, NAME)

/* Binds the result columns of x (all but run_id); -1 with err when its
 * samples cannot be packed or its head recorded. */
static int bind_result(store *s, store_stmt *res, store_reported_writer *w, const lvd_result *x, lvd_err *err)
{
    int64_t head;
    const char *tail;
    const int sizes[3] = {x->n_prompt, x->n_gen, x->n_depth};
    if (store_reported_split(s, w, x->reported_json, sizes, &head, &tail, err))
        return -1;
    char *samples = store_samples_encode(s->path, x, err);
    if (!samples)
        return -1;
    store_cols_bind(res, 1, result_cols, N_RESULT_COLS, x);
    store_bind_text(res, RESULT_AT(STORE_COL_W, 1, "reported_json"), tail);
    store_bind_i64(res, RESULT_AT(STORE_COL_W, 1, "n_samples"), (int64_t)x->n);
    store_bind_text(res, RESULT_AT(STORE_COL_W, 1, "samples"), samples);
    store_bind_i64_or_null(res, RESULT_AT(STORE_COL_W, 1, "reported_head"), head, 0);
    free(samples);
    return 0;
}

/* The results of r, each with its samples packed (store_samples.h). */
static int put_results(store *s, lvd_run *r, lvd_err *err)
{
    store_stmt *res;
    lvd_sb sql = {0};
    store_cols_insert_sql(&sql, "results", result_cols, N_RESULT_COLS);
    int prepared = store_prepare(s, lvd_sb_str(&sql), &res, err);
    lvd_sb_free(&sql);
    if (prepared)
        return -1;
    store_reported_writer w = {0};
    int ret = 0;
    for (size_t i = 0; i < r->n_results && !ret; i++) {
        lvd_result *x = &r->results[i];
        store_bind_i64(res, RESULT_AT(STORE_COL_W, 1, "run_id"), r->id);
        if (bind_result(s, res, &w, x, err)) {
            ret = -1;
        } else if (store_step(res) != STORE_DONE) {
            ret = store_fail(s, err, "cannot record result");
        } else {
            x->id = store_last_id(s);
            ret = store_energy_put(s, x, err);
        }
        store_reset(res);
    }
    store_reported_close(&w);
    store_finalize(res);
    return ret;
}

/* run_alloc: per device, what llama.cpp allocated and placement predicted. */
static int put_alloc(store *s, const lvd_run *r, lvd_err *err)
{
    if (!r->n_alloc)
        return 0;
    store_stmt *st;
    if (store_prepare(s, "INSERT INTO run_alloc (run_id, device, model, kv, compute,"
                         " pred_model, pred_kv, pred_compute) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                         " ON CONFLICT(run_id, device) DO UPDATE SET model = excluded.model, kv = excluded.kv,"
                         " compute = excluded.compute, pred_model = excluded.pred_model,"
                         " pred_kv = excluded.pred_kv, pred_compute = excluded.pred_compute",
                      &st, err))
        return -1;
    for (size_t i = 0; i < r->n_alloc; i++) {
        const lvd_alloc *a = &r->alloc[i];
        store_bind_i64(st, 1, r->id);
        store_bind_text(st, 2, a->device);
        const int64_t v[] = {a->model, a->kv, a->compute, a->pred_model, a->pred_kv, a->pred_compute};
        for (int k = 0; k < 6; k++)
            store_bind_i64_or_null(st, 3 + k, v[k], -1);
        if (store_step(st) != STORE_DONE) {
            store_finalize(st);
            return store_fail(s, err, "cannot record allocations");
        }
        store_reset(st);
    }
    store_finalize(st);
    return 0;
}

static int load_alloc(store *s, lvd_run *runs, size_t n, lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(s, "SELECT device, model, kv, compute, pred_model, pred_kv, pred_compute"
                         " FROM run_alloc WHERE run_id = ? ORDER BY device", &st, err))
        return -1;
    for (size_t i = 0; i < n; i++) {
        lvd_run *r = &runs[i];
        store_bind_i64(st, 1, r->id);
        while (store_step(st) == STORE_ROW) {
            r->alloc = lvd_xrealloc(r->alloc, (r->n_alloc + 1) * sizeof *r->alloc);
            lvd_alloc *a = &r->alloc[r->n_alloc++];
            store_col_copy(st, 0, a->device, sizeof a->device);
            int64_t *f[] = {&a->model, &a->kv, &a->compute, &a->pred_model, &a->pred_kv, &a->pred_compute};
            for (int k = 0; k < 6; k++)
                *f[k] = store_col_i64_or(st, 1 + k, -1);
        }
        store_reset(st);
    }
    store_finalize(st);
    return 0;
}

static void clear_ids(lvd_run *r)
{
    r->id = 0;
    for (size_t i = 0; i < r->n_results; i++)
        r->results[i].id = 0;
}

int store_run_put(store *s, lvd_run *r, lvd_err *err)
{
    if (!r->arm_key || !*r->arm_key)
        return lvd_errf(err, "%s: a run needs an arm key", s->path);
    if (r->started_at == 0)
        r->started_at = lvd_now();
    if (store_begin(s, err))
        return -1;
    store_stmt *st;
    if (store_cols_insert(s, "runs", run_cols, N_RUN_COLS, r, &st, err))
        goto fail;
    if (store_step_done(s, st, "cannot record run", err))
        goto fail;
    r->id = store_last_id(s);
    if (put_results(s, r, err) || put_alloc(s, r, err) || store_commit(s, err))
        goto fail;
    return 0;
fail:
    store_rollback(s);
    clear_ids(r);
    return -1;
}

/* --- reading ------------------------------------------------------------- */

static void col_run(store_stmt *st, void *item)
{
    lvd_run *r = item;
    memset(r, 0, sizeof *r);
    store_cols_read(st, 0, run_cols, N_RUN_COLS, r);
}

static void col_result(store_stmt *st, lvd_result *x)
{
    memset(x, 0, sizeof *x);
    store_cols_read(st, 0, result_cols, N_RESULT_COLS, x);
}

static int load_results(store *s, lvd_run *runs, size_t n, lvd_err *err)
{
    store_stmt *res;
    lvd_sb sql = {0};
    lvd_sb_adds(&sql, "SELECT ");
    store_cols_names(&sql, result_cols, N_RESULT_COLS, STORE_COL_R, "r.");
    lvd_sb_adds(&sql, " FROM results r LEFT JOIN result_energy e ON e.result_id = r.id"
                      " LEFT JOIN reported_heads h ON h.id = r.reported_head WHERE r.run_id = ?1 ORDER BY r.id");
    int prepared = store_prepare(s, lvd_sb_str(&sql), &res, err);
    lvd_sb_free(&sql);
    if (prepared)
        return -1;
    int ret = 0;
    for (size_t i = 0; i < n && !ret; i++) {
        lvd_run *r = &runs[i];
        store_bind_i64(res, 1, r->id);
        size_t cap = 0;
        int rc = STORE_DONE;
        while (!ret && (rc = store_step(res)) == STORE_ROW) {
            r->results = store_grow(r->results, sizeof *r->results, r->n_results, &cap);
            lvd_result *x = &r->results[r->n_results++];
            col_result(res, x);
            store_energy_col(res, RESULT_AT(STORE_COL_R, 0, "energy"), x);
            ret = store_samples_decode(s->path, store_col_text(res, RESULT_AT(STORE_COL_R, 0, "samples")), x, err);
        }
        store_reset(res);
        if (!ret && rc != STORE_DONE)
            ret = store_fail(s, err, "cannot read results");
    }
    store_finalize(res);
    return ret;
}

static void free_run(void *r)
{
    lvd_run_free(r);
}

/* The listing statement of filter f, parameters bound. Only the filters
 * that are set appear in the WHERE clause (a "?1 IS NULL OR artifact = ?1"
 * term keeps SQLite off every index: a full scan of the runs each time), so
 * runs_arm (host, artifact, engine_id, arm_key, started_at), runs_night,
 * runs_session and runs_started serve the query. Newest first when limited: a plain ORDER BY
 * on started_at. A hunt's sessions (STORE_HUNT_SESSION_PREFIX) are left out
 * unless one is asked for by name. */
static int prepare_list(store *s, const store_run_filter *f, store_stmt **st, lvd_err *err)
{
    lvd_sb sql = {0};
    lvd_sb_adds(&sql, "SELECT ");
    store_cols_names(&sql, run_cols, N_RUN_COLS, STORE_COL_R, NULL);
    lvd_sb_adds(&sql, " FROM runs WHERE started_at >= ?7");
    if (f->serving) /* serving runs (lvd serve) or llama-bench's: runs_serving, or a filter */
        lvd_sb_adds(&sql, f->serving > 0 ? " AND p_parallel > 0" : " AND p_parallel = 0");
    if (f->artifact)
        lvd_sb_adds(&sql, " AND artifact = ?1");
    if (f->host)
        lvd_sb_adds(&sql, " AND host = ?2");
    /* with a session named, the engine and arm are filters beside runs_night
     * (host, session): written as expressions no index serves, or the planner
     * walks the arm's every night on runs_arm */
    if (f->engine_id)
        lvd_sb_adds(&sql, f->session ? " AND engine_id + 0 = ?3" : " AND engine_id = ?3");
    if (f->arm_key)
        lvd_sb_adds(&sql, f->session ? " AND arm_key || '' = ?4" : " AND arm_key = ?4");
    if (f->session)
        lvd_sb_adds(&sql, " AND session = ?5");
    else
        lvd_sb_adds(&sql, " AND (session IS NULL OR session NOT LIKE '" STORE_HUNT_SESSION_PREFIX "%')");
    if (f->status)
        lvd_sb_adds(&sql, " AND status = ?6");
    lvd_sb_adds(&sql, f->limit > 0 ? " ORDER BY started_at DESC, id DESC LIMIT ?9" : " ORDER BY started_at, id");
    int rc = store_prepare(s, lvd_sb_str(&sql), st, err);
    lvd_sb_free(&sql);
    if (rc)
        return -1;
    /* unnamed numbers stay unbound: binding a parameter the text lacks is
     * an error the seam ignores */
    store_bind_text(*st, 1, f->artifact);
    store_bind_text(*st, 2, f->host);
    store_bind_i64(*st, 3, f->engine_id);
    store_bind_text(*st, 4, f->arm_key);
    store_bind_text(*st, 5, f->session);
    store_bind_text(*st, 6, f->status);
    store_bind_i64(*st, 7, f->since);
    store_bind_int(*st, 9, f->limit > 0 ? f->limit : -1);
    return 0;
}

int store_run_list(store *s, const store_run_filter *f, lvd_run **out, size_t *n, lvd_err *err)
{
    static const store_run_filter any = {0};
    if (!f)
        f = &any;
    *out = NULL;
    *n = 0;
    store_stmt *st;
    if (prepare_list(s, f, &st, err))
        return -1;
    void *v;
    if (store_rows(s, st, sizeof **out, col_run, free_run, "cannot list runs", &v, n, err))
        return -1;
    if ((f->with_samples && load_results(s, v, *n, err)) || load_alloc(s, v, *n, err)) {
        store_run_list_free(v, *n);
        *n = 0;
        return -1;
    }
    *out = v;
    return 0;
}

int store_run_load_results(store *s, lvd_run *runs, size_t n, lvd_err *err)
{
    return n ? load_results(s, runs, n, err) : 0;
}

void store_run_list_free(lvd_run *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        lvd_run_free(&v[i]);
    free(v);
}
