/* store_sqlite.c: the SQLite side of the store's dialect seam: opening the
 * file (pragmas, WAL), its error messages, statements, the schema version
 * (PRAGMA user_version), transactions and the integrity check. Everything
 * else in store/ speaks through store_internal.h's store_* calls and never
 * names SQLite. */
#include "store/store_internal.h"
#include "store/schema.h"
#include "store/store_docs.h"

#include "common/paths.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

typedef struct lite_stmt {
    store_stmt base;
    sqlite3_stmt *lite;
} lite_stmt;

static sqlite3_stmt *L(store_stmt *st) { return ((lite_stmt *)st)->lite; }

/* SQLite's message for the last error, plainer where a write failed: SQLite
 * reports a file size limit (EFBIG) as a bare "disk I/O error" and has often
 * lost the errno by the time it returns. */
static const char *describe(store *s, char *buf, size_t len)
{
    int code = sqlite3_extended_errcode(s->db), sys = sqlite3_system_errno(s->db);
    if ((code & 0xff) == SQLITE_FULL || sys == ENOSPC || sys == EDQUOT || sys == EFBIG)
        snprintf(buf, len, "disk full (%s)", sys ? strerror(sys) : "no space left on the device");
    else if (code == SQLITE_IOERR_WRITE || code == SQLITE_IOERR_FSYNC)
        snprintf(buf, len, "%s: a write failed (disk full, a file size limit, or a failing device)",
                 sqlite3_errmsg(s->db));
    else if ((code & 0xff) == SQLITE_IOERR && sys)
        snprintf(buf, len, "%s (%s)", sqlite3_errmsg(s->db), strerror(sys));
    else
        snprintf(buf, len, "%s", sqlite3_errmsg(s->db));
    return buf;
}

static int lite_fail(store *s, lvd_err *err, const char *what)
{
    char why[256];
    return lvd_errf(err, "%s: %s: %s", s->path, what, describe(s, why, sizeof why));
}

static int lite_unique_violation(store *s, const char *column)
{
    return sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_UNIQUE && strstr(sqlite3_errmsg(s->db), column);
}

static int lite_prepare(store *s, const char *sql, store_stmt **st, lvd_err *err)
{
    sqlite3_stmt *lite;
    *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &lite, NULL) != SQLITE_OK)
        return store_fail(s, err, "cannot prepare statement");
    lite_stmt *l = lvd_xcalloc(1, sizeof *l);
    l->base.ops = &store_sqlite_ops;
    l->lite = lite;
    *st = &l->base;
    return 0;
}

static int lite_exec(store *s, const char *sql, lvd_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        char why[256];
        lvd_errf(err, "%s: %s", s->path, describe(s, why, sizeof why));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int lite_exec_quiet(store *s, const char *sql)
{
    return sqlite3_exec(s->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

static void lite_bind_i64(store_stmt *st, int idx, int64_t v) { sqlite3_bind_int64(L(st), idx, v); }
static void lite_bind_double(store_stmt *st, int idx, double v) { sqlite3_bind_double(L(st), idx, v); }

static void lite_bind_text(store_stmt *st, int idx, const char *v)
{
    if (v)
        sqlite3_bind_text(L(st), idx, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(L(st), idx);
}

static int lite_step(store_stmt *st)
{
    int rc = sqlite3_step(L(st));
    return rc == SQLITE_ROW ? STORE_ROW : rc == SQLITE_DONE ? STORE_DONE : STORE_ERROR;
}

static void lite_reset(store_stmt *st) { sqlite3_reset(L(st)); }

static void lite_finalize(store_stmt *st)
{
    sqlite3_finalize(L(st));
    free(st);
}

static int64_t lite_col_i64(store_stmt *st, int col) { return sqlite3_column_int64(L(st), col); }
static double lite_col_real(store_stmt *st, int col) { return sqlite3_column_double(L(st), col); }
static const char *lite_col_text(store_stmt *st, int col) { return (const char *)sqlite3_column_text(L(st), col); }
static int lite_col_null(store_stmt *st, int col) { return sqlite3_column_type(L(st), col) == SQLITE_NULL; }

static void lite_bind_blob(store_stmt *st, int idx, const void *v, size_t len)
{
    sqlite3_bind_blob64(L(st), idx, v, len, SQLITE_TRANSIENT);
}

static const void *lite_col_blob(store_stmt *st, int col, size_t *len)
{
    if (sqlite3_column_type(L(st), col) != SQLITE_BLOB)
        return NULL;
    const void *v = sqlite3_column_blob(L(st), col);
    *len = (size_t)sqlite3_column_bytes(L(st), col);
    return v;
}

/* lvd_pack_doc(x), for migration 17: x packed (store_docs.h) when it is text
 * long enough, else x as it is. */
static void pack_doc_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    size_t len = 0;
    unsigned char *packed = sqlite3_value_type(argv[0]) == SQLITE_TEXT
                                ? store_doc_pack((const char *)sqlite3_value_text(argv[0]), &len)
                                : NULL;
    if (packed)
        sqlite3_result_blob64(ctx, packed, len, free);
    else
        sqlite3_result_value(ctx, argv[0]);
}

static int64_t lite_last_id(store *s) { return sqlite3_last_insert_rowid(s->db); }

static int lite_version_get(store *s, int64_t *v, lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(s, "PRAGMA user_version", &st, err))
        return -1;
    if (store_step(st) != STORE_ROW) {
        store_finalize(st);
        return store_fail(s, err, "cannot read schema version");
    }
    *v = store_col_i64(st, 0);
    store_finalize(st);
    return 0;
}

static int lite_version_set(store *s, int64_t v, lvd_err *err)
{
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %lld", (long long)v);
    return store_exec(s, pragma, err);
}

static int lite_begin_write(store *s, lvd_err *err)
{
    /* IMMEDIATE: two writers (or two processes migrating an old store) take
     * turns instead of failing on a lock upgrade. */
    return store_exec(s, "BEGIN IMMEDIATE", err);
}

/* Makes sure path can be created: a missing file needs its directory. */
static int prepare_path(const char *path, int flags, lvd_err *err)
{
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (!exists && !(flags & STORE_OPEN_CREATE))
        return lvd_errf(err, "%s: no store here (run a tool that records, or pass --store)", path);
    if (exists && !S_ISREG(st.st_mode))
        return lvd_errf(err, "%s: not a regular file", path);
    return exists ? 0 : lvd_mkdir_parent(path, err);
}

#define BUSY_MS 10000 /* how long a connection waits for another's lock */

/* Switches the file to WAL. That needs it alone for a moment, and SQLite
 * answers "database is locked" at once, without the busy handler, where
 * waiting could deadlock: two processes opening a new store together, one
 * creating the schema while the other asks for WAL. Retried for as long as
 * the busy handler would wait. */
static int set_wal(store *s, lvd_err *err)
{
    int64_t t0 = lvd_mono_ms();
    while (lite_exec_quiet(s, "PRAGMA journal_mode=WAL") != 0 && (sqlite3_errcode(s->db) & 0xff) == SQLITE_BUSY &&
           lvd_mono_ms() - t0 < BUSY_MS)
        usleep(2000);
    return store_exec(s, "PRAGMA journal_mode=WAL; PRAGMA journal_size_limit=16777216", err);
}

/* The pragmas of a store opened for writing: WAL kept across closes. */
static int writer_pragmas(store *s, lvd_err *err)
{
    if (set_wal(s, err))
        return -1;
    /* Keep the -wal and -shm files when the last writer closes: a reader
     * without write access to the directory (lvd select run by a service
     * user) cannot create them and could not read the store at all. */
    int persist = 1;
    sqlite3_file_control(s->db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
    return 0;
}

/* SQLite's process-wide settings, before its first use: no memory
 * statistics (nothing reads them; keeping them takes a global mutex around
 * every allocation: a tenth of a warm lvd select's instructions). A program
 * that started SQLite before keeps its own. */
static void lite_configure(void)
{
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static int lite_open(store *s, int flags, lvd_err *err)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, lite_configure);
    const char *path = s->path;
    if (prepare_path(path, flags, err))
        return -1;
    int oflags = s->readonly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    if (sqlite3_open_v2(path, &s->db, oflags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        return lvd_errf(err, "%s: cannot open store: %s", path, s->db ? sqlite3_errmsg(s->db) : "out of memory");
    sqlite3_busy_timeout(s->db, BUSY_MS);
    sqlite3_extended_result_codes(s->db, 1);
    /* Probe that this is an SQLite database at all before changing anything. */
    if (store_exec(s, "SELECT count(*) FROM sqlite_schema", err)) {
        int code = sqlite3_errcode(s->db) & 0xff;
        if (s->readonly && (code == SQLITE_READONLY || code == SQLITE_CANTOPEN))
            return lvd_errf(err, "%s: cannot read the store without write access to its directory until its "
                            "-wal and -shm files exist; open it once with a tool that records (lvd probe)", path);
        return lvd_errf(err, "%s: not a llama-verdict store (not an SQLite database)", path);
    }
    int64_t have;
    if (store_version_get(s, &have, err))
        return -1;
    if (have > (int64_t)store_schema_version())
        return 0; /* the caller refuses it before any pragma changes the file */
    if (!s->readonly && writer_pragmas(s, err))
        return -1;
    if (!s->readonly && have < (int64_t)store_schema_version() &&
        sqlite3_create_function_v2(s->db, "lvd_pack_doc", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, pack_doc_fn,
                                   NULL, NULL, NULL) != SQLITE_OK)
        return store_fail(s, err, "cannot prepare the migration");
    return store_exec(s, "PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL", err);
}

static void lite_close(store *s)
{
    if (s->db)
        sqlite3_close_v2(s->db);
    s->db = NULL;
}

/* One migration at a time: the file's history is migrations 1 .. N. */
static char *lite_migration(int64_t have, int64_t *to)
{
    *to = have + 1;
    return store_schema_sql((size_t)(have + 1));
}

/* Runs one checking pragma; counts its rows and keeps the first as text. */
static int check_rows(store *s, const char *sql, int ok_row, int64_t *n, char *first, size_t len,
                      lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(s, sql, &st, err))
        return -1;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        const char *t = store_col_text(st, 0);
        if (ok_row && t && !strcmp((const char *)t, "ok"))
            continue;
        if ((*n)++ == 0) {
            /* foreign_key_check: table, rowid, parent table */
            if (ok_row)
                snprintf(first, len, "%s", t ? (const char *)t : "?");
            else {
                const char *parent = store_col_text(st, 2);
                snprintf(first, len, "a row of %s (rowid %lld) without its %s", t ? (const char *)t : "?",
                         (long long)store_col_i64(st, 1), parent ? (const char *)parent : "?");
            }
        }
    }
    store_finalize(st);
    if (rc != STORE_DONE)
        return store_fail(s, err, "cannot check integrity");
    return 0;
}

static int lite_integrity_check(store *s, lvd_err *err)
{
    char first[512] = "";
    int64_t n = 0;
    if (check_rows(s, "PRAGMA integrity_check", 1, &n, first, sizeof first, err) ||
        check_rows(s, "PRAGMA foreign_key_check", 0, &n, first, sizeof first, err))
        return -1;
    if (n)
        return lvd_errf(err, "%s: integrity check failed: %s (%lld problem%s)", s->path, first, (long long)n,
                        n == 1 ? "" : "s");
    return 0;
}

const store_ops store_sqlite_ops = {
    .open = lite_open,
    .close = lite_close,
    .prepare = lite_prepare,
    .fail = lite_fail,
    .exec = lite_exec,
    .exec_quiet = lite_exec_quiet,
    .unique_violation = lite_unique_violation,
    .begin_write = lite_begin_write,
    .version_get = lite_version_get,
    .version_set = lite_version_set,
    .migration = lite_migration,
    .integrity_check = lite_integrity_check,
    .last_id = lite_last_id,
    .bind_i64 = lite_bind_i64,
    .bind_double = lite_bind_double,
    .bind_text = lite_bind_text,
    .step = lite_step,
    .reset = lite_reset,
    .finalize = lite_finalize,
    .col_i64 = lite_col_i64,
    .col_real = lite_col_real,
    .col_text = lite_col_text,
    .col_null = lite_col_null,
    .bind_blob = lite_bind_blob,
    .col_blob = lite_col_blob,
};
