/* filehash.h: the store's cache of engine files' SHA-256, keyed by (absolute
 * path, size, mtime_ns, inode) as the model path cache is (identify.h), so
 * an unchanged file is hashed once. Not for models (artifact_paths) nor for
 * deciding which files to hash (engine/files.h). */
#ifndef LVD_STORE_FILEHASH_H
#define LVD_STORE_FILEHASH_H

#include "store/store.h"

/* 0 with sha256 set when path is cached with exactly this size, mtime and
 * inode; 1 when not; -1 with err. */
int store_file_hash_lookup(store *s, const char *path, int64_t size, int64_t mtime_ns, int64_t inode,
                           char sha256[LVD_SHA256_HEX_LEN + 1], lvd_err *err);
/* Records (replaces) path's entry. 0 or -1. */
int store_file_hash_put(store *s, const char *path, int64_t size, int64_t mtime_ns, int64_t inode,
                        const char *sha256, lvd_err *err);

#endif
