/* test_serve.c: the pure parts of lvd serve (serve/): llama-server's event
 * stream (the real b9749 capture read whole and a byte at a time, and every
 * way it can be malformed), its /metrics (the real capture), load shapes,
 * serving test names, quantiles, the serve objective's parsing, a run's
 * figures and results (rates, warm-up per client), the server's argv and
 * the port probe. The HTTP side runs end to end (tests/e2e/e2e_serve.sh). */
#include "tests/support/testutil.h"

#include "serve/load.h"
#include "serve/metrics.h"
#include "serve/port.h"
#include "serve/server.h"
#include "serve/sse.h"
#include "serve/summary.h"
#include "stats/rank.h"
#include "stats/serving.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct tally {
    int events, tokens, stops, evaluated;
} tally;

static void on_event(const serve_event *e, void *ctx)
{
    tally *t = ctx;
    t->events++;
    t->tokens += e->tokens;
    t->stops += e->stop;
    if (e->evaluated >= 0)
        t->evaluated = e->evaluated;
}

/* Feeds text in pieces of step bytes; returns feed's or end's -1, else 0; why gets p.why. */
static int feed(const char *text, size_t step, tally *t, char *why, size_t len)
{
    serve_sse p;
    serve_sse_init(&p);
    memset(t, 0, sizeof *t);
    size_t n = strlen(text);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i += step)
        rc = serve_sse_feed(&p, text + i, n - i < step ? n - i : step, on_event, t);
    if (rc == 0)
        rc = serve_sse_end(&p);
    snprintf(why, len, "%s", p.why);
    serve_sse_free(&p);
    return rc;
}

static void sse_capture(const char *rel)
{
    char *path = tu_fixture(rel);
    size_t n;
    char *text = tu_read(path, &n);
    char why[320];
    tally t;
    for (size_t step = 1; step <= n; step = step * 3 + 1) {
        assert_int_equal(feed(text, step, &t, why, sizeof why), 0);
        assert_int_equal(t.events, 5);
        assert_int_equal(t.tokens, 4); /* the last event brings none */
        assert_int_equal(t.stops, 1);
        assert_int_equal(t.evaluated, 8);
    }
    free(text);
    free(path);
}

/* b9749's events each carry tokens_predicted; ik_llama.cpp's token events
 * carry none, its last one the total (4): counted once, not 8. */
static void test_sse_capture(void **state)
{
    (void)state;
    sse_capture("llama.cpp/cpu-build-b9749/server-completion-stream.txt");
    sse_capture("llama.cpp/cpu-build-ik4840/server-completion-stream.txt");
}

static void test_sse_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"garbage\n\n", "line 1: not a server-sent event ('garbage')"},
        {"data: {\"tokens_predicted\":1}\n\ndata: {nope\n\n", "line 3: the data is not a JSON object ('{nope')"},
        {"data: [1,2]\n\n", "line 1: the data is not a JSON object"},
        {"data: {\"tokens_predicted\":3}\n\ndata: {\"tokens_predicted\":2}\n\n", "went from 3 down to 2"},
        {"data: {\"tokens_predicted\":-1}\n\n", "tokens_predicted or tokens_evaluated is not a count"},
        {"data: {\"tokens_predicted\":1}\n\n", "ends without its last event (1 event, none with \"stop\": true)"},
        {"data: {\"stop\":true}\n\ndata: {\"stop\":true}\n\n", "line 3: an event after the last one"},
        {"data: {\"stop\":true}\n\ndata: {\"cont", "the stream ends inside a line"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(bad); i++) {
        tally t;
        char why[320];
        for (size_t step = 1; step <= 64; step *= 64) {
            assert_int_equal(feed(bad[i].text, step, &t, why, sizeof why), -1);
            if (!strstr(why, bad[i].why))
                fail_msg("case %zu: '%s' lacks '%s'", i, why, bad[i].why);
        }
    }
    /* what may stand between events: comments, other fields, CRLF, [DONE] */
    tally t;
    char why[320];
    assert_int_equal(feed(": keep-alive\r\nevent: x\r\nid: 1\r\ndata: {\"content\":\"a\"}\r\n\r\ndata: [DONE]\n", 5, &t,
                          why, sizeof why),
                     0);
    assert_int_equal(t.tokens, 1);
    /* a refusal mid-stream (b10587 on a model's odd output) ends it: no malformed stream */
    serve_sse p;
    serve_sse_init(&p);
    const char *refusal = "data: {\"tokens_predicted\":1}\n\ndata: {\"error\":{\"code\":500,\"message\":\"The model "
                          "produced output that does not match the expected Content-only format\"}}\n\n";
    assert_int_equal(serve_sse_feed(&p, refusal, strlen(refusal), on_event, &t), 0);
    assert_int_equal(serve_sse_end(&p), 0);
    assert_string_equal(p.refusal, "The model produced output that does not match the expected Content-only format");
    serve_sse_free(&p);
}

static void test_metrics_capture(void **state)
{
    (void)state;
    char *path = tu_fixture("llama.cpp/cpu-build-b9749/server-metrics.txt");
    size_t n;
    char *text = tu_read(path, &n);
    serve_metric *m;
    size_t k;
    lvd_err err = {{0}};
    assert_int_equal(serve_metrics_parse(text, n, &m, &k, &err), 0);
    assert_int_equal(k, 14);
    assert_true(serve_metric_get(m, k, "llamacpp:prompt_tokens_total") == 8);
    assert_true(serve_metric_get(m, k, "llamacpp:tokens_predicted_total") == 4);
    assert_true(serve_metric_get(m, k, "llamacpp:predicted_tokens_seconds") == 3.98406);
    assert_true(isnan(serve_metric_get(m, k, "llamacpp:nothing")));
    serve_metrics_free(m, k);
    free(text);
    free(path);
    const char *ok = "a{position=\"0\",x=\"}\\\"\"} 3 1700000000\nb NaN\nc +Inf\n";
    assert_int_equal(serve_metrics_parse(ok, strlen(ok), &m, &k, &err), 0);
    assert_int_equal(k, 3);
    assert_string_equal(m[0].name, "a{position=\"0\",x=\"}\\\"\"}");
    assert_true(isnan(m[1].value) && isinf(m[2].value));
    serve_metrics_free(m, k);
    const char *bad[] = {"# ok\nllamacpp:x 1\ngarbage\n", "x 1 2 3\n", "x{a=\"1\" 2\n", "9x 1\n", "x one\n"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(bad); i++) {
        assert_int_equal(serve_metrics_parse(bad[i], strlen(bad[i]), &m, &k, &err), -1);
        assert_true(!strncmp(err.msg, "line ", 5) && strstr(err.msg, "is not a Prometheus sample"));
    }
    assert_non_null(strstr(err.msg, "line 1: 'x one'"));
}

static void test_loads(void **state)
{
    (void)state;
    serve_load *l;
    size_t n;
    lvd_err err = {{0}};
    assert_int_equal(serve_loads_parse("1:128:32,4:128:32", &l, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(l[1].clients, 4);
    assert_int_equal(l[1].n_prompt, 128);
    assert_int_equal(l[1].n_gen, 32);
    char name[32];
    serve_load_name(&l[1], name, sizeof name);
    assert_string_equal(name, "4:128:32");
    free(l);
    static const struct {
        const char *s, *why;
    } bad[] = {
        {"0:128:32", "load '0:128:32': N must be 1 to 256 clients"},
        {"257:1:1", "N must be 1 to 256"},
        {"4:0:32", "P and G must be 1 to 65536 tokens"},
        {"4:128", "want N:P:G"},
        {"4:128:32:1", "want N:P:G"},
        {"4::32", "want N:P:G"},
        {"four:1:1", "'four' is not a number"},
        {"1:1:1,1:1:1", "load '1:1:1' is given twice"},
        {"1:1:1,", "an empty shape"},
        {"", "empty"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(bad); i++) {
        assert_int_equal(serve_loads_parse(bad[i].s, &l, &n, &err), -1);
        if (!strstr(err.msg, bad[i].why))
            fail_msg("'%s': '%s' lacks '%s'", bad[i].s, err.msg, bad[i].why);
        assert_null(l);
    }
}

static void test_names_quantiles_objective(void **state)
{
    (void)state;
    char name[48];
    stats_serve_test_name(STATS_SERVE_TTFT, 128, 32, name, sizeof name);
    assert_string_equal(name, "serve-ttft@pp128+tg32");
    int p = 0, g = 0;
    assert_int_equal(stats_serve_test_kind("serve-tps@pp64+tg16", &p, &g), STATS_SERVE_TPS);
    assert_int_equal(p * 1000 + g, 64016);
    const char *not_serving[] = {"tg128", "pp512", "serve-tps@pp0+tg1", "serve-tps@pp1+tg1x", "serve-ttft@pp1",
                                 "serve-tps@tg1+pp1", "serve-ttft@pp01+tg1", "serve-tps@pp1234567890+tg1"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(not_serving); i++)
        assert_int_equal(stats_serve_test_kind(not_serving[i], NULL, NULL), STATS_SERVE_NONE);
    double x[] = {5, 1, 4, 2, 3};
    assert_true(stats_quantile(x, 5, 0.5) == 3);
    assert_true(fabs(stats_quantile(x, 5, 0.95) - 4.8) < 1e-9);
    assert_true(stats_quantile(x, 5, 1) == 5 && stats_quantile(x, 1, 0.99) == 5 && isnan(stats_quantile(x, 0, 0.5)));
    stats_objective o;
    lvd_err err = {{0}};
    char obj[16];
    static const struct {
        const char *in, *name;
    } good[] = {{"serve", "serve"}, {"serve=500ms", "serve=500ms"}, {"serve=2s", "serve=2000ms"},
                {"serve=1.5s", "serve=1500ms"}, {"serve=0.5ms", "serve=0.5ms"}};
    for (size_t i = 0; i < LVD_ARRAY_LEN(good); i++) {
        assert_int_equal(stats_objective_parse(good[i].in, &o, &err), 0);
        assert_int_equal(o.kind, STATS_OBJ_SERVE);
        stats_objective_name(&o, obj, sizeof obj);
        assert_string_equal(obj, good[i].name);
    }
    assert_true(o.ttft_bound_ms == 0.5);
    assert_int_equal(stats_objective_uses(&o, 128, 32), 0);
    const char *bad[] = {"serve=", "serve=5", "serve=-1s", "serve=0ms", "serve=1000s", "serve=xms", "wj=serve"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(bad); i++)
        assert_int_equal(stats_objective_parse(bad[i], &o, &err), -1);
    assert_non_null(strstr(err.msg, "serving is measured in time, not per joule"));
}

/* A drive of two clients: client 0 with a slow first request (warm-up), one failed request. */
static void test_figures_and_results(void **state)
{
    (void)state;
    serve_load l = {2, 100, 10};
    serve_req r[9];
    memset(r, 0, sizeof r);
    const int64_t ms = 1000000;
    for (int i = 0; i < 8; i++) {
        r[i].client = i % 2;
        r[i].start_ns = (int64_t)i * 200 * ms;
        r[i].first_ns = r[i].start_ns + (i == 0 ? 400 : 20 + i % 2 * 10) * ms; /* 20 or 30 ms; 400 warming */
        r[i].end_ns = r[i].first_ns + 90 * ms;
        r[i].tokens = 10;
        r[i].prompt_tokens = 100;
        r[i].n_itl = 9;
        r[i].itl_ms = lvd_xcalloc(9, sizeof(double));
        for (int k = 0; k < 9; k++)
            r[i].itl_ms[k] = 10;
    }
    r[8] = (serve_req){.client = 1, .start_ns = 1600 * ms, .end_ns = 1601 * ms, .prompt_tokens = -1,
                       .error = lvd_xstrdup("HTTP 503: busy")};
    serve_drive d = {.reqs = r, .n = 9, .wall_ns = 1700 * ms};
    serve_figures f;
    serve_figures_build(&d, &l, 1234, &f);
    assert_int_equal(f.requests, 9);
    assert_int_equal(f.errors, 1);
    assert_string_equal(f.first_error, "HTTP 503: busy");
    assert_int_equal(f.ttft_ms.n, 8);
    assert_true(fabs(f.ttft_ms.p50 - 30) < 1e-6); /* 20 20 20 30 30 30 30 400 */
    assert_true(f.itl_ms.n == 72 && f.itl_ms.p99 == 10);
    assert_true(fabs(f.request_tps.p50 - 100) < 1e-6); /* 9 gaps of 10 ms */
    assert_true(fabs(f.aggregate_tps - 80 / 1.7) < 1e-6);
    assert_int_equal(f.prompt_tokens, 100);
    lvd_run run = {0};
    serve_results_fill(&d, &l, &f, &run);
    assert_int_equal(run.n_results, 2);
    const lvd_result *ttft = &run.results[0], *tps = &run.results[1];
    assert_string_equal(ttft->test, "serve-ttft@pp100+tg10");
    assert_string_equal(tps->test, "serve-tps@pp100+tg10");
    assert_int_equal(ttft->n, 8);
    assert_int_equal(ttft->ns[1], 30 * ms);
    assert_true(fabs(ttft->ts[1] - 100 / 0.030) < 1e-6); /* P / TTFT */
    assert_true(fabs(tps->ts[1] - 2 * 10 / 0.120) < 1e-6); /* N x G / wall */
    assert_int_equal(ttft->warmup[0], 1); /* client 0's slow first request */
    size_t warm = 0;
    for (size_t i = 0; i < ttft->n; i++)
        warm += ttft->warmup[i];
    assert_int_equal(warm, 1);
    cJSON *j = cJSON_Parse(tps->reported_json);
    assert_non_null(j);
    assert_true(cJSON_GetObjectItem(j, "errors")->valuedouble == 1);
    assert_true(cJSON_GetObjectItem(j, "healthy_ms")->valuedouble == 1234);
    assert_null(strstr(tps->reported_json, "\"n_prompt\"")); /* the store splits there */
    cJSON_Delete(j);
    lvd_run_free(&run);
    serve_figures_free(&f);
    for (int i = 0; i < 9; i++) {
        free(r[i].itl_ms);
        free(r[i].error);
    }
}

static void test_server_argv(void **state)
{
    (void)state;
    const char *line[] = {"/e/llama-server", "-m", "m.gguf", "--port", "8080", "-np", "2", "--host", "0.0.0.0",
                          "--metrics", "-c", "4096", "--parallel", "3", NULL};
    char **v = serve_server_argv(line, 4, 1234, 1);
    const char *want[] = {"/e/llama-server", "-m", "m.gguf", "-c", "4096", "--host", "127.0.0.1", "--port", "1234",
                          "-np", "4", "--metrics", NULL};
    for (size_t i = 0; want[i] || v[i]; i++) {
        assert_non_null(v[i]);
        assert_non_null(want[i]);
        assert_string_equal(v[i], want[i]);
    }
    lvd_strv_free(v);
}

static void test_port(void **state)
{
    (void)state;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 1), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    int taken = ntohs(a.sin_port), port = 0;
    lvd_err err = {{0}};
    assert_int_equal(serve_port_pick(taken, &port, &err), -1);
    char want[96];
    snprintf(want, sizeof want, "127.0.0.1:%d is in use by another process: choose another --port", taken);
    assert_non_null(strstr(err.msg, want));
    assert_int_equal(serve_port_owned_by(taken, (int)getpid()), 1);
    assert_int_equal(serve_port_owned_by(taken, (int)getppid()), 0);
    close(fd);
    assert_int_equal(serve_port_pick(0, &port, &err), 0);
    assert_true(port > 0 && port != taken);
    assert_int_equal(serve_port_pick(port, &port, &err), 0); /* free again once released */
    assert_int_equal(serve_port_owned_by(port, (int)getpid()), 0); /* nobody listens */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sse_capture),        cmocka_unit_test(test_sse_malformed),
        cmocka_unit_test(test_metrics_capture),    cmocka_unit_test(test_loads),
        cmocka_unit_test(test_names_quantiles_objective), cmocka_unit_test(test_figures_and_results),
        cmocka_unit_test(test_server_argv),        cmocka_unit_test(test_port),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
