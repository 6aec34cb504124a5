/* fuzz_sse.c: libFuzzer harness for llama-server's event stream as lvd
 * serve reads it (serve/sse.h). The input is fed whole and again cut at
 * every 7th byte: both readings must agree (events, their tokens, malformed
 * or not, where), a malformed stream must say which line in one line, and
 * the token counts must never go down. Never a crash or a leak. Seeds: the
 * real stream (tests/fixtures/llama.cpp/cpu-build-b9749/server-completion-stream.txt). */
#include <stdio.h>

#include "serve/sse.h"
#include "tests/fuzz/fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct tally {
    size_t events;
    long tokens;
    int stops;
} tally;

static void on_event(const serve_event *e, void *ctx)
{
    tally *t = ctx;
    FUZZ_CHECK(e->tokens >= 0 && (e->predicted >= -1) && (e->evaluated >= -1));
    t->events++;
    t->tokens += e->tokens;
    t->stops += e->stop;
}

/* Feeds data in pieces of step bytes (0: whole); rc of the last call and of the end. */
static int feed(const uint8_t *data, size_t size, size_t step, tally *t, char *why, size_t len)
{
    serve_sse p;
    serve_sse_init(&p);
    int rc = 0;
    for (size_t i = 0; i < size && rc == 0; i += step ? step : size)
        rc = serve_sse_feed(&p, (const char *)data + i, step && size - i > step ? step : size - i, on_event, t);
    if (rc == 0)
        rc = serve_sse_end(&p);
    snprintf(why, len, "%s", p.why);
    FUZZ_CHECK(rc == 0 ? !p.why[0] : !strncmp(p.why, "line ", 5) && !strchr(p.why, '\n'));
    serve_sse_free(&p);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tally a = {0}, b = {0};
    char wa[320], wb[320];
    int ra = feed(data, size, 0, &a, wa, sizeof wa), rb = feed(data, size, 7, &b, wb, sizeof wb);
    FUZZ_CHECK(ra == rb && a.events == b.events && a.tokens == b.tokens && a.stops == b.stops);
    FUZZ_CHECK(!strcmp(wa, wb));
    FUZZ_CHECK(a.stops <= 1);
    return 0;
}
