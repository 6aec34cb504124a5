/* store_filehash.c: the engine-file hash cache (see filehash.h), and the
 * lookup and row binding it shares with the model path cache
 * (store_internal.h). */
#include "store/filehash.h"

#include "store/store_internal.h"

#include <stdio.h>

int store_hash_cache_lookup(store *s, const char *table, const char *what, const char *path, int64_t size,
                            int64_t mtime_ns, int64_t inode, char sha256[LVD_SHA256_HEX_LEN + 1], lvd_err *err)
{
    sha256[0] = '\0';
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT sha256 FROM %s WHERE path = ? AND size = ? AND mtime_ns = ? AND inode = ?",
             table);
    store_stmt *st;
    if (store_prepare(s, sql, &st, err))
        return -1;
    store_bind_text(st, 1, path);
    store_bind_i64(st, 2, size);
    store_bind_i64(st, 3, mtime_ns);
    store_bind_i64(st, 4, inode);
    int rc = store_step(st), ret = 1;
    if (rc == STORE_ROW) {
        store_col_copy(st, 0, sha256, LVD_SHA256_HEX_LEN + 1);
        ret = 0;
    } else if (rc != STORE_DONE) {
        char msg[96];
        snprintf(msg, sizeof msg, "cannot read %s", what);
        ret = store_fail(s, err, msg);
    }
    store_finalize(st);
    return ret;
}

void store_bind_hash_row(store_stmt *st, const char *path, int64_t size, int64_t mtime_ns, int64_t inode,
                         const char *sha256)
{
    store_bind_text(st, 1, path);
    store_bind_i64(st, 2, size);
    store_bind_i64(st, 3, mtime_ns);
    store_bind_i64(st, 4, inode);
    store_bind_text(st, 5, sha256);
    store_bind_i64(st, 6, lvd_now());
}

int store_file_hash_lookup(store *s, const char *path, int64_t size, int64_t mtime_ns, int64_t inode,
                           char sha256[LVD_SHA256_HEX_LEN + 1], lvd_err *err)
{
    return store_hash_cache_lookup(s, "file_hashes", "the file hash cache", path, size, mtime_ns, inode, sha256,
                                   err);
}

int store_file_hash_put(store *s, const char *path, int64_t size, int64_t mtime_ns, int64_t inode,
                        const char *sha256, lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(s,
                      "INSERT INTO file_hashes (path, size, mtime_ns, inode, sha256, hashed_at)"
                      " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET size = excluded.size,"
                      " mtime_ns = excluded.mtime_ns, inode = excluded.inode, sha256 = excluded.sha256,"
                      " hashed_at = excluded.hashed_at",
                      &st, err))
        return -1;
    store_bind_hash_row(st, path, size, mtime_ns, inode, sha256);
    return store_step_done(s, st, "cannot record a file hash", err);
}
