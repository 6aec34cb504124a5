/* server.h: the llama-server a serving measurement drives: started from a
 * launch line's argv and environment (select/launch.h, never a shell) with
 * `--host 127.0.0.1 --port P -np N` (and --metrics where the build's
 * --help lists it) in place of any such words the line had, in a guarded
 * process group of its own (common/proc.h proc_start: it dies with us,
 * SIGKILL included), its output in a log file. Healthy is GET /health
 * answering 200; the time from the start to that answer is a measurement
 * of its own (a model load). Then the socket on the port must be the
 * server's (serve/port.h). Stopped with its group on every path.
 * Not for the load (serve/client.h). */
#ifndef LVD_SERVE_SERVER_H
#define LVD_SERVE_SERVER_H

#include "common/proc.h"
#include "common/util.h"
#include "serve/metrics.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define SERVE_HEALTH_TIMEOUT_S_DEFAULT 120 /* to /health 200, lvd serve --health-timeout */
#define SERVE_STOP_GRACE_MS 5000

typedef struct serve_server_opts {
    const char *const *argv;   /* the launch line's argv; argv[0] is ENGINE_DIR/llama-server */
    const char *const *env;    /* its NAME=VALUE assignments; NULL: none */
    int parallel;              /* -np: the slots */
    int port;                  /* 0: a free one */
    int metrics;               /* pass --metrics (serve_server_has_flag) */
    int health_timeout_ms;     /* how long to wait for /health 200 */
    const char *log_path;      /* the server's stdout and stderr; NULL: /dev/null */
    volatile sig_atomic_t *stop; /* set by a signal: give up waiting; NULL none */
} serve_server_opts;

typedef struct serve_server {
    proc_child child;
    int port;
    char base[64];             /* "http://127.0.0.1:PORT" */
    int64_t healthy_ms;        /* from the start to /health 200 */
    char **argv;               /* what was started (NULL-terminated) */
    char *log_path;
} serve_server;

/* The argv started: o's argv less any -np/--parallel, --host, --port and
 * --metrics words (and their values), then --host 127.0.0.1 --port PORT
 * -np N [--metrics]. NULL-terminated; free with lvd_strv_free. */
char **serve_server_argv(const char *const *argv, int parallel, int port, int metrics);

/* Starts the server and waits until it is healthy and owns its port. 0;
 * -2 with err when the port asked for is taken (nothing was started); or
 * -1 with err in one line (s is then stopped: no process is left): the
 * server could not be executed, exited before it
 * was healthy (its exit and the log's last line), did not become healthy
 * in time (the last /health answer), was interrupted, or another process
 * answers on its port. */
int serve_server_start(const serve_server_opts *o, serve_server *s, lvd_err *err);
/* The server's /metrics: 0 with *m (free with serve_metrics_free), 1 when
 * it offers none (not 200), -1 with err when the text is malformed. */
int serve_server_metrics(serve_server *s, serve_metric **m, size_t *n, lvd_err *err);
/* 1 when the server process has exited (crashed) while it should serve. */
int serve_server_gone(serve_server *s);
/* Stops the server's group (SIGTERM, SIGKILL after SERVE_STOP_GRACE_MS) and
 * frees s. Safe on one never started. */
void serve_server_stop(serve_server *s);

/* 1 when BINARY --help (run with a timeout) lists flag as an option, 0 when
 * not or when it could not be asked. */
int serve_server_has_flag(const char *binary, const char *flag);

/* GET url: *code the HTTP status (0: no answer), body (may be NULL) the
 * first 1 MiB. 0 answered, -1 not (err says why). */
int serve_http_get(const char *url, int timeout_ms, long *code, lvd_sb *body, lvd_err *err);

#endif
