/* serve.c: lvd serve's whole job (see serve.h). */
#include "serve/serve.h"

#include "common/cli.h"
#include "common/gguf_split.h"
#include "common/uid.h"
#include "serve/report.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

/* SIGINT, SIGTERM, SIGHUP set the stop flag (the run ends, its server is
 * stopped); SIGPIPE is ignored (a server that hangs up is a request error). */
static void signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < LVD_ARRAY_LEN(sigs); i++)
        sigaction(sigs[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

static void on_run(const serve_session *s, const serve_cell *c, const lvd_run *run, const serve_figures *f,
                   const char *failure, void *ctx)
{
    (void)run;
    if (ctx)
        serve_report_run(ctx, s, c, f, failure);
}

/* The arms: lvd select's line or the leading bench arms'. */
static int choose_arms(const serve_job_opts *o, store *s, const store_artifact *a, serve_job *j, lvd_err *err)
{
    int code = LVD_EXIT_OK;
    if (o->leading) {
        if (serve_arms_leading(s, a, NULL, o->model, o->leading, &j->arms, &j->n_arms, &code, err) != 0)
            return code;
        return LVD_EXIT_OK;
    }
    sel_request rq;
    sel_request_init(&rq);
    char *first = gguf_split_first(o->model);
    rq.model = first;
    rq.objective = o->objective;
    rq.ctx = o->ctx;
    int rc = serve_arms_selected(s, a, &rq, &j->arms, &j->n_arms, &code, err);
    free(first);
    return rc ? code : LVD_EXIT_OK;
}

/* The exit status of a session that ran. */
static int session_code(const serve_session *s, lvd_err *err)
{
    if (s->stop == SERVE_STOP_PORT)
        return lvd_errf(err, "%s", s->stop_why), LVD_EXIT_INPUT;
    if (s->stop == SERVE_STOP_SIGNAL)
        return lvd_errf(err, "interrupted by a signal: every server was stopped"), LVD_EXIT_FAIL;
    if (s->runs_ok && s->runs_failed)
        return LVD_EXIT_PARTIAL;
    if (s->runs_ok)
        return LVD_EXIT_OK;
    for (size_t i = 0; i < s->n_cells; i++)
        if (s->cells[i].reason)
            return lvd_errf(err, "%s", s->cells[i].reason), LVD_EXIT_FAIL;
    return lvd_errf(err, "no run was made (the budget ended first)"), LVD_EXIT_FAIL;
}

/* The job's sessions: the store's (record or not) for the lines, or none
 * for a running server (--url). */
static int run_session(const serve_job_opts *o, store *s, const char *artifact, serve_job *out, const char *logs,
                       lvd_err *err)
{
    char now[24];
    snprintf(now, sizeof now, "%lld", (long long)lvd_now());
    out->session_name = o->session ? lvd_xstrdup(o->session) : lvd_session_name("serve", now);
    serve_session_opts so = {.artifact = artifact, .host = lvd_hostname(), .session = out->session_name,
                             .arms = out->arms, .n_arms = out->n_arms, .loads = o->loads, .n_loads = o->n_loads,
                             .run = o->run, .max_rounds = o->max_rounds, .budget_ms = o->budget_ms,
                             .record = o->record && s, .on_run = on_run, .ctx = o->progress};
    if (!so.run.stop)
        so.run.stop = &stop_flag;
    if (!so.run.log_dir)
        so.run.log_dir = logs;
    out->ran = 1;
    if (serve_session_run(s, &so, &out->session, err) != 0)
        return LVD_EXIT_STORE;
    return session_code(&out->session, err);
}

int serve_job_run(const serve_job_opts *o, serve_job *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    stop_flag = 0;
    signals_install();
    if (o->url) { /* a running server: nothing to identify, start or record */
        if (serve_arms_url(o->url, &out->arms, &out->n_arms, err) != 0)
            return LVD_EXIT_USAGE;
        return run_session(o, NULL, "", out, NULL, err);
    }
    char *path = store_default_path(o->store);
    store *s = NULL;
    store_artifact a;
    int code;
    if (sel_open_identify(path, o->model, 1, &s, &a, &code, err) != 0) {
        free(path);
        return code;
    }
    free(path);
    code = choose_arms(o, s, &a, out, err);
    char tmpl[] = "/tmp/lvd-serve-XXXXXX";
    const char *tmpdir = getenv("TMPDIR");
    char *logs = NULL;
    if (code == LVD_EXIT_OK && !o->run.log_dir) {
        logs = tmpdir && *tmpdir ? lvd_xasprintf("%s/lvd-serve-XXXXXX", tmpdir) : lvd_xstrdup(tmpl);
        if (!mkdtemp(logs)) {
            free(logs);
            logs = NULL;
        }
    }
    if (code == LVD_EXIT_OK)
        code = run_session(o, s, a.sha256, out, logs, err);
    if (logs)
        lvd_rm_rf(logs);
    free(logs);
    store_artifact_free(&a);
    store_close(s);
    return code;
}

void serve_job_free(serve_job *j)
{
    if (j->ran)
        serve_session_free(&j->session);
    serve_arms_free(j->arms, j->n_arms);
    free(j->session_name);
    memset(j, 0, sizeof *j);
}
