/* download.h: one pass over the network: libcurl streams an asset into
 * SHA-256 and into a file descriptor at once, and every way the transfer can
 * fail (HTTP status, truncated body, dropped connection, stall, TLS, a write
 * that failed on our side) becomes one clear line. Not for choosing the URL or
 * judging the digest (fetch.h), and not for the temporary file's lifetime. */
#ifndef LVD_FETCH_DOWNLOAD_H
#define LVD_FETCH_DOWNLOAD_H

#include "common/types.h"
#include "common/util.h"
#include "fetch/http.h"

#include <stdint.h>

typedef struct fetch_dl {
    char sha256[LVD_SHA256_HEX_LEN + 1]; /* of the bytes received (complete only on success) */
    uint64_t bytes;                      /* bytes received and written */
    long http_code;                      /* last HTTP status, 0 when none */
    fetch_net_kind kind;                 /* FETCH_NET_OK, or what failed */
} fetch_dl;

/* GETs url (redirects followed) and writes the body to fd while hashing it.
 * path names fd in messages. expected_size >= 0 is the size the release lists;
 * a body of any other length is an error. A progress line (bytes, rate, ETA)
 * is drawn on a terminal only. 0 on success; -1 with out->kind and err set. */
int fetch_download(const char *url, int fd, const char *path, int64_t expected_size, fetch_dl *out,
                   lvd_err *err);

/* "12.3 MiB"-style size into buf. */
const char *fetch_human_bytes(double bytes, char *buf, size_t cap);

#endif
