/* server.c: starting, watching and stopping the measured llama-server (see
 * server.h). */
#include "serve/server.h"

#include "serve/port.h"

#include <curl/curl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEALTH_POLL_MS 25
#define HEALTH_REQUEST_MS 2000
#define HELP_TIMEOUT_MS 30000
#define BODY_MAX ((size_t)1 << 20)

/* Words the server line gets from lvd serve, and whether each takes a value. */
static const struct {
    const char *word;
    int value;
} ours[] = {{"-np", 1}, {"--parallel", 1}, {"--host", 1}, {"--port", 1}, {"--metrics", 0}};

char **serve_server_argv(const char *const *argv, int parallel, int port, int metrics)
{
    char **v = NULL;
    size_t n = 0;
    for (size_t i = 0; argv[i]; i++) {
        int skip = -1;
        for (size_t k = 0; k < LVD_ARRAY_LEN(ours) && skip < 0; k++)
            if (!strcmp(argv[i], ours[k].word))
                skip = ours[k].value;
        if (skip < 0)
            lvd_strv_push(&v, &n, lvd_xstrdup(argv[i]));
        else if (skip && argv[i + 1])
            i++;
    }
    lvd_strv_push(&v, &n, lvd_xstrdup("--host"));
    lvd_strv_push(&v, &n, lvd_xstrdup("127.0.0.1"));
    lvd_strv_push(&v, &n, lvd_xstrdup("--port"));
    lvd_strv_push(&v, &n, lvd_xasprintf("%d", port));
    lvd_strv_push(&v, &n, lvd_xstrdup("-np"));
    lvd_strv_push(&v, &n, lvd_xasprintf("%d", parallel));
    if (metrics)
        lvd_strv_push(&v, &n, lvd_xstrdup("--metrics"));
    return v;
}

static size_t on_body(char *buf, size_t size, size_t n, void *ctx)
{
    lvd_sb *sb = ctx;
    size_t len = size * n;
    if (sb) {
        size_t room = sb->len < BODY_MAX ? BODY_MAX - sb->len : 0;
        lvd_sb_add(sb, buf, len < room ? len : room);
    }
    return len;
}

int serve_http_get(const char *url, int timeout_ms, long *code, lvd_sb *body, lvd_err *err)
{
    *code = 0;
    CURL *h = curl_easy_init();
    if (!h)
        return lvd_errf(err, "cannot create a libcurl handle");
    char msg[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http");
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, body);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, msg);
    CURLcode rc = curl_easy_perform(h);
    if (rc == CURLE_OK)
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, code);
    curl_easy_cleanup(h);
    return rc == CURLE_OK ? 0 : lvd_errf(err, "%s", msg[0] ? msg : curl_easy_strerror(rc));
}

/* The last non-empty line of the server's log (at most its last 64 KiB);
 * malloc'd, "" when none. */
static char *log_last_line(const char *path)
{
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return lvd_xstrdup("");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    long from = size > 65536 ? size - 65536 : 0;
    fseek(f, from, SEEK_SET);
    lvd_sb sb = {0};
    char buf[4096];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, f)) > 0)
        lvd_sb_add(&sb, buf, k);
    fclose(f);
    char *s = sb.buf ? sb.buf : lvd_xstrdup("");
    size_t end = strlen(s);
    while (end && (s[end - 1] == '\n' || s[end - 1] == '\r' || s[end - 1] == ' '))
        end--;
    size_t start = end;
    while (start && s[start - 1] != '\n')
        start--;
    char *line = lvd_xstrndup(s + start, end - start);
    free(s);
    return line;
}

/* Waits for /health 200. 0, or -1 with err. */
static int wait_healthy(const serve_server_opts *o, serve_server *s, int64_t t0, lvd_err *err)
{
    char url[96], last[160] = "no answer";
    snprintf(url, sizeof url, "%s/health", s->base);
    for (;;) {
        if (o->stop && *o->stop)
            return lvd_errf(err, "interrupted while %s was loading", s->argv[0]);
        if (proc_child_exited(&s->child)) {
            char how[96];
            char *line = log_last_line(s->log_path);
            lvd_errf(err, "%s exited (%s) before it was healthy%s%.300s", s->argv[0],
                     proc_child_describe(&s->child, how, sizeof how), *line ? ": " : "", line);
            free(line);
            return -1;
        }
        long code;
        lvd_sb body = {0};
        lvd_err e;
        if (serve_http_get(url, HEALTH_REQUEST_MS, &code, &body, &e) == 0) {
            if (code == 200) {
                lvd_sb_free(&body);
                s->healthy_ms = lvd_mono_ms() - t0;
                return 0;
            }
            const char *b = lvd_sb_str(&body);
            snprintf(last, sizeof last, "HTTP %ld %.*s", code, (int)strcspn(b, "\r\n") > 100 ? 100 : (int)strcspn(b, "\r\n"), b);
        }
        lvd_sb_free(&body);
        if (lvd_mono_ms() - t0 >= o->health_timeout_ms)
            return lvd_errf(err, "%s did not become healthy within %d s (last GET /health: %s)", s->argv[0],
                            (o->health_timeout_ms + 999) / 1000, last);
        usleep(HEALTH_POLL_MS * 1000);
    }
}

int serve_server_start(const serve_server_opts *o, serve_server *s, lvd_err *err)
{
    memset(s, 0, sizeof *s);
    if (!o->argv || !o->argv[0] || o->parallel < 1 || o->health_timeout_ms < 1)
        return lvd_errf(err, "serve: a server needs a launch line, -np and a health timeout");
    if (serve_port_pick(o->port, &s->port, err) != 0)
        return -2;
    snprintf(s->base, sizeof s->base, "http://127.0.0.1:%d", s->port);
    s->argv = serve_server_argv(o->argv, o->parallel, s->port, o->metrics);
    s->log_path = o->log_path ? lvd_xstrdup(o->log_path) : NULL;
    proc_spec spec = {.argv = (const char *const *)s->argv, .env = o->env, .timeout_ms = o->health_timeout_ms};
    int64_t t0 = lvd_mono_ms();
    if (proc_start(&spec, s->log_path, &s->child, err) != 0 || wait_healthy(o, s, t0, err) != 0) {
        serve_server_stop(s);
        return -1;
    }
    if (serve_port_owned_by(s->port, s->child.pid) == 0) {
        lvd_errf(err, "127.0.0.1:%d answers /health, but its socket is not %s's (pid %d): another process took the "
                 "port", s->port, s->argv[0], s->child.pid);
        serve_server_stop(s);
        return -1;
    }
    return 0;
}

int serve_server_metrics(serve_server *s, serve_metric **m, size_t *n, lvd_err *err)
{
    *m = NULL;
    *n = 0;
    char url[96];
    snprintf(url, sizeof url, "%s/metrics", s->base);
    long code;
    lvd_sb body = {0};
    lvd_err e;
    int rc = serve_http_get(url, HEALTH_REQUEST_MS, &code, &body, &e) == 0 && code == 200 ? 0 : 1;
    if (rc == 0 && serve_metrics_parse(lvd_sb_str(&body), body.len, m, n, &e) != 0)
        rc = lvd_errf(err, "%s/metrics is malformed: %s", s->base, e.msg);
    lvd_sb_free(&body);
    return rc;
}

int serve_server_gone(serve_server *s)
{
    return s->child.pid > 0 && proc_child_exited(&s->child);
}

void serve_server_stop(serve_server *s)
{
    proc_stop(&s->child, SERVE_STOP_GRACE_MS);
    lvd_strv_free(s->argv);
    free(s->log_path);
    memset(s, 0, sizeof *s);
}

int serve_server_has_flag(const char *binary, const char *flag)
{
    const char *argv[] = {binary, "--help", NULL};
    proc_spec spec = {.argv = argv, .timeout_ms = HELP_TIMEOUT_MS, .max_capture = BODY_MAX};
    proc_result r;
    lvd_err err;
    int has = 0;
    if (proc_run(&spec, &r, &err) == 0) {
        for (int k = 0; k < 2 && !has; k++) {
            const char *text = lvd_sb_str(k ? &r.err : &r.out);
            for (const char *p = strstr(text, flag); p && !has; p = strstr(p + 1, flag)) {
                char after = p[strlen(flag)];
                has = (p == text || p[-1] == ' ' || p[-1] == '\n' || p[-1] == ',') &&
                      (after == ' ' || after == ',' || after == '\n' || after == '\0');
            }
        }
    }
    proc_result_free(&r);
    return has;
}
