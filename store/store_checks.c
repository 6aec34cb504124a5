/* store_checks.c: correctness checks of a device against the CPU reference for
 * an artifact. Not for running llama-perplexity or judging tolerances (bench/). */
#include "store/store_internal.h"

#include <stdlib.h>
#include <string.h>

#define SELECT_CHECK                                                                  \
    "SELECT id, artifact, engine_id, device, host, ran_at, status, mean_kld, same_top_p," \
    " ppl, ppl_base, ppl_ratio, reason, env FROM checks"

static void col_check(store_stmt *st, void *item)
{
    lvd_check *c = item;
    memset(c, 0, sizeof *c);
    c->id = store_col_i64(st, 0);
    store_col_copy(st, 1, c->artifact, sizeof c->artifact);
    c->engine_id = store_col_i64(st, 2);
    store_col_copy(st, 3, c->device, sizeof c->device);
    c->host = store_col_strdup(st, 4);
    c->ran_at = store_col_i64(st, 5);
    store_col_copy(st, 6, c->status, sizeof c->status);
    c->mean_kld = store_col_double(st, 7);
    c->same_top_p = store_col_double(st, 8);
    c->ppl = store_col_double(st, 9);
    c->ppl_base = store_col_double(st, 10);
    c->ppl_ratio = store_col_double(st, 11);
    c->reason = store_col_strdup(st, 12);
    store_col_copy(st, 13, c->env, sizeof c->env);
}

int store_check_put(store *s, lvd_check *c, lvd_err *err)
{
    if (c->ran_at == 0)
        c->ran_at = lvd_now();
    store_stmt *st;
    /* NaN binds as SQL NULL ("not measured") and reads back as NaN. */
    if (store_prepare(s,
                      "INSERT INTO checks (artifact, engine_id, device, host, ran_at, status, mean_kld,"
                      " same_top_p, ppl, ppl_base, ppl_ratio, reason, env)"
                      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      &st, err))
        return -1;
    store_bind_text(st, 1, c->artifact);
    store_bind_i64(st, 2, c->engine_id);
    store_bind_text(st, 3, c->device);
    store_bind_text(st, 4, c->host);
    store_bind_i64(st, 5, c->ran_at);
    store_bind_text(st, 6, c->status);
    store_bind_double(st, 7, c->mean_kld);
    store_bind_double(st, 8, c->same_top_p);
    store_bind_double(st, 9, c->ppl);
    store_bind_double(st, 10, c->ppl_base);
    store_bind_double(st, 11, c->ppl_ratio);
    store_bind_text(st, 12, c->reason);
    store_bind_text(st, 13, c->env);
    if (store_step_done(s, st, "cannot record check", err))
        return -1;
    c->id = store_last_id(s);
    return 0;
}

static int check_latest_one(store *s, const char *artifact, const char *host, int64_t engine_id,
                            const char *device, lvd_check *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    if (store_prepare(s,
                      SELECT_CHECK " WHERE artifact = ? AND host = ? AND engine_id = ? AND device = ?"
                      " ORDER BY ran_at DESC, id DESC LIMIT 1",
                      &st, err))
        return -1;
    store_bind_text(st, 1, artifact);
    store_bind_text(st, 2, host);
    store_bind_i64(st, 3, engine_id);
    store_bind_text(st, 4, device ? device : "");
    int rc = store_step(st);
    int ret = 1;
    if (rc == STORE_ROW) {
        col_check(st, out);
        ret = 0;
    } else if (rc != STORE_DONE) {
        ret = store_fail(s, err, "cannot read check");
    }
    store_finalize(st);
    return ret;
}

int store_check_latest(store *s, const char *artifact, const char *host, int64_t engine_id,
                       const char *device, lvd_check *out, lvd_err *err)
{
    if (!device || !strchr(device, '/'))
        return check_latest_one(s, artifact, host, engine_id, device, out, err);
    size_t n;
    char **part = lvd_split(device, '/', &n);
    int rc = 1;
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            lvd_check_free(out);
        rc = check_latest_one(s, artifact, host, engine_id, part[i], out, err);
        if (rc != 0 || strcmp(out->status, "pass") != 0)
            break;
    }
    lvd_strv_free(part);
    return rc;
}

static void free_check(void *c)
{
    lvd_check_free(c);
}

/* Every check of artifact, newest first. */
int store_check_list(store *s, const char *artifact, lvd_check **out, size_t *n, lvd_err *err)
{
    *out = NULL;
    *n = 0;
    store_stmt *st;
    if (store_prepare(s, SELECT_CHECK " WHERE artifact = ? ORDER BY ran_at DESC, id DESC", &st, err))
        return -1;
    store_bind_text(st, 1, artifact);
    void *v;
    if (store_rows(s, st, sizeof **out, col_check, free_check, "cannot list checks", &v, n, err))
        return -1;
    *out = v;
    return 0;
}

void store_check_list_free(lvd_check *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        lvd_check_free(&v[i]);
    free(v);
}
