/* store_internal.h: what the store_*.c files share and nobody outside store/
 * may see: the connection, statement helpers and column readers. */
#ifndef LVD_STORE_INTERNAL_H
#define LVD_STORE_INTERNAL_H

#include "store/store.h"

#include <stdint.h>

struct sqlite3;
struct pg_conn;
struct pg_result;
typedef struct store_stmt store_stmt;
typedef struct store_ops store_ops;

struct store {
    const store_ops *ops;     /* the backend: store_sqlite_ops or store_pg_ops */
    struct sqlite3 *db;       /* SQLite */
    struct pg_conn *pg;       /* PostgreSQL */
    struct pg_result *pg_err; /* PostgreSQL: the last failed statement's result */
    char *path;               /* the file, or the URI as shown (never a password) */
    int tx_depth;
    int readonly;
};

/* --- the dialect seam ----------------------------------------------------
 * The only calls through which store_*.c files reach the database. SQL text
 * uses ?N parameters (numbered from 1; a number the text lacks is ignored
 * when bound; a bare ? is the next number) and the dialect both backends
 * share: ON CONFLICT, RETURNING, COALESCE, CASE, standard types; no
 * backend's own functions (date, strftime, group_concat, json_*, scalar
 * max), no bare columns beside an aggregate, no INSERT OR REPLACE, no
 * LIMIT -1, no integer used as a boolean (WHEN x <> 0), an alias on every
 * subquery in FROM, the column "binary" quoted (reserved on PostgreSQL),
 * and a parameter that only meets IS NULL typed: CAST(?1 AS TEXT) IS NULL.
 * Where the dialects must differ, the difference is one store_ops entry
 * per backend.
 * store_sqlite.c and store_pg.c are the two sides; store_seam.c dispatches. */
enum { STORE_ERROR = -1, STORE_ROW = 1, STORE_DONE = 2 };

/* Prepares sql; on failure fills err with the store path and the database's message. */
int store_prepare(store *s, const char *sql, store_stmt **st, lvd_err *err);
/* Formats an error naming the store and the database's current message. */
int store_fail(store *s, lvd_err *err, const char *what);
/* Runs SQL with no result rows (several statements separated by ';'). */
int store_exec(store *s, const char *sql, lvd_err *err);
/* Runs SQL ignoring its message (ROLLBACK, COMMIT): 0 or -1. */
int store_exec_quiet(store *s, const char *sql);
/* Whether the last failure was a UNIQUE constraint on column ("table.col"). */
int store_unique_violation(store *s, const char *column);
/* Starts a write transaction that waits for other writers. */
int store_begin_write(store *s, lvd_err *err);
/* The schema version recorded in the store, and setting it (in a transaction). */
int store_version_get(store *s, int64_t *v, lvd_err *err);
int store_version_set(store *s, int64_t v, lvd_err *err);
/* The migration that takes a store at version have forward: malloc'd SQL and
 * the version it reaches in *to (several steps at once where a backend
 * creates its schema whole), or NULL when have is the newest. */
char *store_migration(store *s, int64_t have, int64_t *to);

/* Statement calls: bind (NULL text binds SQL NULL), step (STORE_ROW,
 * STORE_DONE or STORE_ERROR), reset (bindings kept), finalize (NULL is a
 * no-op), columns (text valid until the next step; store_col_null for NULL). */
void store_bind_i64(store_stmt *st, int idx, int64_t v);
void store_bind_int(store_stmt *st, int idx, int v);
void store_bind_double(store_stmt *st, int idx, double v);
void store_bind_null(store_stmt *st, int idx);
void store_bind_text(store_stmt *st, int idx, const char *v);
int store_step(store_stmt *st);
void store_reset(store_stmt *st);
void store_finalize(store_stmt *st);
int64_t store_col_i64(store_stmt *st, int col);
int store_col_int(store_stmt *st, int col);
double store_col_real(store_stmt *st, int col);
const char *store_col_text(store_stmt *st, int col);
int store_col_null(store_stmt *st, int col);
/* A document (store_docs.h): bound packed where the backend keeps BLOBs
 * (SQLite), else as text; read back as its text, malloc'd (NULL for NULL
 * or a packed value that does not unpack). Defined in store_docs.c. */
void store_bind_doc(store_stmt *st, int idx, const char *text);
char *store_col_doc(store_stmt *st, int col);
/* The id of the row the last INSERT on s created. */
int64_t store_last_id(store *s);

/* A backend: the seam's calls for one database kind (store_seam.c calls
 * them; store_sqlite.c and store_pg*.c define them). open connects s->path
 * (flags as store_open's) and leaves a newer schema to the caller's refusal. */
struct store_ops {
    int (*open)(store *s, int flags, lvd_err *err);
    void (*close)(store *s);
    int (*prepare)(store *s, const char *sql, store_stmt **st, lvd_err *err);
    int (*fail)(store *s, lvd_err *err, const char *what);
    int (*exec)(store *s, const char *sql, lvd_err *err);
    int (*exec_quiet)(store *s, const char *sql);
    int (*unique_violation)(store *s, const char *column);
    int (*begin_write)(store *s, lvd_err *err);
    int (*version_get)(store *s, int64_t *v, lvd_err *err);
    int (*version_set)(store *s, int64_t v, lvd_err *err);
    char *(*migration)(int64_t have, int64_t *to);
    int (*integrity_check)(store *s, lvd_err *err);
    int64_t (*last_id)(store *s);
    void (*bind_i64)(store_stmt *st, int idx, int64_t v);
    void (*bind_double)(store_stmt *st, int idx, double v);
    void (*bind_text)(store_stmt *st, int idx, const char *v); /* NULL: SQL NULL */
    int (*step)(store_stmt *st);
    void (*reset)(store_stmt *st);
    void (*finalize)(store_stmt *st);
    int64_t (*col_i64)(store_stmt *st, int col);
    double (*col_real)(store_stmt *st, int col);
    const char *(*col_text)(store_stmt *st, int col);
    int (*col_null)(store_stmt *st, int col);
    /* BLOBs, for packed documents: NULL where the backend keeps documents
     * as text (PostgreSQL, which compresses them itself); col_blob gives
     * NULL when the value is not a BLOB. */
    void (*bind_blob)(store_stmt *st, int idx, const void *v, size_t len);
    const void *(*col_blob)(store_stmt *st, int col, size_t *len);
};
/* Every backend's statement starts with this. */
struct store_stmt {
    const store_ops *ops;
};
extern const store_ops store_sqlite_ops;
extern const store_ops store_pg_ops;

/* --- helpers on top of the seam ------------------------------------------ */
/* Column helpers: malloc'd copy or NULL; fixed buffer copy ("" for NULL). */
char *store_col_strdup(store_stmt *st, int col);
void store_col_copy(store_stmt *st, int col, char *buf, size_t len);
double store_col_double(store_stmt *st, int col); /* NAN for NULL */

/* Params columns (p_device .. p_env) shared by runs and verdicts. */
void store_bind_params(store_stmt *st, int first, const lvd_params *p);
void store_col_params(store_stmt *st, int first, lvd_params *p);
/* The split columns (p_split_mode, p_tensor_split; schema step 7), bound and
 * read at first and first + 1: the end of runs' and verdicts' column lists. */
void store_bind_split(store_stmt *st, int first, const lvd_params *p);
void store_col_split(store_stmt *st, int first, lvd_params *p);
/* The fit columns (p_fit_target, p_fit_ctx; schema 8), bound and read apart
 * from store_bind_params' nine so statements add them at their end. */
void store_bind_fit(store_stmt *st, int first, const lvd_params *p);
void store_col_fit(store_stmt *st, int first, lvd_params *p);
/* p_parallel (llama-server -np of a serving arm; 0: a llama-bench arm). */
void store_bind_parallel(store_stmt *st, int col, const lvd_params *p);
void store_col_parallel(store_stmt *st, int col, lvd_params *p);

/* Steps st once expecting no row (STORE_DONE) and finalizes it; on failure
 * the message names the store file and what was being done. 0 or -1. */
int store_step_done(store *s, store_stmt *st, const char *what, lvd_err *err);
/* Ensures an array of elem-sized items has room for index n (doubling *cap);
 * returns the (possibly moved) array. */
void *store_grow(void *v, size_t elem, size_t n, size_t *cap);
/* Integer binding and reading with a sentinel that stands for SQL NULL. */
void store_bind_i64_or_null(store_stmt *st, int idx, int64_t v, int64_t null_value);
int64_t store_col_i64_or(store_stmt *st, int col, int64_t null_value);

/* The caches of SHA-256 by (path, size, mtime_ns, inode), artifact_paths
 * (models) and file_hashes (engine files), share their shape: looks path up
 * in table (a constant); 0 with sha256 on a hit, 1 on a miss, -1 with err
 * ("cannot read " what). */
int store_hash_cache_lookup(store *s, const char *table, const char *what, const char *path, int64_t size,
                            int64_t mtime_ns, int64_t inode, char sha256[LVD_SHA256_HEX_LEN + 1], lvd_err *err);
/* Binds path, size, mtime_ns, inode, sha256 and now to parameters 1-6 of st:
 * an INSERT into one of those caches. */
void store_bind_hash_row(store_stmt *st, const char *path, int64_t size, int64_t mtime_ns, int64_t inode,
                         const char *sha256);

/* Reads st's current row into item, one element of the list being read. */
typedef void (*store_row_fn)(store_stmt *st, void *item);
/* Steps st (its parameters bound) to the end, reading each row with read
 * into a growing array of elem-sized items, then finalizes st. 0 with *out
 * (NULL when there is no row) and *n; when a step fails, the items read are
 * freed with free_item, and -1 with err naming the store file and what. */
int store_rows(store *s, store_stmt *st, size_t elem, store_row_fn read, void (*free_item)(void *),
               const char *what, void **out, size_t *n, lvd_err *err);

#endif
