/* benchsql.c: llama-bench's `-o sql` text executed by SQLite itself into a
 * private in-memory database, then read like a llama-bench.sqlite file
 * (store_benchdb_read), so that the text is understood exactly as `sqlite3
 * llama-bench.sqlite < out.sql` would understand it (see benchdb.h). The
 * text may be hostile: an authorizer lets through only what llama-bench
 * prints (CREATE TABLE and INSERT into the in-memory database, BEGIN and
 * COMMIT), and limits bound lengths, columns, the database's pages and the
 * steps SQLite may take. Not for the database file (benchdb.c), for format
 * detection or for mapping a row to a result (benchio/benchout.c). */
#include "store/benchdb_internal.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one llama-bench result needs is far below each limit: about 40
 * columns, values of at most a few hundred bytes, an INSERT line of about
 * 1.5 KB, and 0.06 virtual-machine steps per byte of text. */
#define SQL_MAX_VALUE (1 << 20)         /* bytes of one string, blob or row */
#define SQL_MAX_STATEMENT (8 << 20)     /* bytes of one statement */
#define SQL_MAX_COLUMNS 128
#define SQL_MAX_EXPR_DEPTH 16
#define SQL_PAGE 4096                   /* the in-memory database's page size */
#define SQL_TICK 1000                   /* steps between two progress calls */

/* What the authorizer saw of the statement being prepared. */
typedef struct sql_guard {
    int in_create;          /* a CREATE TABLE: it may write and read sqlite_master */
    int denied;             /* the action refused (SQLITE_CREATE_INDEX ...); 0: none */
    char denied_arg[64];    /* its table, pragma or function name */
    unsigned long ticks, max_ticks;
} sql_guard;

/* The authorizer's action codes in words, for the error. */
static const char *action_name(int code)
{
    static const char *const names[] = {
        [SQLITE_CREATE_INDEX] = "CREATE INDEX", [SQLITE_CREATE_TABLE] = "CREATE TABLE",
        [SQLITE_CREATE_TEMP_INDEX] = "CREATE TEMP INDEX", [SQLITE_CREATE_TEMP_TABLE] = "CREATE TEMP TABLE",
        [SQLITE_CREATE_TEMP_TRIGGER] = "CREATE TEMP TRIGGER", [SQLITE_CREATE_TEMP_VIEW] = "CREATE TEMP VIEW",
        [SQLITE_CREATE_TRIGGER] = "CREATE TRIGGER", [SQLITE_CREATE_VIEW] = "CREATE VIEW",
        [SQLITE_DELETE] = "DELETE FROM", [SQLITE_DROP_INDEX] = "DROP INDEX", [SQLITE_DROP_TABLE] = "DROP TABLE",
        [SQLITE_DROP_TEMP_INDEX] = "DROP INDEX", [SQLITE_DROP_TEMP_TABLE] = "DROP TABLE",
        [SQLITE_DROP_TEMP_TRIGGER] = "DROP TRIGGER", [SQLITE_DROP_TEMP_VIEW] = "DROP VIEW",
        [SQLITE_DROP_TRIGGER] = "DROP TRIGGER", [SQLITE_DROP_VIEW] = "DROP VIEW", [SQLITE_INSERT] = "INSERT INTO",
        [SQLITE_PRAGMA] = "PRAGMA", [SQLITE_READ] = "reading table", [SQLITE_SELECT] = "SELECT",
        [SQLITE_TRANSACTION] = "a transaction", [SQLITE_UPDATE] = "UPDATE", [SQLITE_ATTACH] = "ATTACH",
        [SQLITE_DETACH] = "DETACH", [SQLITE_ALTER_TABLE] = "ALTER TABLE", [SQLITE_REINDEX] = "REINDEX",
        [SQLITE_ANALYZE] = "ANALYZE", [SQLITE_CREATE_VTABLE] = "CREATE VIRTUAL TABLE",
        [SQLITE_DROP_VTABLE] = "DROP VIRTUAL TABLE", [SQLITE_FUNCTION] = "the function",
        [SQLITE_SAVEPOINT] = "SAVEPOINT", [SQLITE_RECURSIVE] = "a recursive query",
    };
    return code > 0 && (size_t)code < LVD_ARRAY_LEN(names) && names[code] ? names[code] : "this statement";
}

static int is_schema_table(const char *a)
{
    return a && (!strcmp(a, "sqlite_master") || !strcmp(a, "sqlite_schema") || !strcmp(a, "sqlite_temp_master") ||
                 !strcmp(a, "sqlite_temp_schema"));
}

static int is_main(const char *db)
{
    return db && !strcmp(db, "main");
}

/* 1 when what llama-bench prints may do action code on a, b of database db. */
static int allowed(sql_guard *g, int code, const char *a, const char *db)
{
    int schema = is_schema_table(a);
    switch (code) {
    case SQLITE_CREATE_TABLE: return g->in_create = is_main(db);
    case SQLITE_INSERT:
    case SQLITE_UPDATE:
    case SQLITE_DELETE: /* a CREATE or DROP keeps the schema table first (the CREATE or DROP is judged
                           next); SQLite itself refuses any other write to a schema table */
        return schema || (code == SQLITE_INSERT && is_main(db));
    case SQLITE_READ: return g->in_create && schema && is_main(db); /* CREATE TABLE's own bookkeeping */
    case SQLITE_SELECT: return !g->in_create; /* INSERT ... VALUES (...), (...) is one; not CREATE ... AS */
    case SQLITE_TRANSACTION: return 1;      /* BEGIN, COMMIT */
    default: return 0;
    }
}

static int authorize(void *ctx, int code, const char *a, const char *b, const char *db, const char *trigger)
{
    (void)trigger;
    sql_guard *g = ctx;
    if (allowed(g, code, a, db))
        return SQLITE_OK;
    if (!g->denied) {
        g->denied = code;
        /* the name: second for a function, a savepoint and ALTER TABLE (after its database) */
        const char *arg = code == SQLITE_FUNCTION || code == SQLITE_SAVEPOINT || code == SQLITE_ALTER_TABLE ? b : a;
        snprintf(g->denied_arg, sizeof g->denied_arg, "%s", arg && code != SQLITE_TRANSACTION ? arg : "");
    }
    return SQLITE_DENY;
}

static int progress(void *ctx)
{
    sql_guard *g = ctx;
    return ++g->ticks > g->max_ticks;
}

/* A private in-memory database that runs only what the guard allows, within
 * the limits above (the page count sized by the text's length). */
static sqlite3 *open_guarded(sql_guard *g, size_t len, const char *name, lvd_err *err)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        lvd_errf(err, "%s: cannot open an in-memory database: %s", name, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return NULL;
    }
    static const int limits[][2] = {
        {SQLITE_LIMIT_LENGTH, SQL_MAX_VALUE}, {SQLITE_LIMIT_SQL_LENGTH, SQL_MAX_STATEMENT},
        {SQLITE_LIMIT_COLUMN, SQL_MAX_COLUMNS}, {SQLITE_LIMIT_EXPR_DEPTH, SQL_MAX_EXPR_DEPTH},
        {SQLITE_LIMIT_COMPOUND_SELECT, 2}, {SQLITE_LIMIT_ATTACHED, 0}, {SQLITE_LIMIT_VARIABLE_NUMBER, 1},
        {SQLITE_LIMIT_TRIGGER_DEPTH, 1}, {SQLITE_LIMIT_WORKER_THREADS, 0},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(limits); i++)
        sqlite3_limit(db, limits[i][0], limits[i][1]);
    static const int off[] = {SQLITE_DBCONFIG_ENABLE_TRIGGER, SQLITE_DBCONFIG_ENABLE_VIEW,
                              SQLITE_DBCONFIG_TRUSTED_SCHEMA, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION};
    for (size_t i = 0; i < LVD_ARRAY_LEN(off); i++)
        sqlite3_db_config(db, off[i], 0, (int *)NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    /* the rows take about the text's bytes; four times that, and 4 MiB, at most */
    char *pages = sqlite3_mprintf("PRAGMA page_size = %d; PRAGMA max_page_count = %llu", SQL_PAGE,
                                  (unsigned long long)(len / SQL_PAGE * 4 + 1024));
    int rc = pages ? sqlite3_exec(db, pages, NULL, NULL, NULL) : SQLITE_NOMEM;
    sqlite3_free(pages);
    if (rc != SQLITE_OK) {
        lvd_errf(err, "%s: cannot set up an in-memory database: %s", name, sqlite3_errmsg(db));
        sqlite3_close(db);
        return NULL;
    }
    g->max_ticks = 1000 + len / 64; /* 16 steps a byte: 250 times what llama-bench's text takes */
    sqlite3_set_authorizer(db, authorize, g);
    sqlite3_progress_handler(db, SQL_TICK, progress, g);
    return db;
}

/* Where the executor is in the text: statements advance, and so does the
 * line count, so that counting lines costs one pass over the text. */
typedef struct sql_cursor {
    const char *at;
    int line;           /* the line of at */
    const char *name;
} sql_cursor;

static int line_at(sql_cursor *c, const char *p)
{
    for (; c->at < p; c->at++)
        c->line += *c->at == '\n';
    return c->line;
}

/* The line of the first byte of a statement (what SQLite skips before it). */
static int statement_line(sql_cursor *c, const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return line_at(c, p);
}

/* 1 when nothing but blanks follows the line that q is on. */
static int on_last_line(const char *q)
{
    q += strcspn(q, "\n");
    return q[strspn(q, " \t\r\n")] == '\0';
}

/* The error of the statement at p that the output's end cut short. */
static int cut_short(sql_cursor *c, const char *p, lvd_err *err)
{
    return lvd_errf(err, "%s: line %d: the output ends inside a statement (truncated?)", c->name,
                    statement_line(c, p));
}

/* The error of a statement at p that SQLite or the guard refused; complete:
 * the text ends with a whole statement (else a refusal on its last line, or
 * SQLite's "incomplete input", is the output cut short). */
static int refused(sqlite3 *db, const sql_guard *g, sql_cursor *c, const char *p, int complete, lvd_err *err)
{
    int off = sqlite3_error_offset(db);
    const char *at = off >= 0 ? p + off : p, *msg = sqlite3_errmsg(db);
    if (!g->denied && !complete && (on_last_line(at) || !strcmp(msg, "incomplete input")))
        return cut_short(c, p, err);
    int line = statement_line(c, p);
    if (off >= 0)
        line = line_at(c, at); /* the cursor only moves forward: never before the statement */
    if (g->denied)
        return lvd_errf(err, "%s: line %d: %s%s%s is not allowed (llama-bench -o sql is CREATE TABLE and INSERT "
                        "INTO only)", c->name, line, action_name(g->denied), g->denied_arg[0] ? " " : "",
                        g->denied_arg);
    if (g->ticks > g->max_ticks)
        return lvd_errf(err, "%s: line %d: more work than llama-bench output takes; stopped", c->name, line);
    return lvd_errf(err, "%s: line %d: %s%s", c->name, line, msg,
                    strncmp(msg, "no such table", 13) ? "" : " (an INSERT without llama-bench's CREATE TABLE?)");
}

/* 1 when the statement text [p, tail) ends with its semicolon. */
static int terminated(const char *p, const char *tail)
{
    char *s = lvd_xstrndup(p, (size_t)(tail - p));
    int ok = sqlite3_complete(s);
    free(s);
    return ok;
}

/* Prepares and runs one statement at *p; *p moves past it. 1 when none was
 * left, 0 when one ran, -1 with err. */
static int run_one(sqlite3 *db, sql_guard *g, sql_cursor *c, const char **p, int complete, lvd_err *err)
{
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    g->in_create = 0;
    g->denied = 0;
    if (sqlite3_prepare_v2(db, *p, -1, &st, &tail) != SQLITE_OK) {
        sqlite3_finalize(st);
        return refused(db, g, c, *p, complete, err);
    }
    if (!st)
        return 1; /* only blanks and comments were left */
    if (!complete && !terminated(*p, tail)) {
        sqlite3_finalize(st);
        return cut_short(c, *p, err);
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        ;
    int ret = rc == SQLITE_DONE ? 0 : refused(db, g, c, *p, 1, err); /* before finalize: its message */
    sqlite3_finalize(st);
    *p = tail;
    return ret;
}

/* Runs every statement of text (NUL-terminated; its first line is first_line) into db. */
static int run_all(sqlite3 *db, sql_guard *g, const char *text, const char *name, int first_line, lvd_err *err)
{
    sql_cursor c = {.at = text, .line = first_line, .name = name};
    int complete = sqlite3_complete(text);
    int rc;
    for (const char *p = text; (rc = run_one(db, g, &c, &p, complete, err)) == 0;)
        ;
    if (rc < 0)
        return -1;
    if (!sqlite3_get_autocommit(db))
        return lvd_errf(err, "%s: the output ends inside a transaction, without its COMMIT (truncated?)", name);
    return 0;
}

int store_llama_bench_sql_each(const char *text, size_t len, const char *name, int first_line, size_t *tables,
                               store_benchdb_row_fn fn, void *ctx, lvd_err *err)
{
    *tables = 0;
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        sql_cursor c = {.at = text, .line = first_line};
        return lvd_errf(err, "%s: line %d: a NUL byte (not llama-bench -o sql output)", name, line_at(&c, nul));
    }
    sql_guard g = {0};
    sqlite3 *db = open_guarded(&g, len, name, err);
    if (!db)
        return -1;
    char *sql = lvd_xstrndup(text, len);
    int rc = run_all(db, &g, sql, name, first_line, err);
    free(sql);
    if (rc == 0) {
        sqlite3_set_authorizer(db, NULL, NULL); /* the reader's own SELECTs */
        sqlite3_progress_handler(db, 0, NULL, NULL);
        rc = store_benchdb_read(db, name, tables, fn, ctx, err);
    }
    sqlite3_close(db);
    return rc;
}
