/* store.c: the store's life (open, forward migrations, close), nested
 * transactions, and the column and row helpers the other store_*.c files
 * share, all written against store_internal.h's dialect seam (the SQLite
 * side is store_sqlite.c, the PostgreSQL side store_pg*.c). */
#include "store/store_internal.h"
#include "store/schema.h"

#include "common/paths.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *store_default_path(const char *explicit_path)
{
    if (explicit_path && *explicit_path)
        return lvd_xstrdup(explicit_path);
    const char *env = getenv("LVD_STORE");
    if (env && *env)
        return lvd_xstrdup(env);
    return lvd_state_path("store.db");
}

char *store_local_anchor(const char *spec)
{
    if (!store_is_remote(spec))
        return lvd_xstrdup(spec);
    char *name = store_display(spec);
    for (char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-'))
            *p = '_';
    char *rel = lvd_xasprintf("pg-%.120s", name);
    char *path = lvd_state_path(rel);
    free(rel);
    free(name);
    return path;
}

char *store_col_strdup(store_stmt *st, int col)
{
    const char *t = store_col_text(st, col);
    return t ? lvd_xstrdup(t) : NULL;
}

void store_col_copy(store_stmt *st, int col, char *buf, size_t len)
{
    const char *t = store_col_text(st, col);
    snprintf(buf, len, "%s", t ? t : "");
}

double store_col_double(store_stmt *st, int col)
{
    if (store_col_null(st, col))
        return NAN;
    return store_col_real(st, col);
}

void store_bind_params(store_stmt *st, int first, const lvd_params *p)
{
    store_bind_text(st, first + 0, p->device);
    store_bind_int(st, first + 1, p->ngl);
    store_bind_int(st, first + 2, p->fa);
    store_bind_int(st, first + 3, p->ubatch);
    store_bind_text(st, first + 4, p->type_k);
    store_bind_text(st, first + 5, p->type_v);
    store_bind_int(st, first + 6, p->n_cpu_moe);
    store_bind_int(st, first + 7, p->threads);
    store_bind_text(st, first + 8, p->env);
}

void store_col_params(store_stmt *st, int first, lvd_params *p)
{
    lvd_params_init(p);
    store_col_copy(st, first + 0, p->device, sizeof p->device);
    if (!store_col_null(st, first + 1))
        p->ngl = store_col_int(st, first + 1);
    if (!store_col_null(st, first + 2))
        p->fa = store_col_int(st, first + 2);
    p->ubatch = store_col_int(st, first + 3);
    store_col_copy(st, first + 4, p->type_k, sizeof p->type_k);
    store_col_copy(st, first + 5, p->type_v, sizeof p->type_v);
    p->n_cpu_moe = store_col_int(st, first + 6);
    p->threads = store_col_int(st, first + 7);
    store_col_copy(st, first + 8, p->env, sizeof p->env);
}

void store_bind_split(store_stmt *st, int first, const lvd_params *p)
{
    store_bind_text(st, first + 0, p->split_mode);
    store_bind_text(st, first + 1, p->tensor_split);
}

void store_col_split(store_stmt *st, int first, lvd_params *p)
{
    store_col_copy(st, first + 0, p->split_mode, sizeof p->split_mode);
    store_col_copy(st, first + 1, p->tensor_split, sizeof p->tensor_split);
}

void store_bind_fit(store_stmt *st, int first, const lvd_params *p)
{
    store_bind_i64_or_null(st, first, p->fit_target, 0);
    store_bind_i64_or_null(st, first + 1, p->fit_ctx, 0);
}

void store_col_fit(store_stmt *st, int first, lvd_params *p)
{
    p->fit_target = (int)store_col_i64_or(st, first, 0);
    p->fit_ctx = (int)store_col_i64_or(st, first + 1, 0);
}

void store_bind_parallel(store_stmt *st, int col, const lvd_params *p)
{
    store_bind_int(st, col, p->parallel > 0 ? p->parallel : 0);
}

void store_col_parallel(store_stmt *st, int col, lvd_params *p)
{
    p->parallel = (int)store_col_i64_or(st, col, 0);
}

int store_user_version(store *s, int64_t *version, lvd_err *err)
{
    return store_version_get(s, version, err);
}

/* After a step that ran with foreign keys off: 0 when every reference
 * still holds, else -1 naming the first table that breaks one. */
static int foreign_keys_hold(store *s, lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(s, "PRAGMA foreign_key_check", &st, err))
        return -1;
    int rc = store_step(st);
    char table[128] = "";
    if (rc == STORE_ROW)
        store_col_copy(st, 0, table, sizeof table);
    store_finalize(st);
    if (rc == STORE_ROW)
        return lvd_errf(err, "%s: migrating breaks a reference of table %s; the store was not changed", s->path,
                        table);
    return rc == STORE_DONE ? 0 : store_fail(s, err, "cannot check foreign keys");
}

/* Runs the forward migrations from the store's version to this binary's, in
 * one write transaction; a store newer than the binary is refused untouched. */
static int migrate(store *s, lvd_err *err)
{
    int64_t have;
    if (store_version_get(s, &have, err))
        return -1;
    int64_t want = (int64_t)store_schema_version();
    if (have > want)
        return lvd_errf(err, "%s: store schema version %lld is newer than this llama-verdict knows (%lld); "
                        "upgrade llama-verdict, the store was not changed",
                        s->path, (long long)have, (long long)want);
    if (have == want)
        return 0;
    if (s->readonly)
        return lvd_errf(err, "%s: store schema version %lld needs migrating to %lld; open it read-write once",
                        s->path, (long long)have, (long long)want);
    /* a step that rebuilds a table runs with foreign keys off (a no-op
     * inside a transaction, so before it) and checks them before COMMIT */
    int fk_off = 0;
    for (int64_t v = have + 1; v <= want && s->db; v++) /* SQLite's (PostgreSQL's steps ALTER in place) */
        fk_off |= store_schema_fk_off((size_t)v);
    if ((fk_off && store_exec(s, "PRAGMA foreign_keys=OFF", err)) || store_begin_write(s, err))
        goto fail;
    if (store_version_get(s, &have, err))
        goto fail;
    while (have < want) {
        int64_t to = have;
        char *sql = store_migration(s, have, &to);
        int rc = !sql || to <= have ? lvd_errf(err, "%s: no migration from schema version %lld", s->path,
                                               (long long)have)
                                    : store_exec(s, sql, err);
        free(sql);
        if (rc || store_version_set(s, to, err))
            goto fail;
        have = to;
    }
    if ((fk_off && foreign_keys_hold(s, err)) || store_exec(s, "COMMIT", err))
        goto fail;
    return fk_off ? store_exec(s, "PRAGMA foreign_keys=ON", err) : 0;
fail:
    store_exec_quiet(s, "ROLLBACK");
    if (fk_off)
        store_exec_quiet(s, "PRAGMA foreign_keys=ON");
    return -1;
}

int store_open(const char *path, int flags, store **out, lvd_err *err)
{
    *out = NULL;
    store *s = lvd_xcalloc(1, sizeof *s);
    s->ops = store_is_remote(path) ? &store_pg_ops : &store_sqlite_ops;
    s->path = lvd_xstrdup(path);
    s->readonly = (flags & STORE_OPEN_READONLY) != 0;
    if (s->ops->open(s, flags, err) || migrate(s, err)) {
        store_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

void store_close(store *s)
{
    if (!s)
        return;
    s->ops->close(s);
    free(s->path);
    free(s);
}

const char *store_path(const store *s)
{
    return s->path;
}

int store_begin(store *s, lvd_err *err)
{
    if (s->tx_depth++ > 0)
        return 0;
    if (store_begin_write(s, err)) {
        s->tx_depth = 0;
        return -1;
    }
    return 0;
}

int store_commit(store *s, lvd_err *err)
{
    if (s->tx_depth <= 0)
        return lvd_errf(err, "%s: commit without a transaction", s->path);
    if (--s->tx_depth > 0)
        return 0;
    if (store_exec_quiet(s, "COMMIT")) {
        store_fail(s, err, "cannot commit");
        store_exec_quiet(s, "ROLLBACK");
        return -1;
    }
    return 0;
}

void store_rollback(store *s)
{
    if (s->tx_depth <= 0)
        return;
    s->tx_depth = 0;
    store_exec_quiet(s, "ROLLBACK");
}

int store_step_done(store *s, store_stmt *st, const char *what, lvd_err *err)
{
    int rc = store_step(st);
    if (rc != STORE_DONE) {
        store_fail(s, err, what);
        store_finalize(st);
        return -1;
    }
    store_finalize(st);
    return 0;
}

void *store_grow(void *v, size_t elem, size_t n, size_t *cap)
{
    if (n < *cap)
        return v;
    *cap = *cap ? *cap * 2 : 8;
    return lvd_xrealloc(v, *cap * elem);
}

int store_rows(store *s, store_stmt *st, size_t elem, store_row_fn read, void (*free_item)(void *),
               const char *what, void **out, size_t *n, lvd_err *err)
{
    char *v = NULL;
    size_t len = 0, cap = 0;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        v = store_grow(v, elem, len, &cap);
        read(st, v + len++ * elem);
    }
    *out = NULL;
    *n = 0;
    if (rc != STORE_DONE) {
        store_fail(s, err, what);
        store_finalize(st);
        for (size_t i = 0; i < len; i++)
            free_item(v + i * elem);
        free(v);
        return -1;
    }
    store_finalize(st);
    *out = v;
    *n = len;
    return 0;
}

void store_bind_i64_or_null(store_stmt *st, int idx, int64_t v, int64_t null_value)
{
    if (v == null_value)
        store_bind_null(st, idx);
    else
        store_bind_i64(st, idx, v);
}

int64_t store_col_i64_or(store_stmt *st, int col, int64_t null_value)
{
    if (store_col_null(st, col))
        return null_value;
    return store_col_i64(st, col);
}

