/* store.c: opening the store file, pragmas, forward migrations, transactions,
 * the integrity check, and the statement helpers the other store_*.c files
 * share. */
#include "store/store_internal.h"
#include "store/schema.h"

#include "common/paths.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *store_default_path(const char *explicit_path)
{
    if (explicit_path && *explicit_path)
        return lvd_xstrdup(explicit_path);
    const char *env = getenv("LVD_STORE");
    if (env && *env)
        return lvd_xstrdup(env);
    return lvd_state_path("store.db");
}

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

int store_fail(store *s, lvd_err *err, const char *what)
{
    char why[256];
    return lvd_errf(err, "%s: %s: %s", s->path, what, describe(s, why, sizeof why));
}

int store_prepare(store *s, const char *sql, sqlite3_stmt **st, lvd_err *err)
{
    if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
        return store_fail(s, err, "cannot prepare statement");
    return 0;
}

int store_exec(store *s, const char *sql, lvd_err *err)
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

void store_bind_text(sqlite3_stmt *st, int idx, const char *v)
{
    if (v)
        sqlite3_bind_text(st, idx, v, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, idx);
}

char *store_col_strdup(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? lvd_xstrdup((const char *)t) : NULL;
}

void store_col_copy(sqlite3_stmt *st, int col, char *buf, size_t len)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(buf, len, "%s", t ? (const char *)t : "");
}

double store_col_double(sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        return NAN;
    return sqlite3_column_double(st, col);
}

void store_bind_params(sqlite3_stmt *st, int first, const lvd_params *p)
{
    sqlite3_bind_text(st, first + 0, p->device, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, first + 1, p->ngl);
    sqlite3_bind_int(st, first + 2, p->fa);
    sqlite3_bind_int(st, first + 3, p->ubatch);
    sqlite3_bind_text(st, first + 4, p->type_k, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, first + 5, p->type_v, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, first + 6, p->n_cpu_moe);
    sqlite3_bind_int(st, first + 7, p->threads);
    sqlite3_bind_text(st, first + 8, p->env, -1, SQLITE_TRANSIENT);
}

void store_col_params(sqlite3_stmt *st, int first, lvd_params *p)
{
    lvd_params_init(p);
    store_col_copy(st, first + 0, p->device, sizeof p->device);
    if (sqlite3_column_type(st, first + 1) != SQLITE_NULL)
        p->ngl = sqlite3_column_int(st, first + 1);
    if (sqlite3_column_type(st, first + 2) != SQLITE_NULL)
        p->fa = sqlite3_column_int(st, first + 2);
    p->ubatch = sqlite3_column_int(st, first + 3);
    store_col_copy(st, first + 4, p->type_k, sizeof p->type_k);
    store_col_copy(st, first + 5, p->type_v, sizeof p->type_v);
    p->n_cpu_moe = sqlite3_column_int(st, first + 6);
    p->threads = sqlite3_column_int(st, first + 7);
    store_col_copy(st, first + 8, p->env, sizeof p->env);
}

void store_bind_split(sqlite3_stmt *st, int first, const lvd_params *p)
{
    sqlite3_bind_text(st, first + 0, p->split_mode, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, first + 1, p->tensor_split, -1, SQLITE_TRANSIENT);
}

void store_col_split(sqlite3_stmt *st, int first, lvd_params *p)
{
    store_col_copy(st, first + 0, p->split_mode, sizeof p->split_mode);
    store_col_copy(st, first + 1, p->tensor_split, sizeof p->tensor_split);
}

static int read_user_version(store *s, int64_t *v, lvd_err *err)
{
    sqlite3_stmt *st;
    if (store_prepare(s, "PRAGMA user_version", &st, err))
        return -1;
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return store_fail(s, err, "cannot read schema version");
    }
    *v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return 0;
}

int store_user_version(store *s, int64_t *version, lvd_err *err)
{
    return read_user_version(s, version, err);
}

static int migrate(store *s, lvd_err *err)
{
    int64_t have;
    if (read_user_version(s, &have, err))
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
    /* IMMEDIATE: two processes opening an old store at once migrate one after the other. */
    if (store_exec(s, "BEGIN IMMEDIATE", err))
        return -1;
    if (read_user_version(s, &have, err))
        goto fail;
    for (int64_t v = have + 1; v <= want; v++) {
        if (store_exec(s, store_schema_step((size_t)v), err))
            goto fail;
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %lld", (long long)v);
        if (store_exec(s, pragma, err))
            goto fail;
    }
    if (store_exec(s, "COMMIT", err))
        goto fail;
    return 0;
fail:
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

int store_open(const char *path, int flags, store **out, lvd_err *err)
{
    *out = NULL;
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (!exists && !(flags & STORE_OPEN_CREATE))
        return lvd_errf(err, "%s: no store here (run a tool that records, or pass --store)", path);
    if (exists && !S_ISREG(st.st_mode))
        return lvd_errf(err, "%s: not a regular file", path);
    if (!exists) {
        char *dir = lvd_xstrdup(path);
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir) {
            *slash = '\0';
            if (lvd_mkdir_p(dir, err)) {
                free(dir);
                return -1;
            }
        }
        free(dir);
    }
    store *s = lvd_xcalloc(1, sizeof *s);
    s->path = lvd_xstrdup(path);
    s->readonly = (flags & STORE_OPEN_READONLY) != 0;
    int oflags = s->readonly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    if (sqlite3_open_v2(path, &s->db, oflags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        lvd_errf(err, "%s: cannot open store: %s", path, s->db ? sqlite3_errmsg(s->db) : "out of memory");
        store_close(s);
        return -1;
    }
    sqlite3_busy_timeout(s->db, 10000);
    sqlite3_extended_result_codes(s->db, 1);
    /* Probe that this is an SQLite database at all before changing anything. */
    if (store_exec(s, "SELECT count(*) FROM sqlite_schema", err)) {
        int code = sqlite3_errcode(s->db) & 0xff;
        if (s->readonly && (code == SQLITE_READONLY || code == SQLITE_CANTOPEN))
            lvd_errf(err, "%s: cannot read the store without write access to its directory until its "
                     "-wal and -shm files exist; open it once with a tool that records (lvd probe)", path);
        else
            lvd_errf(err, "%s: not a llama-verdict store (not an SQLite database)", path);
        store_close(s);
        return -1;
    }
    int64_t have;
    if (read_user_version(s, &have, err)) {
        store_close(s);
        return -1;
    }
    if (have > (int64_t)store_schema_version()) {
        migrate(s, err); /* only formats the refusal */
        store_close(s);
        return -1;
    }
    if (!s->readonly && store_exec(s, "PRAGMA journal_mode=WAL; PRAGMA journal_size_limit=16777216", err)) {
        store_close(s);
        return -1;
    }
    if (!s->readonly) {
        /* Keep the -wal and -shm files when the last writer closes: a reader
         * without write access to the directory (lvd select run by a service
         * user) cannot create them and could not read the store at all. */
        int persist = 1;
        sqlite3_file_control(s->db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
    }
    if (store_exec(s, "PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL", err) || migrate(s, err)) {
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
    if (s->db)
        sqlite3_close_v2(s->db);
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
    if (store_exec(s, "BEGIN IMMEDIATE", err)) {
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
    if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        store_fail(s, err, "cannot commit");
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}

void store_rollback(store *s)
{
    if (s->tx_depth <= 0)
        return;
    s->tx_depth = 0;
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_step_done(store *s, sqlite3_stmt *st, const char *what, lvd_err *err)
{
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return 0;
}

void *store_grow(void *v, size_t elem, size_t n, size_t *cap)
{
    if (n < *cap)
        return v;
    *cap = *cap ? *cap * 2 : 8;
    return lvd_xrealloc(v, *cap * elem);
}

int store_rows(store *s, sqlite3_stmt *st, size_t elem, store_row_fn read, void (*free_item)(void *),
               const char *what, void **out, size_t *n, lvd_err *err)
{
    char *v = NULL;
    size_t len = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        v = store_grow(v, elem, len, &cap);
        read(st, v + len++ * elem);
    }
    *out = NULL;
    *n = 0;
    if (rc != SQLITE_DONE) {
        store_fail(s, err, what);
        sqlite3_finalize(st);
        for (size_t i = 0; i < len; i++)
            free_item(v + i * elem);
        free(v);
        return -1;
    }
    sqlite3_finalize(st);
    *out = v;
    *n = len;
    return 0;
}

void store_bind_i64_or_null(sqlite3_stmt *st, int idx, int64_t v, int64_t null_value)
{
    if (v == null_value)
        sqlite3_bind_null(st, idx);
    else
        sqlite3_bind_int64(st, idx, v);
}

int64_t store_col_i64_or(sqlite3_stmt *st, int col, int64_t null_value)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        return null_value;
    return sqlite3_column_int64(st, col);
}

/* Runs one checking pragma; counts its rows and keeps the first as text. */
static int check_rows(store *s, const char *sql, int ok_row, int64_t *n, char *first, size_t len,
                      lvd_err *err)
{
    sqlite3_stmt *st;
    if (store_prepare(s, sql, &st, err))
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        if (ok_row && t && !strcmp((const char *)t, "ok"))
            continue;
        if ((*n)++ == 0) {
            /* foreign_key_check: table, rowid, parent table */
            if (ok_row)
                snprintf(first, len, "%s", t ? (const char *)t : "?");
            else {
                const unsigned char *parent = sqlite3_column_text(st, 2);
                snprintf(first, len, "a row of %s (rowid %lld) without its %s", t ? (const char *)t : "?",
                         (long long)sqlite3_column_int64(st, 1), parent ? (const char *)parent : "?");
            }
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_fail(s, err, "cannot check integrity");
    return 0;
}

int store_integrity_check(store *s, lvd_err *err)
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
