/* run.c: one serving run (see run.h). */
#include "serve/run.h"

#include "benchio/arm.h"
#include "common/proc.h"
#include "serve/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_TAIL_LINES 20

/* The last lines of the server's log (for the run's stderr_tail). */
static char *log_tail(const char *path)
{
    lvd_sb sb = {0};
    lvd_err e;
    if (!path || lvd_read_file(path, (size_t)64 << 20, &sb, &e) != 0) {
        lvd_sb_free(&sb);
        return NULL;
    }
    char *t = proc_tail(lvd_sb_str(&sb), LOG_TAIL_LINES);
    lvd_sb_free(&sb);
    return t;
}

/* The run's identity before it runs: the line's binary, build, parameters at -np N. */
static void run_init(const serve_arm *arm, const serve_load *l, lvd_run *run)
{
    memset(run, 0, sizeof *run);
    run->engine_id = arm->engine_id;
    run->binary = lvd_xstrdup(arm->url ? arm->url : arm->argv[0]);
    run->build = lvd_xstrdup(arm->build ? arm->build : "");
    run->params = arm->params;
    run->params.parallel = l->clients;
    char key[512];
    benchio_arm_key(&run->params, key, sizeof key);
    run->arm_key = lvd_xstrdup(key);
    run->exit_code = -1;
    snprintf(run->status, sizeof run->status, "failed");
    snprintf(run->source, sizeof run->source, "bench");
    run->started_at = lvd_now();
}

static void run_failed(lvd_run *run, const char *why, const char *log)
{
    snprintf(run->status, sizeof run->status, "failed");
    free(run->reason);
    run->reason = lvd_xstrdup(why);
    free(run->stderr_tail);
    run->stderr_tail = log_tail(log);
}

/* Drives the started server; fills run and fig. */
static void drive(serve_server *srv, const serve_arm *arm, const serve_load *l, const serve_run_opts *o,
                  unsigned seed, lvd_run *run, serve_figures *fig, serve_drive *reqs, lvd_err *err)
{
    char url[96];
    snprintf(url, sizeof url, "%s/completion", srv->base);
    int auto_n = l->clients * SERVE_REQUESTS_PER_CLIENT;
    int requests = o->requests != SERVE_REQUESTS_AUTO ? o->requests : auto_n > SERVE_REQUESTS_MIN ? auto_n
                                                                                                   : SERVE_REQUESTS_MIN;
    serve_drive_opts d = {.url = url, .clients = l->clients, .n_prompt = l->n_prompt, .n_gen = l->n_gen,
                          .requests = requests, .duration_ms = o->duration_ms,
                          .timeout_ms = o->request_timeout_ms, .stop = o->stop, .seed = seed};
    serve_drive out;
    if (serve_drive_run(&d, &out, err) != 0) {
        run_failed(run, err->msg, srv->log_path);
        return;
    }
    serve_figures_build(&out, l, srv->healthy_ms, fig);
    char how[96];
    if (out.fatal)
        lvd_errf(err, "%s", out.fatal);
    else if (serve_server_gone(srv))
        lvd_errf(err, "%s died under the load (%s)", arm->argv[0], proc_child_describe(&srv->child, how, sizeof how));
    else if (fig->errors == fig->requests)
        lvd_errf(err, "no request of %zu was answered: %s", fig->requests,
                 fig->first_error ? fig->first_error : "none was sent");
    else
        err->msg[0] = '\0';
    if (err->msg[0]) {
        run_failed(run, err->msg, srv->log_path);
    } else {
        lvd_err me;
        if (arm->metrics && serve_server_metrics(srv, &fig->metrics, &fig->n_metrics, &me) < 0)
            fig->metrics = NULL; /* malformed metrics are not the run's failure: none shown */
        serve_results_fill(&out, l, fig, run);
        snprintf(run->status, sizeof run->status, "ok");
        run->exit_code = 0;
        if (reqs) {
            *reqs = out; /* moved */
            return;
        }
    }
    serve_drive_free(&out);
}

serve_run_end serve_run_once(const serve_arm *arm, const serve_load *l, const serve_run_opts *o, unsigned seed,
                             lvd_run *run, serve_figures *fig, serve_drive *reqs, lvd_err *err)
{
    memset(fig, 0, sizeof *fig);
    if (reqs)
        memset(reqs, 0, sizeof *reqs);
    fig->healthy_ms = -1;
    run_init(arm, l, run);
    err->msg[0] = '\0';
    char *log = NULL;
    if (o->log_dir)
        log = lvd_xasprintf("%s/run-%lld-%d.log", o->log_dir, (long long)lvd_mono_ms(), l->clients);
    serve_server_opts so = {.argv = (const char *const *)arm->argv, .env = (const char *const *)arm->env,
                            .parallel = l->clients, .port = o->port, .metrics = arm->metrics,
                            .health_timeout_ms = o->health_timeout_ms, .log_path = log, .stop = o->stop};
    serve_server srv;
    int64_t t0 = lvd_mono_ms();
    serve_run_end end = SERVE_RUN_DONE;
    if (arm->url) { /* a running server: driven as it is, never started or stopped here */
        memset(&srv, 0, sizeof srv);
        snprintf(srv.base, sizeof srv.base, "%s", arm->url);
        srv.healthy_ms = -1;
        drive(&srv, arm, l, o, seed, run, fig, reqs, err);
        free(log);
        run->wall_ms = lvd_mono_ms() - t0;
        return o->stop && *o->stop ? SERVE_RUN_STOPPED : SERVE_RUN_DONE;
    }
    int started = serve_server_start(&so, &srv, err);
    if (started != 0) {
        end = started == -2 ? SERVE_RUN_PORT : SERVE_RUN_DONE;
        run_failed(run, err->msg, log);
    } else {
        drive(&srv, arm, l, o, seed, run, fig, reqs, err);
        fig->healthy_ms = srv.healthy_ms;
        serve_server_stop(&srv);
    }
    if (o->stop && *o->stop)
        end = SERVE_RUN_STOPPED;
    run->wall_ms = lvd_mono_ms() - t0;
    free(log);
    return end;
}
