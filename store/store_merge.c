/* store_merge.c: `lvd store merge` (see mergedb.h): the other store opened
 * read-only, one transaction on this one, the engines matched per host,
 * the runs matched by uid and copied through the typed run API (results,
 * samples, energy, allocations land as store_run_put writes them), and the
 * id maps the row-by-row tables (store_merge_rows.c) point through. */
#include "store/prices.h"
#include "store/store_merge_internal.h"

#include "common/uid.h"
#include "common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* --- id maps ----------------------------------------------------------- */

void merge_map_add(merge_map *m, int64_t from, int64_t to)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 64;
        m->from = lvd_xrealloc(m->from, m->cap * sizeof *m->from);
        m->to = lvd_xrealloc(m->to, m->cap * sizeof *m->to);
    }
    m->from[m->n] = from;
    m->to[m->n++] = to;
}

/* The index of the first of v[0..n) (increasing) not below x; n when none. */
static size_t lower_bound(const int64_t *v, size_t n, int64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int64_t merge_map_get(const merge_map *m, int64_t from)
{
    size_t at = lower_bound(m->from, m->n, from);
    return at < m->n && m->from[at] == from ? m->to[at] : 0;
}

void merge_map_free(merge_map *m)
{
    free(m->from);
    free(m->to);
    memset(m, 0, sizeof *m);
}

/* --- engines ------------------------------------------------------------ */

#define ENGINE_COLS \
    "host, name, dir, build, commit_id, flavour, digest, origin, created_at, retired_at, semver, release_tag," \
    " family"

/* This store's id of the other's engine at row (ENGINE_COLS after its id):
 * the engine of that host in that directory, else of that name (the host
 * moved the name to another directory), else a new row. 0 or -1. */
static int map_engine(merge_job *j, store_stmt *row, store_stmt *find, store_stmt *ins, lvd_err *err)
{
    for (int c = 1; c <= 13; c++) {
        store_stmt *to[] = {find, ins};
        for (int i = 0; i < 2; i++) {
            if (store_col_null(row, c))
                store_bind_null(to[i], c);
            else if (c == 9 || c == 10)
                store_bind_i64(to[i], c, store_col_i64(row, c));
            else
                store_bind_text(to[i], c, store_col_text(row, c));
        }
    }
    int rc = store_step(find);
    int64_t id = rc == STORE_ROW ? store_col_i64(find, 0) : 0;
    store_reset(find);
    if (rc == STORE_ERROR)
        return store_fail(j->dst, err, "cannot read engines");
    if (!id) {
        rc = store_step(ins);
        store_reset(ins);
        if (rc != STORE_DONE)
            return store_fail(j->dst, err, "cannot merge an engine");
        id = store_last_id(j->dst);
        j->added->engines++;
    }
    merge_map_add(&j->engines, store_col_i64(row, 0), id);
    return 0;
}

static int merge_engines(merge_job *j, lvd_err *err)
{
    store_stmt *row = NULL, *find = NULL, *ins = NULL;
    int ret = -1, rc;
    if (store_prepare(j->src, "SELECT id, " ENGINE_COLS " FROM engines ORDER BY id", &row, err) ||
        store_prepare(j->dst, "SELECT id FROM engines WHERE host = ?1 AND dir = ?3 UNION ALL"
                      " SELECT id FROM engines WHERE host = ?1 AND name = ?2 LIMIT 1", &find, err) ||
        store_prepare(j->dst, "INSERT INTO engines (" ENGINE_COLS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
                      " ?11, ?12, ?13)",
                      &ins, err))
        goto out;
    while ((rc = store_step(row)) == STORE_ROW)
        if (map_engine(j, row, find, ins, err))
            goto out;
    if (rc != STORE_DONE)
        store_fail(j->src, err, "cannot read engines");
    else
        ret = 0;
out:
    store_finalize(row);
    store_finalize(find);
    store_finalize(ins);
    return ret;
}

/* --- runs ---------------------------------------------------------------- */

/* The other store's runs by id: uid and invocation (0 = none). */
typedef struct src_runs {
    int64_t *id, *invocation;
    char (*uid)[LVD_UID_LEN + 1];
    size_t n;
} src_runs;

static int read_src_runs(merge_job *j, src_runs *r, lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(j->src, "SELECT id, uid, invocation FROM runs ORDER BY id", &st, err))
        return -1;
    size_t cap = 0;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        if (r->n == cap) {
            cap = cap ? cap * 2 : 256;
            r->id = lvd_xrealloc(r->id, cap * sizeof *r->id);
            r->invocation = lvd_xrealloc(r->invocation, cap * sizeof *r->invocation);
            r->uid = lvd_xrealloc(r->uid, cap * sizeof *r->uid);
        }
        r->id[r->n] = store_col_i64(st, 0);
        store_col_copy(st, 1, r->uid[r->n], sizeof r->uid[r->n]);
        r->invocation[r->n++] = store_col_i64_or(st, 2, 0);
    }
    store_finalize(st);
    return rc == STORE_DONE ? 0 : store_fail(j->src, err, "cannot read runs");
}

static void src_runs_free(src_runs *r)
{
    free(r->id);
    free(r->invocation);
    free(r->uid);
}

/* The index of run id in r (read ordered by id). */
static size_t src_index(const src_runs *r, int64_t id)
{
    return lower_bound(r->id, r->n, id);
}

/* This store's id of the run with uid, 0 when it has none. */
static int find_uid(merge_job *j, store_stmt *find, const char *uid, int64_t *id, lvd_err *err)
{
    store_bind_text(find, 1, uid);
    int rc = store_step(find);
    *id = rc == STORE_ROW ? store_col_i64(find, 0) : 0;
    store_reset(find);
    return rc == STORE_ERROR ? store_fail(j->dst, err, "cannot read runs") : 0;
}

/* Writes the other store's run r (results loaded) here under its uid. */
static int put_run(merge_job *j, lvd_run *r, const char *uid, lvd_err *err)
{
    r->engine_id = merge_map_get(&j->engines, r->engine_id);
    if (!r->engine_id)
        return lvd_errf(err, "%s: run %s names an engine the store does not hold", store_path(j->src), uid);
    snprintf(r->uid, sizeof r->uid, "%s", uid);
    for (size_t k = 0; k < r->n_results; k++) {
        lvd_result *x = &r->results[k];
        size_t unknown = 0; /* a sample's ns NULL (imported) reads as -1: keep it NULL */
        for (size_t i = 0; i < x->n && x->ns; i++)
            unknown += x->ns[i] < 0;
        if (x->ns && unknown == x->n) {
            free(x->ns);
            x->ns = NULL;
        }
        j->added->samples += (int64_t)x->n;
    }
    if (store_run_put(j->dst, r, err))
        return -1;
    j->added->runs++;
    j->added->results += (int64_t)r->n_results;
    return 0;
}

/* Drops the results run r was loaded with (a window of runs at a time). */
static void drop_results(lvd_run *r)
{
    for (size_t k = 0; k < r->n_results; k++)
        lvd_result_free(&r->results[k]);
    free(r->results);
    r->results = NULL;
    r->n_results = 0;
}

#define RUN_WINDOW 64

/* Copies the runs of v (bare, as listed) marked todo, RUN_WINDOW at a time
 * with their results; here[k] becomes the new id of the other's run k. */
static int copy_runs(merge_job *j, lvd_run *v, size_t n, const size_t *idx, const unsigned char *todo,
                     const src_runs *sr, int64_t *here, lvd_err *err)
{
    for (size_t at = 0; at < n; at += RUN_WINDOW) {
        size_t len = n - at < RUN_WINDOW ? n - at : RUN_WINDOW, want = 0;
        for (size_t i = at; i < at + len; i++)
            want += todo[i];
        if (!want)
            continue;
        if (store_run_load_results(j->src, v + at, len, err))
            return -1;
        for (size_t i = at; i < at + len; i++) {
            if (todo[i] && put_run(j, &v[i], sr->uid[idx[i]], err))
                return -1;
            if (todo[i])
                here[idx[i]] = v[i].id;
            drop_results(&v[i]);
        }
    }
    return 0;
}

/* Points each copied run at its llama-bench process's first run here. */
static int copy_invocations(merge_job *j, size_t n, const size_t *idx, const unsigned char *todo,
                            const src_runs *sr, const int64_t *here, lvd_err *err)
{
    for (size_t i = 0; i < n; i++) {
        int64_t inv = todo[i] ? sr->invocation[idx[i]] : 0;
        size_t k = inv ? src_index(sr, inv) : sr->n;
        if (k < sr->n && sr->id[k] == inv && here[k] &&
            store_run_set_invocation(j->dst, here[idx[i]], here[k], err))
            return -1;
    }
    return 0;
}

static int merge_runs(merge_job *j, lvd_err *err)
{
    src_runs sr = {0};
    lvd_run *v = NULL;
    size_t n = 0, *idx = NULL;
    int64_t *here = NULL;
    unsigned char *todo = NULL;
    store_stmt *find = NULL;
    store_run_filter f = {0};
    int ret = -1;
    if (read_src_runs(j, &sr, err) || store_run_list(j->src, &f, &v, &n, err) ||
        store_prepare(j->dst, "SELECT id FROM runs WHERE uid = ?1", &find, err))
        goto out;
    here = lvd_xcalloc(sr.n + 1, sizeof *here);
    idx = lvd_xcalloc(n + 1, sizeof *idx);
    todo = lvd_xcalloc(n + 1, 1);
    for (size_t i = 0; i < n; i++) {
        idx[i] = src_index(&sr, v[i].id);
        if (idx[i] >= sr.n || sr.id[idx[i]] != v[i].id || !sr.uid[idx[i]][0]) {
            lvd_errf(err, "%s: run %lld has no uid", store_path(j->src), (long long)v[i].id);
            goto out;
        }
        if (find_uid(j, find, sr.uid[idx[i]], &here[idx[i]], err))
            goto out;
        todo[i] = here[idx[i]] == 0;
    }
    if (copy_runs(j, v, n, idx, todo, &sr, here, err) == 0 && copy_invocations(j, n, idx, todo, &sr, here, err) == 0)
        ret = 0;
out:
    store_finalize(find);
    store_run_list_free(v, n);
    src_runs_free(&sr);
    free(here);
    free(idx);
    free(todo);
    return ret;
}

/* --- the whole ----------------------------------------------------------- */

/* Whether other names the store dst is: the same file, or the same text. */
static int same_store(const char *dst, const char *other)
{
    struct stat a, b;
    if (stat(dst, &a) == 0 && stat(other, &b) == 0)
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
    return strcmp(dst, other) == 0;
}

int store_merge(store *dst, const char *other, store_merge_counts *added, lvd_err *err)
{
    memset(added, 0, sizeof *added);
    if (same_store(store_path(dst), other)) {
        lvd_errf(err, "%s: is the store merged into; a store is not merged into itself (nothing changed)", other);
        return STORE_MERGE_BAD_OTHER;
    }
    store *src;
    if (store_open(other, STORE_OPEN_READONLY, &src, err))
        return STORE_MERGE_BAD_OTHER;
    merge_job j = {.dst = dst, .src = src, .added = added};
    int ret = STORE_MERGE_FAILED;
    if (store_begin(dst, err) == 0) {
        if (merge_artifacts(&j, err) || merge_engines(&j, err) || merge_engine_rows(&j, err) ||
            merge_runs(&j, err) || store_commit(dst, err)) {
            store_rollback(dst);
            memset(added, 0, sizeof *added);
        } else {
            ret = STORE_MERGE_OK;
        }
    }
    merge_map_free(&j.engines);
    merge_map_free(&j.probes);
    store_close(src);
    return ret;
}

void store_merge_fields(const store_merge_counts *c, store_merge_field out[STORE_MERGE_FIELDS])
{
    const store_merge_field f[STORE_MERGE_FIELDS] = {
        {"artifacts", c->artifacts}, {"engines", c->engines},   {"probes", c->probes},
        {"devices", c->devices},     {"runs", c->runs},         {"results", c->results},
        {"samples", c->samples},     {"checks", c->checks},     {"verdicts", c->verdicts},
        {"ceilings", c->ceilings},   {"fit_plans", c->fit_plans}, {"session_facts", c->session_facts},
    };
    memcpy(out, f, sizeof f);
}
