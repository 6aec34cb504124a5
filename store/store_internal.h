/* store_internal.h: what the store_*.c files share and nobody outside store/
 * may see: the connection, statement helpers and column readers. */
#ifndef LVD_STORE_INTERNAL_H
#define LVD_STORE_INTERNAL_H

#include "store/store.h"

#include <sqlite3.h>

struct store {
    sqlite3 *db;
    char *path;
    int tx_depth;
    int readonly;
};

/* Prepares sql; on failure fills err with the store path and SQLite's message. */
int store_prepare(store *s, const char *sql, sqlite3_stmt **st, lvd_err *err);
/* Formats an error naming the store file and SQLite's current message. */
int store_fail(store *s, lvd_err *err, const char *what);
/* Runs SQL with no result rows. */
int store_exec(store *s, const char *sql, lvd_err *err);

/* Binding helpers: NULL strings bind as SQL NULL. */
void store_bind_text(sqlite3_stmt *st, int idx, const char *v);
/* Column helpers: malloc'd copy or NULL; fixed buffer copy ("" for NULL). */
char *store_col_strdup(sqlite3_stmt *st, int col);
void store_col_copy(sqlite3_stmt *st, int col, char *buf, size_t len);
double store_col_double(sqlite3_stmt *st, int col); /* NAN for NULL */

/* Params columns (p_device .. p_env) shared by runs and verdicts. */
void store_bind_params(sqlite3_stmt *st, int first, const lvd_params *p);
void store_col_params(sqlite3_stmt *st, int first, lvd_params *p);
/* The split columns (p_split_mode, p_tensor_split; schema step 7), bound and
 * read at first and first + 1: the end of runs' and verdicts' column lists. */
void store_bind_split(sqlite3_stmt *st, int first, const lvd_params *p);
void store_col_split(sqlite3_stmt *st, int first, lvd_params *p);

/* Steps st once expecting no row (SQLITE_DONE) and finalizes it; on failure
 * the message names the store file and what was being done. 0 or -1. */
int store_step_done(store *s, sqlite3_stmt *st, const char *what, lvd_err *err);
/* Ensures an array of elem-sized items has room for index n (doubling *cap);
 * returns the (possibly moved) array. */
void *store_grow(void *v, size_t elem, size_t n, size_t *cap);
/* Integer binding and reading with a sentinel that stands for SQL NULL. */
void store_bind_i64_or_null(sqlite3_stmt *st, int idx, int64_t v, int64_t null_value);
int64_t store_col_i64_or(sqlite3_stmt *st, int col, int64_t null_value);

/* The caches of SHA-256 by (path, size, mtime_ns, inode), artifact_paths
 * (models) and file_hashes (engine files), share their shape: looks path up
 * in table (a constant); 0 with sha256 on a hit, 1 on a miss, -1 with err
 * ("cannot read " what). */
int store_hash_cache_lookup(store *s, const char *table, const char *what, const char *path, int64_t size,
                            int64_t mtime_ns, int64_t inode, char sha256[LVD_SHA256_HEX_LEN + 1], lvd_err *err);
/* Binds path, size, mtime_ns, inode, sha256 and now to parameters 1-6 of st:
 * an INSERT into one of those caches. */
void store_bind_hash_row(sqlite3_stmt *st, const char *path, int64_t size, int64_t mtime_ns, int64_t inode,
                         const char *sha256);

/* Reads st's current row into item, one element of the list being read. */
typedef void (*store_row_fn)(sqlite3_stmt *st, void *item);
/* Steps st (its parameters bound) to the end, reading each row with read
 * into a growing array of elem-sized items, then finalizes st. 0 with *out
 * (NULL when there is no row) and *n; when a step fails, the items read are
 * freed with free_item, and -1 with err naming the store file and what. */
int store_rows(store *s, sqlite3_stmt *st, size_t elem, store_row_fn read, void (*free_item)(void *),
               const char *what, void **out, size_t *n, lvd_err *err);

#endif
