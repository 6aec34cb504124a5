/* store_cols.c: the statements' columns from a row type's table (see
 * store_cols.h). Not for any one row type's statements (store_runs.c,
 * store_verdicts.c, store_checks.c, ...). */
#include "store/store_cols.h"

#include "common/uid.h"

#include <math.h>
#include <string.h>

/* How many columns an entry stands for. */
static int width(const store_col *c)
{
    switch (c->kind) {
    case STORE_COL_PARAMS: return 9;
    case STORE_COL_SPLIT:
    case STORE_COL_FIT: return 2;
    case STORE_COL_HAND: return c->n > 0 ? c->n : 1;
    default: return 1;
    }
}

void store_cols_names(lvd_sb *sql, const store_col *c, size_t n, unsigned use, const char *prefix)
{
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (!(c[i].use & use))
            continue;
        int read = use == STORE_COL_R;
        lvd_sb_addf(sql, "%s%s%s", first ? "" : ", ", read && !c[i].read && prefix ? prefix : "",
                    read && c[i].read ? c[i].read : c[i].name);
        first = 0;
    }
}

void store_cols_marks(lvd_sb *sql, const store_col *c, size_t n)
{
    int first = 1;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; (c[i].use & STORE_COL_W) && k < width(&c[i]); k++, first = 0)
            lvd_sb_adds(sql, first ? "?" : ", ?");
}

void store_cols_insert_sql(lvd_sb *sql, const char *table, const store_col *c, size_t n)
{
    lvd_sb_addf(sql, "INSERT INTO %s (", table);
    store_cols_names(sql, c, n, STORE_COL_W, NULL);
    lvd_sb_adds(sql, ") VALUES (");
    store_cols_marks(sql, c, n);
    lvd_sb_adds(sql, ")");
}

void store_cols_upsert_sql(lvd_sb *sql, const store_col *c, size_t n)
{
    lvd_sb_adds(sql, " ON CONFLICT(");
    store_cols_names(sql, c, n, STORE_COL_KEY, NULL);
    lvd_sb_adds(sql, ") DO UPDATE SET ");
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (!(c[i].use & STORE_COL_W) || (c[i].use & (STORE_COL_KEY | STORE_COL_KEEP)))
            continue;
        for (const char *name = c[i].name; *name; first = 0) { /* a group's names one by one */
            size_t len = strcspn(name, ",");
            lvd_sb_addf(sql, "%s%.*s = excluded.%.*s", first ? "" : ", ", (int)len, name, (int)len, name);
            name += len;
            name += strspn(name, ", ");
        }
    }
}

/* Prepares the INSERT of c into table, its clause on a clash when upsert,
 * then tail; binds row's columns when row is set. */
static int insert(store *s, const char *table, const store_col *c, size_t n, const void *row, int upsert,
                  const char *tail, store_stmt **st, lvd_err *err)
{
    lvd_sb sql = {0};
    store_cols_insert_sql(&sql, table, c, n);
    if (upsert)
        store_cols_upsert_sql(&sql, c, n);
    lvd_sb_adds(&sql, tail);
    int rc = store_prepare(s, lvd_sb_str(&sql), st, err);
    lvd_sb_free(&sql);
    if (rc == 0 && row)
        store_cols_bind(*st, 1, c, n, row);
    return rc;
}

int store_cols_insert(store *s, const char *table, const store_col *c, size_t n, const void *row, store_stmt **st,
                      lvd_err *err)
{
    return insert(s, table, c, n, row, 0, "", st, err);
}

int store_cols_upsert(store *s, const char *table, const store_col *c, size_t n, const void *row, const char *tail,
                      store_stmt **st, lvd_err *err)
{
    return insert(s, table, c, n, row, 1, tail, st, err);
}

int store_cols_select(store *s, const char *table, const store_col *c, size_t n, const char *tail, store_stmt **st,
                      lvd_err *err)
{
    lvd_sb sql = {0};
    lvd_sb_adds(&sql, "SELECT ");
    store_cols_names(&sql, c, n, STORE_COL_R, NULL);
    lvd_sb_addf(&sql, " FROM %s%s", table, tail);
    int rc = store_prepare(s, lvd_sb_str(&sql), st, err);
    lvd_sb_free(&sql);
    return rc;
}

void store_cols_bind(store_stmt *st, int first, const store_col *c, size_t n, const void *row)
{
    int at = first;
    for (size_t i = 0; i < n; i++) {
        if (!(c[i].use & STORE_COL_W))
            continue;
        const void *f = (const char *)row + c[i].off;
        switch (c[i].kind) {
        case STORE_COL_TEXT: store_bind_text(st, at, *(char *const *)f); break;
        case STORE_COL_CHARS: store_bind_text(st, at, f); break;
        case STORE_COL_CHARS_NULL: store_bind_text(st, at, *(const char *)f ? f : NULL); break;
        case STORE_COL_TEXT_EMPTY: store_bind_text(st, at, *(char *const *)f ? *(char *const *)f : ""); break;
        case STORE_COL_DOUBLE: store_bind_double(st, at, *(const double *)f); break;
        case STORE_COL_FINITE:
            if (isfinite(*(const double *)f))
                store_bind_double(st, at, *(const double *)f);
            else
                store_bind_null(st, at);
            break;
        case STORE_COL_I64: store_bind_i64(st, at, *(const int64_t *)f); break;
        case STORE_COL_INT: store_bind_int(st, at, *(const int *)f); break;
        case STORE_COL_U32: store_bind_i64(st, at, *(const uint32_t *)f); break;
        case STORE_COL_U64: store_bind_i64(st, at, (int64_t)*(const uint64_t *)f); break;
        case STORE_COL_I64_NULL: store_bind_i64_or_null(st, at, *(const int64_t *)f, c[i].nul); break;
        case STORE_COL_INT_NULL: store_bind_i64_or_null(st, at, *(const int *)f, c[i].nul); break;
        case STORE_COL_DOC: store_bind_doc(st, at, *(char *const *)f); break;
        case STORE_COL_PARAMS: store_bind_params(st, at, f); break;
        case STORE_COL_SPLIT: store_bind_split(st, at, f); break;
        case STORE_COL_FIT: store_bind_fit(st, at, f); break;
        case STORE_COL_PARALLEL: store_bind_parallel(st, at, f); break;
        case STORE_COL_UID: {
            char uid[LVD_UID_LEN + 1];
            if (!*(const char *)f)
                lvd_uid(uid);
            store_bind_text(st, at, *(const char *)f ? f : uid);
            break;
        }
        case STORE_COL_HAND: break;
        }
        at += width(&c[i]);
    }
}

void store_cols_read(store_stmt *st, int first, const store_col *c, size_t n, void *row)
{
    int at = first;
    for (size_t i = 0; i < n; i++) {
        if (!(c[i].use & STORE_COL_R))
            continue;
        void *f = (char *)row + c[i].off;
        switch (c[i].kind) {
        case STORE_COL_TEXT:
        case STORE_COL_TEXT_EMPTY: *(char **)f = store_col_strdup(st, at); break;
        case STORE_COL_CHARS:
        case STORE_COL_CHARS_NULL: store_col_copy(st, at, f, c[i].size); break;
        case STORE_COL_DOUBLE:
        case STORE_COL_FINITE: *(double *)f = store_col_double(st, at); break;
        case STORE_COL_I64: *(int64_t *)f = store_col_i64(st, at); break;
        case STORE_COL_INT: *(int *)f = store_col_int(st, at); break;
        case STORE_COL_U32: *(uint32_t *)f = (uint32_t)store_col_i64(st, at); break;
        case STORE_COL_U64: *(uint64_t *)f = (uint64_t)store_col_i64(st, at); break;
        case STORE_COL_I64_NULL: *(int64_t *)f = store_col_i64_or(st, at, c[i].nul); break;
        case STORE_COL_INT_NULL: *(int *)f = (int)store_col_i64_or(st, at, c[i].nul); break;
        case STORE_COL_DOC: *(char **)f = store_col_doc(st, at); break;
        case STORE_COL_PARAMS: store_col_params(st, at, f); break;
        case STORE_COL_SPLIT: store_col_split(st, at, f); break;
        case STORE_COL_FIT: store_col_fit(st, at, f); break;
        case STORE_COL_PARALLEL: store_col_parallel(st, at, f); break;
        case STORE_COL_UID:
        case STORE_COL_HAND: break;
        }
        at += width(&c[i]);
    }
}

int store_cols_width(const store_col *c, size_t n, unsigned use)
{
    int w = 0;
    for (size_t i = 0; i < n; i++)
        if (c[i].use & use)
            w += width(&c[i]);
    return w;
}

int store_cols_at(const store_col *c, size_t n, unsigned use, int first, const char *name)
{
    int at = first;
    for (size_t i = 0; i < n; i++) {
        if (!(c[i].use & use))
            continue;
        if (!strcmp(c[i].name, name))
            return at;
        at += width(&c[i]);
    }
    return -1;
}
