/* sse.c: llama-server's event stream (see sse.h). */
#include "serve/sse.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void serve_sse_init(serve_sse *p)
{
    memset(p, 0, sizeof *p);
}

void serve_sse_free(serve_sse *p)
{
    lvd_sb_free(&p->line);
}

static int bad(serve_sse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(serve_sse *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(p->why, sizeof p->why, "line %zu: ", p->lineno);
    vsnprintf(p->why + n, sizeof p->why - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* A count field of o: its value, -1 when absent, -2 when not a count. */
static int count_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        return -1;
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
    return d >= 0 && d < 1e9 && d == floor(d) ? (int)d : -2;
}

/* The server's own words of an {"error": ...} object into p->refusal; the
 * stream ends there. */
static void refused(serve_sse *p, const cJSON *e)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
    char *text = cJSON_IsString(m) ? NULL : cJSON_PrintUnformatted(e);
    snprintf(p->refusal, sizeof p->refusal, "%.200s", cJSON_IsString(m) ? m->valuestring : text ? text : "?");
    cJSON_free(text);
    p->done = 1;
}

/* The tokens an event object brings, from tokens_predicted's growth, else
 * its tokens array, else 1 for non-empty content (counted toward the total
 * a later tokens_predicted states: ik_llama.cpp's token events carry none,
 * its last one the whole count). -1 (p->why) when the counts are not
 * counts. */
static int event_tokens(serve_sse *p, const cJSON *o, serve_event *e)
{
    e->predicted = count_of(o, "tokens_predicted");
    e->evaluated = count_of(o, "tokens_evaluated");
    if (e->predicted == -2 || e->evaluated == -2)
        return bad(p, "tokens_predicted or tokens_evaluated is not a count");
    if (e->predicted >= 0) {
        if (e->predicted < p->predicted)
            return bad(p, "tokens_predicted went from %d down to %d", p->predicted, e->predicted);
        e->tokens = e->predicted - p->predicted;
        p->predicted = e->predicted;
        return 0;
    }
    const cJSON *toks = cJSON_GetObjectItemCaseSensitive(o, "tokens");
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(o, "content");
    if (cJSON_IsArray(toks))
        e->tokens = cJSON_GetArraySize(toks);
    else
        e->tokens = cJSON_IsString(content) && *content->valuestring ? 1 : 0;
    p->predicted += e->tokens; /* ik_llama.cpp: only its last event says the total */
    return 0;
}

/* One `data:` payload. 0, or -1 with p->why. */
static int data_line(serve_sse *p, const char *v, serve_event_fn fn, void *ctx)
{
    while (*v == ' ')
        v++;
    if (p->done)
        return bad(p, "an event after the last one ('%.60s')", v);
    if (!strcmp(v, "[DONE]")) {
        p->done = 1;
        return 0;
    }
    cJSON *o = cJSON_Parse(v);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return bad(p, "the data is not a JSON object ('%.60s')", v);
    }
    serve_event e = {0};
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(o, "error");
    if (error) {
        refused(p, error);
        cJSON_Delete(o);
        return 0;
    }
    int rc = event_tokens(p, o, &e);
    if (rc == 0) {
        e.stop = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "stop"));
        p->done = e.stop;
        p->events++;
        fn(&e, ctx);
    }
    cJSON_Delete(o);
    return rc;
}

/* One complete line (no newline). */
static int one_line(serve_sse *p, const char *s, serve_event_fn fn, void *ctx)
{
    p->lineno++;
    if (!*s || *s == ':')
        return 0; /* an event's end, a comment */
    if (lvd_starts_with(s, "data:"))
        return data_line(p, s + 5, fn, ctx);
    if (lvd_starts_with(s, "event:") || lvd_starts_with(s, "id:") || lvd_starts_with(s, "retry:"))
        return 0;
    return bad(p, "not a server-sent event ('%.60s')", s);
}

int serve_sse_feed(serve_sse *p, const char *buf, size_t n, serve_event_fn fn, void *ctx)
{
    if (p->why[0])
        return -1;
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(buf + i, '\n', n - i);
        size_t take = nl ? (size_t)(nl - (buf + i)) : n - i;
        if (p->line.len + take > SERVE_SSE_MAX_LINE) {
            p->lineno++;
            return bad(p, "a line longer than %zu bytes", SERVE_SSE_MAX_LINE);
        }
        lvd_sb_add(&p->line, buf + i, take);
        i += take;
        if (!nl)
            break;
        i++;
        if (p->line.len && p->line.buf[p->line.len - 1] == '\r')
            p->line.buf[--p->line.len] = '\0';
        if (memchr(lvd_sb_str(&p->line), '\0', p->line.len)) {
            p->lineno++;
            return bad(p, "a NUL byte in the stream");
        }
        int rc = one_line(p, lvd_sb_str(&p->line), fn, ctx);
        lvd_sb_reset(&p->line);
        if (rc)
            return -1;
    }
    return 0;
}

int serve_sse_end(serve_sse *p)
{
    if (p->why[0])
        return -1;
    if (p->line.len) {
        p->lineno++;
        return bad(p, "the stream ends inside a line ('%.60s')", lvd_sb_str(&p->line));
    }
    if (!p->done)
        return bad(p, "the stream ends without its last event (%zu event%s, none with \"stop\": true)", p->events,
                   p->events == 1 ? "" : "s");
    return 0;
}
