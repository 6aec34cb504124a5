/* fake_http.c: the llama-server persona's HTTP side, when it is given
 * --port: it binds HOST:PORT before loading (as b9749's server does; a port
 * taken is "couldn't bind HTTP server socket" and exit 1), then answers on
 * it, one thread per connection (HTTP/1.1, kept alive), until SIGTERM or
 * SIGINT ("cleaning up before exit", exit 0):
 *   GET /health       200 {"status":"ok"} (server-health.json), or 503
 *                     "Loading model" for server.health_ms after the load
 *                     (-1: forever)
 *   GET /metrics      with --metrics, llama.cpp's Prometheus text
 *                     (llamacpp:prompt_tokens_total ...); else 501
 *   POST /completion  {"prompt": [ids] | "text", "n_predict": G, "stream"}:
 *                     streamed, one `data: {...}` event per token as b9749's
 *                     server_task_result_cmpl_partial writes it, the last
 *                     with "stop": true and "timings" (chunked encoding);
 *                     unstreamed, one object
 * Speeds (scenario, fake.h): the first token after server.ttft_ms (default
 * 20), each next one after 1000 / server.tg ms (default 100 t/s), both
 * stretched by 1 + server.contention (default 0.25) for every other request
 * in flight: what N concurrent clients do to a server with N slots.
 * server.stream = garbage makes every stream malformed (a line that is no
 * event). Not for the command line or the load (fake_server.c). */
#include "fake.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>

static volatile sig_atomic_t stopping;
static int active;                 /* requests in flight (atomic) */
static long long prompt_total, predicted_total, requests_total; /* atomic */
static int metrics_on, n_slots;
static double ttft_ms, token_ms, contention, ready_at_ms;
static int garbage;

static double mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void on_stop(int sig)
{
    (void)sig;
    stopping = 1;
}

int http_bind(const char *host, const char *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(port)) };
    if (fd < 0 || inet_pton(AF_INET, host, &a.sin_addr) != 1 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(fd, 64) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int respond(int fd, int code, const char *type, const char *body)
{
    const char *reason = code == 200 ? "OK" : code == 404 ? "Not Found" : code == 501 ? "Not Implemented"
                                                                                   : "Service Unavailable";
    char *head = lvd_xasprintf("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nKeep-Alive: "
                               "timeout=5, max=100000\r\n\r\n", code, reason, type, strlen(body));
    int rc = send_all(fd, head, strlen(head)) || send_all(fd, body, strlen(body));
    free(head);
    return rc ? -1 : 0;
}

static int chunk(int fd, const char *data)
{
    char *c = lvd_xasprintf("%zx\r\n%s\r\n", strlen(data), data);
    int rc = send_all(fd, c, strlen(c));
    free(c);
    return rc;
}

static double stretch(void)
{
    int others = __atomic_load_n(&active, __ATOMIC_RELAXED) - 1;
    return 1.0 + contention * (others > 0 ? others : 0);
}

/* A completion ends: its tokens in /metrics' counters and its slot free,
 * before its last event goes out, as llama-server counts a task when it
 * ends, so a client that reads /metrics after its last answer sees every
 * token of it and no request still processing. */
static void end_task(int p, int g)
{
    __atomic_fetch_add(&prompt_total, p, __ATOMIC_RELAXED);
    __atomic_fetch_add(&predicted_total, g, __ATOMIC_RELAXED);
    __atomic_fetch_add(&requests_total, 1, __ATOMIC_RELAXED);
    __atomic_fetch_sub(&active, 1, __ATOMIC_RELAXED);
}

/* A completion whose client went away before its end: its slot free. */
static int abandon(void)
{
    __atomic_fetch_sub(&active, 1, __ATOMIC_RELAXED);
    return -1;
}

/* One streamed completion of p prompt and g generated tokens. */
static int stream(int fd, int p, int g, int slot)
{
    const char *head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                       "Transfer-Encoding: chunked\r\n\r\n";
    if (send_all(fd, head, strlen(head)))
        return abandon();
    double t0 = mono_ms(), t_first = 0;
    sleep_ms(ttft_ms * stretch());
    for (int k = 1; k <= g; k++) {
        if (k > 1)
            sleep_ms(token_ms * stretch());
        else
            t_first = mono_ms();
        char *ev = garbage && k == 1
                       ? lvd_xstrdup("this is no server-sent event\n\n")
                       : lvd_xasprintf("data: {\"index\":0,\"content\":\" tok\",\"tokens\":[%d],\"stop\":false,"
                                       "\"id_slot\":%d,\"tokens_predicted\":%d,\"tokens_evaluated\":%d}\n\n",
                                       1000 + k, slot, k, p);
        int rc = chunk(fd, ev);
        free(ev);
        if (rc)
            return abandon();
    }
    double t_end = mono_ms(), prompt_ms = t_first - t0, pred_ms = t_end - t_first;
    char *last = lvd_xasprintf("data: {\"index\":0,\"content\":\"\",\"tokens\":[],\"id_slot\":%d,\"stop\":true,"
                               "\"model\":\"fake\",\"tokens_predicted\":%d,\"tokens_evaluated\":%d,\"timings\":{"
                               "\"prompt_n\":%d,\"prompt_ms\":%.3f,\"predicted_n\":%d,\"predicted_ms\":%.3f}}\n\n",
                               slot, g, p, p, prompt_ms, g, pred_ms);
    end_task(p, g);
    int rc = chunk(fd, last) || send_all(fd, "0\r\n\r\n", 5);
    free(last);
    return rc ? -1 : 0;
}

/* POST /completion with body. */
static int completion(int fd, const char *body)
{
    cJSON *o = cJSON_Parse(body);
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(o, "prompt");
    int p = cJSON_IsArray(pr) ? cJSON_GetArraySize(pr) : cJSON_IsString(pr) ? (int)strlen(pr->valuestring) / 4 + 1 : 0;
    const cJSON *np = cJSON_GetObjectItemCaseSensitive(o, "n_predict");
    int g = cJSON_IsNumber(np) && np->valuedouble > 0 ? (int)np->valuedouble : 16;
    int streamed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "stream"));
    cJSON_Delete(o);
    if (p <= 0)
        return respond(fd, 400, "application/json",
                       "{\"error\":{\"code\":400,\"message\":\"\\\"prompt\\\" must be provided\","
                       "\"type\":\"invalid_request_error\"}}");
    int slot = __atomic_fetch_add(&active, 1, __ATOMIC_RELAXED) % (n_slots > 0 ? n_slots : 1);
    int rc;
    if (streamed) {
        rc = stream(fd, p, g, slot);
    } else {
        sleep_ms((ttft_ms + token_ms * (g - 1)) * stretch());
        char *b = lvd_xasprintf("{\"index\":0,\"content\":\"\",\"stop\":true,\"tokens_predicted\":%d,"
                                "\"tokens_evaluated\":%d}", g, p);
        end_task(p, g);
        rc = respond(fd, 200, "application/json", b);
        free(b);
    }
    return rc;
}

static int metrics(int fd)
{
    if (!metrics_on)
        return respond(fd, 501, "application/json",
                       "{\"error\":{\"code\":501,\"message\":\"This server does not support metrics endpoint. "
                       "Start it with `--metrics`\",\"type\":\"not_supported_error\"}}");
    char *b = lvd_xasprintf(
        "# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.\n"
        "# TYPE llamacpp:prompt_tokens_total counter\nllamacpp:prompt_tokens_total %lld\n"
        "# HELP llamacpp:tokens_predicted_total Number of generation tokens processed.\n"
        "# TYPE llamacpp:tokens_predicted_total counter\nllamacpp:tokens_predicted_total %lld\n"
        "# HELP llamacpp:n_decode_total Total number of llama_decode() calls\n"
        "# TYPE llamacpp:n_decode_total counter\nllamacpp:n_decode_total %lld\n"
        "# HELP llamacpp:requests_processing Number of requests processing.\n"
        "# TYPE llamacpp:requests_processing gauge\nllamacpp:requests_processing %d\n",
        __atomic_load_n(&prompt_total, __ATOMIC_RELAXED), __atomic_load_n(&predicted_total, __ATOMIC_RELAXED),
        __atomic_load_n(&requests_total, __ATOMIC_RELAXED), __atomic_load_n(&active, __ATOMIC_RELAXED));
    int rc = respond(fd, 200, "text/plain; version=0.0.4", b);
    free(b);
    return rc;
}

static int route(int fd, const char *method, const char *path, const char *body)
{
    if (!strcmp(method, "GET") && !strcmp(path, "/health")) {
        int ready = ready_at_ms >= 0 && mono_ms() >= ready_at_ms;
        return ready ? respond(fd, 200, "application/json", "{\"status\":\"ok\"}")
                     : respond(fd, 503, "application/json",
                               "{\"error\":{\"code\":503,\"message\":\"Loading model\",\"type\":\"unavailable_error\"}}");
    }
    if (!strcmp(method, "GET") && !strcmp(path, "/metrics"))
        return metrics(fd);
    if (!strcmp(method, "POST") && !strcmp(path, "/completion"))
        return completion(fd, body);
    return respond(fd, 404, "text/plain", "File Not Found");
}

/* Reads one request (head and Content-Length body) from fd into *buf. 0, -1 closed or bad. */
static int read_request(int fd, lvd_sb *buf, size_t *head_len, size_t *body_len)
{
    lvd_sb_reset(buf);
    for (;;) {
        const char *s = lvd_sb_str(buf), *end = strstr(s, "\r\n\r\n");
        if (end) {
            *head_len = (size_t)(end - s) + 4;
            const char *cl = strcasestr(s, "\r\nContent-Length:");
            *body_len = cl && cl < end ? (size_t)strtoul(cl + 17, NULL, 10) : 0;
            if (buf->len >= *head_len + *body_len)
                return 0;
        }
        if (buf->len > (64u << 20))
            return -1;
        char tmp[65536];
        ssize_t n = recv(fd, tmp, sizeof tmp, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        lvd_sb_add(buf, tmp, (size_t)n);
    }
}

static void *connection(void *arg)
{
    int fd = (int)(intptr_t)arg;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    lvd_sb buf = { 0 };
    size_t head, body;
    while (!stopping && read_request(fd, &buf, &head, &body) == 0) {
        char method[16] = "", path[256] = "";
        sscanf(lvd_sb_str(&buf), "%15s %255s", method, path);
        char *b = lvd_xstrndup(buf.buf + head, body);
        int rc = route(fd, method, path, b);
        free(b);
        if (rc)
            break;
    }
    lvd_sb_free(&buf);
    close(fd);
    return NULL;
}

int http_serve(int lfd, const char *host, const char *port, int slots, int with_metrics)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    n_slots = slots;
    metrics_on = with_metrics;
    ttft_ms = scn_dbl("server.ttft_ms", 20);
    token_ms = 1000.0 / scn_dbl("server.tg", 100);
    contention = scn_dbl("server.contention", 0.25);
    double health = scn_dbl("server.health_ms", 0);
    ready_at_ms = health < 0 ? -1 : mono_ms() + health;
    garbage = streq(scn_str("server.stream", "ok"), "garbage");
    log_line('I', "srv  llama_server: listening on http://%s:%s\n", host, port);
    flush_all();
    while (!stopping) {
        struct pollfd pf = { .fd = lfd, .events = POLLIN };
        if (poll(&pf, 1, 100) <= 0)
            continue;
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue;
        pthread_t t;
        if (pthread_create(&t, NULL, connection, (void *)(intptr_t)c) == 0)
            pthread_detach(t);
        else
            close(c);
    }
    close(lfd);
    G.log_us += 5103637;
    log_line('I', "srv    operator(): operator(): cleaning up before exit...\n");
    flush_all();
    return 0;
}
