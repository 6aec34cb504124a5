/* http.h: what every request fetch/ makes has in common: one libcurl easy
 * handle configured the same way (User-Agent, http/https only, redirects that
 * never downgrade, TLS verification always on, timeouts), the classification
 * of transfer failures into the few kinds a user can act on, and error
 * messages that never carry GITHUB_TOKEN. Internal to fetch/. */
#ifndef LVD_FETCH_HTTP_H
#define LVD_FETCH_HTTP_H

#include "common/util.h"

#include <curl/curl.h>

/* What went wrong with a transfer, in the terms the verification rules and the
 * exit codes need. */
typedef enum fetch_net_kind {
    FETCH_NET_OK = 0,
    FETCH_NET_HTTP,        /* the server answered with an HTTP error status */
    FETCH_NET_UNREACHABLE, /* name resolution, connect, or a timeout before any answer */
    FETCH_NET_TLS,         /* certificate or handshake failure */
    FETCH_NET_TRUNCATED,   /* body shorter than its Content-Length (or the asset size) */
    FETCH_NET_DROPPED,     /* connection reset or closed mid-body */
    FETCH_NET_STALLED,     /* no progress for the stall limit */
    FETCH_NET_WRITE,       /* our side could not store the bytes (disk full, ...) */
    FETCH_NET_INTERRUPTED, /* a signal asked us to stop (fetch_catch_signals) */
    FETCH_NET_OTHER,
} fetch_net_kind;

/* A new easy handle for url, configured as above; api selects the API
 * profile (JSON accept header, GITHUB_TOKEN as bearer when set, short total
 * timeout) rather than the download profile (no token, stall detection only).
 * *headers receives the header list to free with curl_slist_free_all after
 * the transfer (may be NULL). Never returns NULL (aborts on exhaustion). */
CURL *fetch_http_new(const char *url, int api, struct curl_slist **headers);

/* The kind of a libcurl result code. */
fetch_net_kind fetch_http_classify(CURLcode rc);

/* "host" of url for messages (static buffer, truncated). */
const char *fetch_http_host(const char *url);

/* lvd_errf, then every occurrence of $GITHUB_TOKEN in the message replaced by
 * "***". Every error message fetch/ produces goes through this. Returns -1. */
int fetch_errf(lvd_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Replaces every occurrence of $GITHUB_TOKEN in s (in place) by "***". */
void fetch_scrub_token(char *s);

/* Makes SIGINT, SIGTERM and SIGHUP stop a fetch cleanly instead of killing the
 * process mid-write: the transfer and the extraction notice, fail with
 * "interrupted", and remove their temporary files as on any error. For tools'
 * main; the library works without it. */
void fetch_catch_signals(void);
/* The signal that interrupted the fetch, or 0. */
int fetch_interrupted(void);

#endif
