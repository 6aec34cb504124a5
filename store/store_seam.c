/* store_seam.c: the dialect seam's calls (store_internal.h), each handed to
 * the store's backend (store_sqlite.c or store_pg*.c), and which backend a
 * store specification names. */
#include "store/store_internal.h"

#include <string.h>

int store_is_remote(const char *spec)
{
    return spec && (!strncmp(spec, "postgresql://", 13) || !strncmp(spec, "postgres://", 11) ||
                    !strncmp(spec, "service=", 8));
}

int store_prepare(store *s, const char *sql, store_stmt **st, lvd_err *err)
{
    return s->ops->prepare(s, sql, st, err);
}

int store_fail(store *s, lvd_err *err, const char *what) { return s->ops->fail(s, err, what); }
int store_exec(store *s, const char *sql, lvd_err *err) { return s->ops->exec(s, sql, err); }
int store_exec_quiet(store *s, const char *sql) { return s->ops->exec_quiet(s, sql); }
int store_unique_violation(store *s, const char *column) { return s->ops->unique_violation(s, column); }
int store_begin_write(store *s, lvd_err *err) { return s->ops->begin_write(s, err); }
int store_version_get(store *s, int64_t *v, lvd_err *err) { return s->ops->version_get(s, v, err); }
int store_version_set(store *s, int64_t v, lvd_err *err) { return s->ops->version_set(s, v, err); }
char *store_migration(store *s, int64_t have, int64_t *to) { return s->ops->migration(have, to); }
int store_integrity_check(store *s, lvd_err *err) { return s->ops->integrity_check(s, err); }
int64_t store_last_id(store *s) { return s->ops->last_id(s); }

void store_bind_i64(store_stmt *st, int idx, int64_t v) { st->ops->bind_i64(st, idx, v); }
void store_bind_int(store_stmt *st, int idx, int v) { st->ops->bind_i64(st, idx, v); }
void store_bind_double(store_stmt *st, int idx, double v) { st->ops->bind_double(st, idx, v); }
void store_bind_null(store_stmt *st, int idx) { st->ops->bind_text(st, idx, NULL); }
void store_bind_text(store_stmt *st, int idx, const char *v) { st->ops->bind_text(st, idx, v); }
int store_step(store_stmt *st) { return st->ops->step(st); }
void store_reset(store_stmt *st) { st->ops->reset(st); }

void store_finalize(store_stmt *st)
{
    if (st)
        st->ops->finalize(st);
}

int64_t store_col_i64(store_stmt *st, int col) { return st->ops->col_i64(st, col); }
int store_col_int(store_stmt *st, int col) { return (int)st->ops->col_i64(st, col); }
double store_col_real(store_stmt *st, int col) { return st->ops->col_real(st, col); }
const char *store_col_text(store_stmt *st, int col) { return st->ops->col_text(st, col); }
int store_col_null(store_stmt *st, int col) { return st->ops->col_null(st, col); }
