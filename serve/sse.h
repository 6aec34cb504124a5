/* sse.h: llama-server's streamed completion (POST /completion with "stream":
 * true) read as it arrives: server-sent events, one `data: JSON` line per
 * event and a blank line after each (tools/server/server-common.cpp of
 * b9749 writes "data: " + JSON + "\n\n"); `data: [DONE]` ends an OpenAI-style
 * stream. Each event's object carries the tokens since the last
 * (tokens_predicted counts them: b9749's server_task_result_cmpl_partial),
 * the last one "stop": true with tokens_evaluated (the prompt's tokens).
 * Pure: bytes in, events out (fuzzed: tests/fuzz/fuzz_sse.c). Not for the
 * HTTP itself (serve/client.h).
 *
 * Malformed (serve_sse_feed or serve_sse_end returns -1, why says where): a
 * line that is no SSE field (`data:`, `event:`, `id:`, `retry:`, a `:`
 * comment, blank), a data line that is not a JSON object, an object whose
 * tokens_predicted goes down or is not a count, a line over 1 MiB, an
 * event after the last, and a stream that ends without its last event.
 * An object with "error" is the server's refusal of that request (b10587's
 * "The model produced output that does not match the expected Content-only
 * format", mid-stream): the stream's end, its words in refusal. */
#ifndef LVD_SERVE_SSE_H
#define LVD_SERVE_SSE_H

#include "common/util.h"

#include <stddef.h>

#define SERVE_SSE_MAX_LINE ((size_t)1 << 20)

typedef struct serve_event {
    int tokens;        /* generated tokens this event brings (0 for the last one, usually) */
    int stop;          /* the last event */
    int predicted;     /* tokens_predicted so far; -1 when the event has none */
    int evaluated;     /* tokens_evaluated (the prompt's tokens); -1 when it has none */
} serve_event;

typedef void (*serve_event_fn)(const serve_event *e, void *ctx);

typedef struct serve_sse {
    lvd_sb line;       /* the line being read */
    size_t lineno;     /* lines read, for messages */
    int done;          /* the last event came */
    int predicted;     /* tokens_predicted of the last event that had it */
    size_t events;
    char why[320];     /* malformed: where and what */
    char refusal[208]; /* the server refused the request: its message; "" none */
} serve_sse;

void serve_sse_init(serve_sse *p);
void serve_sse_free(serve_sse *p);
/* Reads buf[0..n), calling fn for each complete event. 0, or -1 with
 * p->why once the stream is malformed (every later call returns -1). */
int serve_sse_feed(serve_sse *p, const char *buf, size_t n, serve_event_fn fn, void *ctx);
/* The end of the stream: 0 when its last event came, else -1 with p->why. */
int serve_sse_end(serve_sse *p);

#endif
