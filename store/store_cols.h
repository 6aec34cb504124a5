/* store_cols.h: a row type's columns written once. One table per row type
 * (runs, verdicts, results, checks, engines, probes, devices, pin decisions,
 * pins, fit prints, fit plans, ceilings, bisects and their steps, session
 * facts) names each column as the SQL says it, what it holds and where in
 * the row struct it lives; from it come the INSERT's column list and
 * placeholders, the binds, the SELECT's column list and the reads, and the
 * clause that updates a clashing row, so that no statement counts column
 * numbers by hand and a column added to the table reaches all of them. Both
 * backends take the same SQL. Not for the schema (schema.c, schema_pg.c) nor
 * for a row's other tables (a run's results, a verdict's fingerprint: their
 * own files). */
#ifndef LVD_STORE_COLS_H
#define LVD_STORE_COLS_H

#include "store/store_internal.h"

#include <stddef.h>

typedef enum store_col_kind {
    STORE_COL_TEXT,     /* char *: NULL is SQL NULL; read as a malloc'd copy */
    STORE_COL_CHARS,    /* char[size]: read as a copy, "" for NULL */
    STORE_COL_CHARS_NULL, /* char[size], "" written as SQL NULL; read as STORE_COL_CHARS */
    STORE_COL_TEXT_EMPTY, /* char *, NULL written as ""; read as STORE_COL_TEXT */
    STORE_COL_DOUBLE,   /* double: NAN is SQL NULL, read back as NAN */
    STORE_COL_FINITE,   /* double: SQL NULL unless finite (an infinity too); read as STORE_COL_DOUBLE */
    STORE_COL_I64,      /* int64_t */
    STORE_COL_INT,      /* int */
    STORE_COL_U32,      /* uint32_t */
    STORE_COL_U64,      /* uint64_t, kept as the int64_t of the same bits */
    STORE_COL_I64_NULL, /* int64_t, the value nul written as SQL NULL and read back for it */
    STORE_COL_INT_NULL, /* int, likewise */
    STORE_COL_DOC,      /* char *: a document (store_bind_doc, store_col_doc) */
    STORE_COL_PARAMS,   /* lvd_params: p_device .. p_env, nine columns (store_bind_params) */
    STORE_COL_SPLIT,    /* lvd_params: p_split_mode, p_tensor_split */
    STORE_COL_FIT,      /* lvd_params: p_fit_target, p_fit_ctx */
    STORE_COL_PARALLEL, /* lvd_params: p_parallel */
    STORE_COL_UID,      /* char[size]: the row's own uid, else a new one; written only */
    STORE_COL_HAND,     /* bound or read by the caller at store_cols_at's index */
} store_col_kind;

/* Which statements a column is in; for an INSERT that updates the row it
 * clashes with (store_cols_upsert_sql), which written columns name the row
 * (STORE_COL_KEY: the ON CONFLICT target) or keep the old row's value
 * (STORE_COL_KEEP); the other written columns take the new one. */
enum { STORE_COL_W = 1, STORE_COL_R = 2, STORE_COL_RW = 3, STORE_COL_KEY = 4, STORE_COL_KEEP = 8 };

typedef struct store_col {
    const char *name;   /* as the INSERT names it; a group's names comma-separated */
    const char *read;   /* the SELECT's expression when it differs (NULL: name) */
    store_col_kind kind;
    size_t off, size;   /* the field in the row struct */
    unsigned use;       /* STORE_COL_W, STORE_COL_R or both */
    int64_t nul;        /* STORE_COL_*_NULL: the value that stands for NULL */
    int n;              /* STORE_COL_HAND: the columns it stands for (0: one) */
} store_col;

/* ik_llama.cpp's knobs of TYPE's params (-fmoe, -rtr): NULL when not passed. */
#define STORE_COL_KNOBS(TYPE)                                                                            \
    {.name = "p_fused_moe", .kind = STORE_COL_INT_NULL, .off = offsetof(TYPE, params.fused_moe),         \
     .use = STORE_COL_RW, .nul = -1},                                                                    \
    {.name = "p_repack", .kind = STORE_COL_INT_NULL, .off = offsetof(TYPE, params.repack),               \
     .use = STORE_COL_RW, .nul = -1}

/* One entry: TYPE's FIELD in column(s) NAME. */
#define STORE_COL(TYPE, FIELD, KIND, NAME, USE) \
    {.name = NAME, .kind = KIND, .off = offsetof(TYPE, FIELD), .size = sizeof(((TYPE *)0)->FIELD), .use = USE}
/* One STORE_COL_*_NULL entry: the value NUL stands for SQL NULL. */
#define STORE_COL_OR(TYPE, FIELD, KIND, NAME, USE, NUL) \
    {.name = NAME, .kind = KIND, .off = offsetof(TYPE, FIELD), .size = sizeof(((TYPE *)0)->FIELD), .use = USE, .nul = NUL}

/* Appends the column list of the entries in use (STORE_COL_W: the INSERT's
 * names; STORE_COL_R: the SELECT's expressions, each plain name after
 * prefix, e.g. "r.", when the query joins tables), ", " between them. */
void store_cols_names(lvd_sb *sql, const store_col *c, size_t n, unsigned use, const char *prefix);
/* Appends "?, ?, ..." for the INSERT's columns. */
void store_cols_marks(lvd_sb *sql, const store_col *c, size_t n);
/* Appends "INSERT INTO table (<columns>) VALUES (<placeholders>)". */
void store_cols_insert_sql(lvd_sb *sql, const char *table, const store_col *c, size_t n);
/* Appends " ON CONFLICT(<the STORE_COL_KEY columns>) DO UPDATE SET c =
 * excluded.c, ..." for every written column neither key nor kept. */
void store_cols_upsert_sql(lvd_sb *sql, const store_col *c, size_t n);
/* Prepares "INSERT INTO table (<columns>) VALUES (<placeholders>)" and
 * binds row's columns (the STORE_COL_HAND ones are the caller's; a NULL row:
 * none, for a statement run once per row with store_cols_bind). 0, or -1
 * with err. */
int store_cols_insert(store *s, const char *table, const store_col *c, size_t n, const void *row, store_stmt **st,
                      lvd_err *err);
/* How many columns the entries in use (STORE_COL_W or STORE_COL_R) stand
 * for: where the next table's columns start in a SELECT that joins tables. */
int store_cols_width(const store_col *c, size_t n, unsigned use);
/* store_cols_insert that updates the row it clashes with
 * (store_cols_upsert_sql), then tail (", retired_at = NULL", "RETURNING ..."). */
int store_cols_upsert(store *s, const char *table, const store_col *c, size_t n, const void *row, const char *tail,
                      store_stmt **st, lvd_err *err);
/* Prepares "SELECT <columns> FROM table" then tail (its WHERE, ORDER BY
 * ...). 0, or -1 with err. */
int store_cols_select(store *s, const char *table, const store_col *c, size_t n, const char *tail, store_stmt **st,
                      lvd_err *err);
/* Binds row's INSERT columns from parameter first on. */
void store_cols_bind(store_stmt *st, int first, const store_col *c, size_t n, const void *row);
/* Reads row's SELECT columns from result column first on. */
void store_cols_read(store_stmt *st, int first, const store_col *c, size_t n, void *row);
/* The parameter (STORE_COL_W, counted from first) or result column
 * (STORE_COL_R) of the entry named name; -1 when none. */
int store_cols_at(const store_col *c, size_t n, unsigned use, int first, const char *name);

#endif
