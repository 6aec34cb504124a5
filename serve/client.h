/* client.h: N concurrent clients driving a llama-server over HTTP with
 * libcurl's multi interface (one thread, one easy handle per client, a
 * connection per request): each client sends a request, reads its streamed
 * answer (serve/sse.h) and sends the next at once, for a count of requests
 * or a duration. A request is POST /completion
 *   {"prompt": [P token ids], "n_predict": G, "stream": true,
 *    "ignore_eos": true, "cache_prompt": false, "temperature": 0}
 * a prompt of exactly P tokens (ids 1000 to 20999, different for every
 * request, so no prompt cache serves one request from another's) and G
 * generated tokens (end of stream ignored). Per request it times, on the
 * monotonic clock, when it was sent (libcurl asks for its body), when each
 * generated token arrived (the moment the wait for the sockets returned
 * with its bytes, so libcurl's work after the wake-up and the parse do not
 * count; bytes that came in while libcurl read another client's get that
 * stamp too, early by at most that read) and when the stream ended.
 *
 * Errors: a request answered with an HTTP status other than 200, failed by
 * libcurl (refused, reset, its timeout), refused by the server mid-stream
 * (an "error" event) or that ends without its last event is an error of
 * that request (its message kept; a client with 3 in a row
 * stops); a stream that is not llama-server's (serve/sse.h: malformed) ends
 * the whole drive at once: that is no load the server failed, but a server
 * that is not what it claims. Not for starting the server (serve/server.h)
 * nor for the figures (serve/summary.h). */
#ifndef LVD_SERVE_CLIENT_H
#define LVD_SERVE_CLIENT_H

#include "common/util.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

typedef struct serve_req {
    int client;              /* which client sent it, 0 to N-1 */
    int64_t start_ns;        /* monotonic ns: sent by libcurl */
    int64_t first_ns;        /* the first generated token arrived; 0: none did */
    int64_t end_ns;          /* the stream ended (or the request failed) */
    int tokens;              /* generated tokens received */
    int prompt_tokens;       /* the server's tokens_evaluated; -1 unknown */
    double *itl_ms;          /* gap before each token after the first (a gap over k tokens
                                counts k times, divided by k) */
    size_t n_itl;
    char *error;             /* NULL: ok; else one line */
} serve_req;

typedef struct serve_drive_opts {
    const char *url;         /* the completion endpoint: http://127.0.0.1:PORT/completion */
    int clients;             /* N */
    int n_prompt, n_gen;     /* P, G */
    int requests;            /* requests to send in all; 0: for duration_ms */
    int64_t duration_ms;     /* with requests 0: send until then, then finish what is in flight */
    int timeout_ms;          /* one request's limit */
    volatile sig_atomic_t *stop; /* set by a signal handler: end now; NULL: none */
    unsigned seed;           /* varies the prompts between runs */
} serve_drive_opts;

typedef struct serve_drive {
    serve_req *reqs;         /* in the order they ended */
    size_t n;
    int64_t wall_ns;         /* first start to last end */
    int stopped;             /* ended by o->stop */
    char *fatal;             /* a malformed stream ended the drive: why (one line); else NULL */
} serve_drive;

/* Drives the server under o into out (free with serve_drive_free). 0 when
 * the drive ran (requests that failed are in out, fatal says whether the
 * stream was malformed), -1 with err when o is invalid or libcurl could not
 * be set up. */
int serve_drive_run(const serve_drive_opts *o, serve_drive *out, lvd_err *err);
void serve_drive_free(serve_drive *d);

/* The JSON body of request number k (0, 1, ...) of a drive with o's P, G
 * and seed. Caller frees. */
char *serve_request_body(const serve_drive_opts *o, size_t k);

#endif
