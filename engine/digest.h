/* digest.h: the registered digest of an engine: one SHA-256 over its whole
 * file set (engine/files.h), each file's own SHA-256 served from the store's
 * file hash cache (store/filehash.h) when its path, size, mtime and inode are
 * unchanged, so that registering an engine again reads no file.
 *
 * Definition: the SHA-256 of the text `sha256sum` prints for the set's files
 * named by their path relative to DIR, in the set's (bytewise) order: one
 * line "HEX  REL\n" per file. By hand:
 *     cd DIR && LC_ALL=C sha256sum $(printf '%s\n' FILES | LC_ALL=C sort) | sha256sum
 * Not for the digest of a downloaded archive (fetch/). */
#ifndef LVD_ENGINE_DIGEST_H
#define LVD_ENGINE_DIGEST_H

#include "common/types.h"
#include "common/util.h"
#include "store/store.h"

#include <stddef.h>

/* The digest of dir's file set into hex. *hashed (may be NULL) gets the
 * number of files whose bytes were read (0 when the cache answered for
 * all). 0, or -1 with err (dir unreadable, an empty file set, a file that
 * cannot be read or changed while hashed, the store failed). */
int engine_digest(store *s, const char *dir, char hex[LVD_SHA256_HEX_LEN + 1], size_t *hashed,
                  lvd_err *err);

#endif
