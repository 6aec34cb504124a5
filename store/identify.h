/* identify.h: artifact identity. The SHA-256 of a model file, served from the
 * store's path cache when (path, size, mtime, inode) are unchanged, so a 20 GB
 * model is hashed once; the GGUF shape is read and recorded with it. */
#ifndef LVD_STORE_IDENTIFY_H
#define LVD_STORE_IDENTIFY_H

#include "store/store.h"

/* Identifies path: fills out (sha256, size, shape) and records the artifact
 * and the path cache entry. *hashed (may be NULL) is set to 1 when the file's
 * bytes were read and hashed, 0 when the cache answered. A file that is not a
 * readable GGUF is an error (naming the file and what is wrong) unless
 * allow_non_gguf is set, in which case shape.known stays 0. */
int store_identify(store *s, const char *path, int allow_non_gguf, store_artifact *out,
                   int *hashed, lvd_err *err);

/* The cache half of store_identify, for callers that must not write (a
 * read-only store) nor read a model's bytes: fills out when path's (size,
 * mtime, inode) are in the path cache and the artifact's shape is recorded.
 * Only stats the file. Returns 0, 1 when the cache cannot answer (call
 * store_identify on a writable store), or -1 with err (no such file, not a
 * regular file, the store failed). */
int store_identify_cached(store *s, const char *path, store_artifact *out, lvd_err *err);

#endif
