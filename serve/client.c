/* client.c: the load driver over libcurl's multi interface (see client.h). */
#include "serve/client.h"

#include "serve/sse.h"

#include <curl/curl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define POLL_MS 50               /* longest wait for the sockets: how soon a stop is seen */
#define MAX_ERRORS_IN_A_ROW 3    /* a client that failed this often stops */
#define ERROR_BODY_MAX 512       /* bytes of a non-200 answer kept for its message */
#define TOKEN_BASE 1000
#define TOKEN_SPAN 20000

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* One client: its handle and the request in flight. */
typedef struct client {
    CURL *h;
    struct curl_slist *headers;
    serve_sse sse;
    serve_req req;            /* the request in flight */
    size_t itl_cap;
    int64_t last_ns;          /* the last token's arrival */
    int64_t arrived_ns;       /* the bytes being parsed arrived */
    lvd_sb error_body;        /* a non-200 answer */
    int http_checked, http_ok;
    int busy, errors_in_a_row;
    char *body;               /* the request's body, handed to libcurl by on_read */
    size_t body_len, body_sent;
    char curl_err[CURL_ERROR_SIZE];
    struct drive *d;
} client;

typedef struct drive {
    const serve_drive_opts *o;
    serve_drive *out;
    size_t cap;
    size_t issued;
    int64_t deadline_ns;      /* duration mode */
    int64_t woke_ns;          /* the wait for the sockets returned; 0: no wait before this perform */
} drive;

char *serve_request_body(const serve_drive_opts *o, size_t k)
{
    lvd_sb sb = {0};
    lvd_sb_adds(&sb, "{\"prompt\":[");
    uint64_t x = (uint64_t)o->seed * 2654435761u + (uint64_t)k * 40503u;
    for (int i = 0; i < o->n_prompt; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        lvd_sb_addf(&sb, "%s%u", i ? "," : "", (unsigned)(TOKEN_BASE + (x >> 33) % TOKEN_SPAN));
    }
    lvd_sb_addf(&sb, "],\"n_predict\":%d,\"stream\":true,\"ignore_eos\":true,\"cache_prompt\":false,"
                     "\"temperature\":0}", o->n_gen);
    return lvd_sb_detach(&sb);
}

static void push_itl(client *c, double ms)
{
    if (c->req.n_itl == c->itl_cap) {
        c->itl_cap = c->itl_cap ? c->itl_cap * 2 : 64;
        c->req.itl_ms = lvd_xrealloc(c->req.itl_ms, c->itl_cap * sizeof *c->req.itl_ms);
    }
    c->req.itl_ms[c->req.n_itl++] = ms;
}

/* An event of the stream: a token's arrival (and the gap since the last). */
static void on_event(const serve_event *e, void *ctx)
{
    client *c = ctx;
    int64_t t = c->arrived_ns;
    if (e->evaluated >= 0)
        c->req.prompt_tokens = e->evaluated;
    if (e->tokens <= 0)
        return;
    if (!c->req.first_ns) {
        c->req.first_ns = t;
        for (int k = 1; k < e->tokens; k++)
            push_itl(c, 0.0); /* tokens that came with the first */
    } else {
        for (int k = 0; k < e->tokens; k++)
            push_itl(c, (double)(t - c->last_ns) / 1e6 / e->tokens);
    }
    c->last_ns = t;
    c->req.tokens += e->tokens;
}

/* libcurl asks for the body as it writes the request (the connection is up
 * by then, and the head is written with it): the request's start is the
 * first ask, so TTFT counts neither a connection's setup nor libcurl's own
 * work before the send. */
static size_t on_read(char *buf, size_t size, size_t n, void *ctx)
{
    client *c = ctx;
    if (c->body_sent == 0)
        c->req.start_ns = now_ns();
    size_t k = c->body_len - c->body_sent < size * n ? c->body_len - c->body_sent : size * n;
    memcpy(buf, c->body + c->body_sent, k);
    c->body_sent += k;
    return k;
}

/* When the bytes libcurl hands over now arrived: when the wait for the
 * sockets returned, not when libcurl got round to this handle, so that
 * neither libcurl's work after the wake-up nor the parse counts in a
 * token's time. Bytes read without a wait before (a perform that sent a
 * request) arrived now. */
static int64_t arrival(const client *c)
{
    int64_t t = c->d->woke_ns ? c->d->woke_ns : now_ns();
    return t > c->req.start_ns ? t : c->req.start_ns;
}

static size_t on_data(char *buf, size_t size, size_t n, void *ctx)
{
    client *c = ctx;
    size_t len = size * n;
    c->arrived_ns = arrival(c);
    if (!c->http_checked) {
        long code = 0;
        curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &code);
        c->http_checked = 1;
        c->http_ok = code == 200;
    }
    if (!c->http_ok) {
        size_t room = c->error_body.len < ERROR_BODY_MAX ? ERROR_BODY_MAX - c->error_body.len : 0;
        lvd_sb_add(&c->error_body, buf, len < room ? len : room);
        return len;
    }
    if (serve_sse_feed(&c->sse, buf, len, on_event, c) != 0 && !c->d->out->fatal)
        c->d->out->fatal = lvd_xasprintf("llama-server's stream is malformed (request %zu, client %d): %s",
                                         c->d->out->n + 1, c->req.client + 1, c->sse.why);
    return len;
}

/* The first line of a non-200 answer, for its message. */
static char *status_error(client *c, long code)
{
    const char *b = lvd_sb_str(&c->error_body);
    size_t k = strcspn(b, "\r\n");
    return lvd_xasprintf("HTTP %ld: %.*s", code, (int)(k > 200 ? 200 : k), b);
}

static int client_setup(client *c, drive *d)
{
    memset(c, 0, sizeof *c);
    c->d = d;
    c->h = curl_easy_init();
    if (!c->h)
        return -1;
    c->headers = curl_slist_append(NULL, "Content-Type: application/json");
    c->headers = curl_slist_append(c->headers, "Expect:"); /* no 100-continue round trip for a long prompt */
    curl_easy_setopt(c->h, CURLOPT_URL, d->o->url);
    curl_easy_setopt(c->h, CURLOPT_HTTPHEADER, c->headers);
    curl_easy_setopt(c->h, CURLOPT_NOPROXY, "*"); /* loopback: never through a proxy of the environment */
    curl_easy_setopt(c->h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c->h, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(c->h, CURLOPT_FORBID_REUSE, 1L); /* b9749's server closes after every stream */
    curl_easy_setopt(c->h, CURLOPT_PROTOCOLS_STR, "http");
    curl_easy_setopt(c->h, CURLOPT_TIMEOUT_MS, (long)d->o->timeout_ms);
    curl_easy_setopt(c->h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c->h, CURLOPT_WRITEDATA, c);
    curl_easy_setopt(c->h, CURLOPT_POST, 1L);
    curl_easy_setopt(c->h, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(c->h, CURLOPT_READDATA, c);
    curl_easy_setopt(c->h, CURLOPT_ERRORBUFFER, c->curl_err);
    return 0;
}

static void client_cleanup(client *c, CURLM *m)
{
    if (c->busy)
        curl_multi_remove_handle(m, c->h);
    if (c->h)
        curl_easy_cleanup(c->h);
    curl_slist_free_all(c->headers);
    serve_sse_free(&c->sse);
    lvd_sb_free(&c->error_body);
    free(c->req.itl_ms);
    free(c->req.error);
    free(c->body);
}

/* Whether another request may start now. */
static int more_wanted(const drive *d)
{
    if (d->o->stop && *d->o->stop)
        return 0;
    if (d->out->fatal)
        return 0;
    if (d->o->requests > 0)
        return d->issued < (size_t)d->o->requests;
    return now_ns() < d->deadline_ns;
}

static void issue(client *c, CURLM *m, int index)
{
    drive *d = c->d;
    free(c->body);
    c->body = serve_request_body(d->o, d->issued++);
    c->body_len = strlen(c->body);
    c->body_sent = 0;
    curl_easy_setopt(c->h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)c->body_len);
    serve_sse_free(&c->sse);
    serve_sse_init(&c->sse);
    lvd_sb_reset(&c->error_body);
    memset(&c->req, 0, sizeof c->req);
    c->itl_cap = 0;
    c->req.client = index;
    c->req.prompt_tokens = -1;
    c->http_checked = c->http_ok = 0;
    c->curl_err[0] = '\0';
    c->busy = 1;
    curl_multi_add_handle(m, c->h);
    int running;
    c->req.start_ns = now_ns(); /* on_read stamps it again as the request goes out */
    curl_multi_perform(m, &running); /* now, not at the loop's next turn */
}

/* The request of c ended with code; moves it into the drive's list. */
static void finish(client *c, CURLM *m, CURLcode code)
{
    drive *d = c->d;
    curl_multi_remove_handle(m, c->h);
    c->busy = 0;
    serve_req *r = &c->req;
    r->end_ns = now_ns();
    long http = 0;
    curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &http);
    if (code != CURLE_OK)
        r->error = lvd_xasprintf("%s", c->curl_err[0] ? c->curl_err : curl_easy_strerror(code));
    else if (http != 200)
        r->error = status_error(c, http);
    else if (c->sse.refusal[0])
        r->error = lvd_xasprintf("llama-server refused it: %s", c->sse.refusal);
    else if (serve_sse_end(&c->sse) != 0 && !d->out->fatal)
        r->error = lvd_xasprintf("the stream ended early: %s", c->sse.why);
    c->errors_in_a_row = r->error ? c->errors_in_a_row + 1 : 0;
    if (d->out->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 64;
        d->out->reqs = lvd_xrealloc(d->out->reqs, d->cap * sizeof *d->out->reqs);
    }
    d->out->reqs[d->out->n++] = *r;
    memset(r, 0, sizeof *r);
}

static int check_opts(const serve_drive_opts *o, lvd_err *err)
{
    if (!o->url || o->clients < 1 || o->n_prompt < 1 || o->n_gen < 1 || o->timeout_ms < 1)
        return lvd_errf(err, "serve: a drive needs a URL, clients, P and G at least 1, and a timeout");
    if (o->requests < 0 || (o->requests == 0 && o->duration_ms <= 0))
        return lvd_errf(err, "serve: a drive needs a count of requests or a duration");
    return 0;
}

int serve_drive_run(const serve_drive_opts *o, serve_drive *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    if (check_opts(o, err))
        return -1;
    static int initialised;
    if (!initialised && curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK)
        initialised = 1;
    CURLM *m = curl_multi_init();
    client *cl = lvd_xcalloc((size_t)o->clients, sizeof *cl);
    drive d = {.o = o, .out = out, .deadline_ns = now_ns() + o->duration_ms * 1000000};
    int rc = m ? 0 : lvd_errf(err, "serve: cannot set up libcurl");
    for (int i = 0; rc == 0 && i < o->clients; i++)
        if (client_setup(&cl[i], &d) != 0)
            rc = lvd_errf(err, "serve: cannot create a libcurl handle");
    int64_t first = now_ns();
    for (int i = 0; rc == 0 && i < o->clients && more_wanted(&d); i++)
        issue(&cl[i], m, i);
    int running = 1;
    while (rc == 0 && running) {
        curl_multi_perform(m, &running);
        d.woke_ns = 0; /* a request issued below reads without a wait */
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(m, &left)) != NULL) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            client *c = NULL;
            for (int i = 0; i < o->clients && !c; i++)
                c = cl[i].h == msg->easy_handle ? &cl[i] : NULL;
            if (!c)
                continue;
            finish(c, m, msg->data.result);
            if (more_wanted(&d) && c->errors_in_a_row < MAX_ERRORS_IN_A_ROW)
                issue(c, m, (int)(c - cl));
        }
        int busy = 0;
        for (int i = 0; i < o->clients; i++)
            busy |= cl[i].busy;
        if (out->fatal || (o->stop && *o->stop) || !busy)
            break;
        curl_multi_poll(m, NULL, 0, POLL_MS, NULL);
        d.woke_ns = now_ns();
        running = 1;
    }
    out->stopped = o->stop && *o->stop;
    out->wall_ns = now_ns() - first;
    if (out->n) { /* first start to last end */
        int64_t lo = out->reqs[0].start_ns, hi = out->reqs[0].end_ns;
        for (size_t i = 1; i < out->n; i++) {
            lo = out->reqs[i].start_ns < lo ? out->reqs[i].start_ns : lo;
            hi = out->reqs[i].end_ns > hi ? out->reqs[i].end_ns : hi;
        }
        out->wall_ns = hi - lo;
    }
    for (int i = 0; i < o->clients; i++)
        client_cleanup(&cl[i], m);
    free(cl);
    if (m)
        curl_multi_cleanup(m);
    return rc;
}

void serve_drive_free(serve_drive *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->reqs[i].itl_ms);
        free(d->reqs[i].error);
    }
    free(d->reqs);
    free(d->fatal);
    memset(d, 0, sizeof *d);
}
