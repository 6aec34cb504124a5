/* perf_serve.c: what lvd serve's client (serve/client.h: libcurl's multi
 * interface, the event stream parsed as it arrives) adds to the time to
 * first token it measures. A loopback server in this process answers each
 * streamed /completion with its first event exactly DELAY ms (default 10)
 * after it has read the request, timing that delay on its own clock; the
 * client's TTFT less the server's delay is what the client (and loopback
 * TCP) adds. A minimal client (blocking send and recv on one kept-alive
 * socket, looking for the first "data:") is timed against the same server
 * in the same rounds, interleaved, as the floor no client can go below.
 *
 *   perf_serve [-n REQUESTS] [-r ROUNDS] [-d DELAY_MS]
 *
 * Prints one JSON object: the server's delay, each client's TTFT and what it
 * adds over the delay (medians, ms), and lvd serve's addition as a share of
 * the delay ("adds_pct": the goal is under 1 %). Not a pass/fail test. */
#include "serve/client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_REQ 100000

static int64_t delay_ns = 10000000;
static int64_t served[MAX_REQ]; /* the server's delay of each request, in order */
static volatile size_t n_served;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* One request's head and body read from fd into buf; 0, or -1 when closed. */
static int read_request(int fd, char *buf, size_t cap)
{
    size_t len = 0;
    for (;;) {
        buf[len] = '\0';
        char *end = strstr(buf, "\r\n\r\n");
        if (end) {
            char *cl = strcasestr(buf, "Content-Length:");
            size_t body = cl && cl < end ? strtoul(cl + 15, NULL, 10) : 0;
            if (len >= (size_t)(end + 4 - buf) + body)
                return 0;
        }
        ssize_t k = recv(fd, buf + len, cap - 1 - len, 0);
        if (k <= 0)
            return -1;
        len += (size_t)k;
    }
}

static void answer(int fd)
{
    static char buf[1 << 16];
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    while (read_request(fd, buf, sizeof buf) == 0) {
        int64_t t0 = now_ns();
        struct timespec at = {(time_t)((t0 + delay_ns) / 1000000000), (long)((t0 + delay_ns) % 1000000000)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
            ;
        static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                   "Transfer-Encoding: chunked\r\n\r\n";
        static const char first[] = "data: {\"content\":\"a\",\"tokens\":[1000],\"stop\":false,"
                                    "\"tokens_predicted\":1,\"tokens_evaluated\":4}\n\n";
        static const char last[] = "data: {\"content\":\"\",\"stop\":true,\"tokens_predicted\":1,"
                                   "\"tokens_evaluated\":4}\n\n";
        char msg[1024];
        int n = snprintf(msg, sizeof msg, "%s%zx\r\n%s\r\n", head, strlen(first), first);
        int rc = send_all(fd, msg, (size_t)n);
        if (n_served < MAX_REQ)
            served[n_served++] = now_ns() - t0; /* the first event is on its way */
        n = snprintf(msg, sizeof msg, "%zx\r\n%s\r\n0\r\n\r\n", strlen(last), last);
        if (rc || send_all(fd, msg, (size_t)n))
            return;
    }
}

static void *server(void *arg)
{
    int lfd = (int)(intptr_t)arg;
    for (;;) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0)
            continue;
        answer(fd);
        close(fd);
    }
    return NULL;
}

/* The minimal client: n requests on one socket; ttft_ns gets each TTFT. */
static void raw_client(int port, int n, int64_t *ttft_ns)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        perror("connect");
        exit(1);
    }
    static const char body[] = "{\"prompt\":[1000,1001,1002,1003],\"n_predict\":1,\"stream\":true}";
    char req[512], buf[4096];
    int len = snprintf(req, sizeof req, "POST /completion HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                                        "application/json\r\nContent-Length: %zu\r\n\r\n%s", strlen(body), body);
    for (int i = 0; i < n; i++) {
        int64_t t0 = now_ns(), first = 0;
        send_all(fd, req, (size_t)len);
        size_t got = 0;
        for (;;) {
            ssize_t k = recv(fd, buf + got, sizeof buf - 1 - got, 0);
            if (k <= 0)
                exit(1);
            got += (size_t)k;
            buf[got] = '\0';
            if (!first && strstr(buf, "data:"))
                first = now_ns();
            if (strstr(buf, "0\r\n\r\n"))
                break;
        }
        ttft_ns[i] = first - t0;
    }
    close(fd);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static double median_ms(int64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_i64);
    return (n % 2 ? (double)v[n / 2] : (double)(v[n / 2 - 1] + v[n / 2]) / 2) / 1e6;
}

int main(int argc, char **argv)
{
    int n = 50, rounds = 5, opt;
    while ((opt = getopt(argc, argv, "n:r:d:")) != -1) {
        if (opt == 'n')
            n = atoi(optarg);
        else if (opt == 'r')
            rounds = atoi(optarg);
        else if (opt == 'd')
            delay_ns = (int64_t)(atof(optarg) * 1e6);
        else
            return 2;
    }
    if (n < 1 || rounds < 1 || (size_t)n * (size_t)rounds * 2 > MAX_REQ || delay_ns < 0) {
        fprintf(stderr, "usage: perf_serve [-n REQUESTS] [-r ROUNDS] [-d DELAY_MS]\n");
        return 2;
    }
    int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) || listen(lfd, 4) || getsockname(lfd, (struct sockaddr *)&a, &alen))
        return perror("bind"), 1;
    int port = ntohs(a.sin_port);
    pthread_t t;
    pthread_create(&t, NULL, server, (void *)(intptr_t)lfd);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/completion", port);
    size_t total = (size_t)n * (size_t)rounds;
    int64_t *ours = calloc(total, sizeof *ours), *ours_add = calloc(total, sizeof *ours_add);
    int64_t *raw = calloc(total, sizeof *raw), *raw_add = calloc(total, sizeof *raw_add);
    int64_t *delay = calloc(total, sizeof *delay);
    for (int r = 0; r < rounds; r++) {
        size_t base = (size_t)r * (size_t)n;
        size_t s0 = n_served;
        serve_drive_opts o = {.url = url, .clients = 1, .n_prompt = 4, .n_gen = 1, .requests = n,
                              .timeout_ms = 10000, .seed = (unsigned)r};
        serve_drive d;
        lvd_err err;
        if (serve_drive_run(&o, &d, &err) != 0 || d.n != (size_t)n || d.fatal)
            return fprintf(stderr, "perf_serve: the drive failed: %s\n", d.fatal ? d.fatal : err.msg), 1;
        for (int i = 0; i < n; i++) {
            ours[base + (size_t)i] = d.reqs[i].first_ns - d.reqs[i].start_ns;
            ours_add[base + (size_t)i] = ours[base + (size_t)i] - served[s0 + (size_t)i];
            delay[base + (size_t)i] = served[s0 + (size_t)i];
        }
        serve_drive_free(&d);
        s0 = n_served;
        raw_client(port, n, raw + base);
        for (int i = 0; i < n; i++)
            raw_add[base + (size_t)i] = raw[base + (size_t)i] - served[s0 + (size_t)i];
    }
    double server_ms = median_ms(delay, total), adds = median_ms(ours_add, total);
    printf("{\"requests\": %zu, \"server_delay_ms\": %.4f, \"lvd_serve\": {\"ttft_ms\": %.4f, \"adds_ms\": %.4f}, "
           "\"minimal_client\": {\"ttft_ms\": %.4f, \"adds_ms\": %.4f}, \"adds_pct\": %.3f}\n",
           total, server_ms, median_ms(ours, total), adds, median_ms(raw, total), median_ms(raw_add, total),
           100.0 * adds / server_ms);
    free(ours);
    free(ours_add);
    free(raw);
    free(raw_add);
    free(delay);
    return 0;
}
