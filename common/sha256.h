/* sha256.h: SHA-256 of files and streams through OpenSSL's EVP interface, as
 * lowercase hex. Not for choosing what to hash (see store/identify.h). */
#ifndef LVD_SHA256_H
#define LVD_SHA256_H

#include "common/types.h"
#include "common/util.h"

#include <stddef.h>
#include <stdint.h>

typedef struct lvd_sha256 lvd_sha256;

lvd_sha256 *lvd_sha256_new(void);
void lvd_sha256_update(lvd_sha256 *h, const void *data, size_t n);
/* Writes 64 hex chars and a NUL into hex; frees h. */
void lvd_sha256_final(lvd_sha256 *h, char hex[LVD_SHA256_HEX_LEN + 1]);
void lvd_sha256_abort(lvd_sha256 *h);

/* Streams a whole file through SHA-256 at the CPU's hashing speed. 0 or -1. */
int lvd_sha256_file(const char *path, char hex[LVD_SHA256_HEX_LEN + 1], uint64_t *bytes, lvd_err *err);
/* Hashes files[0..n) as lvd_sha256_file does, several at once: one file per
 * thread, at most max_threads threads (0: as many as the machine has cores;
 * 1: one after another), so each file still streams at the CPU's hashing
 * speed. Fills hex[i] and bytes[i] (bytes may be NULL). 0, or -1 with err of
 * the first file (in order) that failed. */
int lvd_sha256_files(char *const *files, size_t n, unsigned max_threads,
                     char (*hex)[LVD_SHA256_HEX_LEN + 1], uint64_t *bytes, lvd_err *err);
/* 1 when s is 64 lowercase hex characters. */
int lvd_sha256_valid(const char *s);

#endif
