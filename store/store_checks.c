/* store_checks.c: correctness checks of a device against the CPU reference for
 * an artifact. Not for running llama-perplexity or judging tolerances (bench/). */
#include "store/store_cols.h"

#include <stdlib.h>
#include <string.h>

/* A check's columns, in the order of the checks table's INSERT and SELECT;
 * a figure not measured (NAN) is SQL NULL and reads back as NAN. */
#define CHECK_COL(FIELD, KIND) STORE_COL(lvd_check, FIELD, KIND, #FIELD, STORE_COL_RW)
static const store_col check_cols[] = {
    STORE_COL(lvd_check, id, STORE_COL_I64, "id", STORE_COL_R),
    CHECK_COL(artifact, STORE_COL_CHARS),
    CHECK_COL(engine_id, STORE_COL_I64),
    CHECK_COL(device, STORE_COL_CHARS),
    CHECK_COL(host, STORE_COL_TEXT),
    CHECK_COL(ran_at, STORE_COL_I64),
    CHECK_COL(status, STORE_COL_CHARS),
    CHECK_COL(mean_kld, STORE_COL_DOUBLE),
    CHECK_COL(same_top_p, STORE_COL_DOUBLE),
    CHECK_COL(ppl, STORE_COL_DOUBLE),
    CHECK_COL(ppl_base, STORE_COL_DOUBLE),
    CHECK_COL(ppl_ratio, STORE_COL_DOUBLE),
    CHECK_COL(reason, STORE_COL_TEXT),
    CHECK_COL(env, STORE_COL_CHARS),
};
#define N_CHECK_COLS LVD_ARRAY_LEN(check_cols)

/* Prepares "SELECT <a check's columns> FROM checks" then tail. */
static int prepare_select(store *s, const char *tail, store_stmt **st, lvd_err *err)
{
    return store_cols_select(s, "checks", check_cols, N_CHECK_COLS, tail, st, err);
}

static void col_check(store_stmt *st, void *item)
{
    lvd_check *c = item;
    memset(c, 0, sizeof *c);
    store_cols_read(st, 0, check_cols, N_CHECK_COLS, c);
}

int store_check_put(store *s, lvd_check *c, lvd_err *err)
{
    if (c->ran_at == 0)
        c->ran_at = lvd_now();
    store_stmt *st;
    if (store_cols_insert(s, "checks", check_cols, N_CHECK_COLS, c, &st, err))
        return -1;
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
    if (prepare_select(s,
                       " WHERE artifact = ? AND host = ? AND engine_id = ? AND device = ?"
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
    if (prepare_select(s, " WHERE artifact = ? ORDER BY ran_at DESC, id DESC", &st, err))
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
