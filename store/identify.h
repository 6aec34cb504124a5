/* identify.h: artifact identity. The SHA-256 of a model file, or for a model
 * split into shards (NAME-00001-of-00003.gguf ...) the SHA-256 over its
 * shards' SHA-256 hex digests in order, one per line (docs/store.md, "Artifact
 * identity"); served from the store's caches when every file's (path, size,
 * mtime, inode) is unchanged, so a 20 GB model is hashed once; the GGUF shape
 * (summed over the shards) is read and recorded with it. Every tool that
 * names a model identifies it here. Any shard's path names the split model;
 * the artifact's last_path is then its first shard's. */
#ifndef LVD_STORE_IDENTIFY_H
#define LVD_STORE_IDENTIFY_H

#include "store/store.h"

/* Identifies path: fills out (sha256, size, shape) and records the artifact
 * and the path cache entry. *hashed (may be NULL) is set to 1 when the file's
 * bytes were read and hashed, 0 when the cache answered. A file that is not a
 * readable GGUF is an error (naming the file and what is wrong) unless
 * allow_non_gguf is set, in which case shape.known stays 0 (a split model
 * must be GGUF). A missing or extra shard, or one of another model, is an
 * error naming it (common/gguf_split.h). */
int store_identify(store *s, const char *path, int allow_non_gguf, store_artifact *out,
                   int *hashed, lvd_err *err);

/* The cache half of store_identify, for callers that must not write (a
 * read-only store) nor read a model's bytes: fills out when path's (size,
 * mtime, inode) are in the path cache and the artifact's shape is recorded.
 * Never hashes: stats the file, and reads its GGUF header again for what the
 * store does not keep of the shape (the compute graph's widths, the
 * per-block KV layout: gguf_shape.graph), as store_identify does when its
 * cache answers. Returns 0, 1 when the cache cannot answer (call
 * store_identify on a writable store), or -1 with err (no such file, not a
 * regular file, the store failed). */
int store_identify_cached(store *s, const char *path, store_artifact *out, lvd_err *err);

/* The identity of the model at path without a store: every file is read and
 * hashed (for a read-only caller whose caches cannot answer). 0 or -1. */
int store_identify_bytes(const char *path, char sha[LVD_SHA256_HEX_LEN + 1], lvd_err *err);

#endif
