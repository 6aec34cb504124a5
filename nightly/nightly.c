/* nightly.c: the nightly job's steps (nightly.h). Every step is an lvd tool
 * run through proc_run; its command line, output and exit status go to the
 * log file, one line per step to the console. */
#include "nightly/nightly.h"

#include "common/cli.h"
#include "common/proc.h"
#include "common/uid.h"
#include "nightly/overlap.h"
#include "nightly/resume.h"
#include "select/launch.h"
#include "stats/stats.h"
#include "nightly/hunt.h"
#include "nightly/remeasure.h"
#include "store/store.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* --- one step ------------------------------------------------------------ */

typedef struct job {
    const night_opts *o;
    night_report *r;
    FILE *log;
    lvd_sb argv_sb;      /* scratch */
    const char *step_env; /* one more "K=V" for the next step, or NULL */
    char *pin_env;       /* LVD_PIN_FILE=the config's pin file: probe and select flag a local
                            build older than the pin (builds/older.h), in the log; or NULL */
    night_resume resume;  /* this night's session, and what became of the last night */
    int64_t since;        /* runs read back for the overlap check start here */
    int64_t bench_left_s; /* the bench steps' budget they did not use (remeasure_step) */
    int no_engine;        /* no engine registered after fetch and discover: the steps that need
                             one are skipped (engines_step says so once) */
} job;

typedef struct argv_b {
    char **v;
    size_t n;
} argv_b;

static void tool(job *j, argv_b *a, const char *name)
{
    lvd_strv_pushf(&a->v, &a->n, "%s/lvd-%s", j->o->tools_dir, name);
    lvd_strv_pushf(&a->v, &a->n, "--store");
    lvd_strv_pushf(&a->v, &a->n, "%s", j->o->store);
}

static void argv_free(argv_b *a)
{
    lvd_strv_free(a->v);
    memset(a, 0, sizeof *a);
}

static void logf_(job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(job *j, const char *fmt, ...)
{
    char ts[32];
    lvd_format_utc(lvd_now(), ts, sizeof ts);
    fprintf(j->log, "[%s] ", ts);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(j->log, fmt, ap);
    va_end(ap);
    fputc('\n', j->log);
    fflush(j->log);
}

static void console(job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void console(job *j, const char *fmt, ...)
{
    if (!j->o->console)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(j->o->console, fmt, ap);
    va_end(ap);
    fputc('\n', j->o->console);
    fflush(j->o->console);
}

static night_step *add_step(job *j, const char *name)
{
    night_report *r = j->r;
    r->steps = lvd_xrealloc(r->steps, (r->n_steps + 1) * sizeof *r->steps);
    night_step *s = &r->steps[r->n_steps++];
    memset(s, 0, sizeof *s);
    s->name = lvd_xstrdup(name);
    s->exit_code = -1;
    return s;
}

/* Runs one tool; logs everything; returns its exit status (-1 when it did not
 * exit on its own) and leaves its stdout in *out when out is given. */
static int run_step(job *j, const char *name, argv_b *a, int timeout_s, lvd_sb *out)
{
    night_step *s = add_step(j, name);
    lvd_sb_reset(&j->argv_sb);
    for (size_t i = 0; i < a->n; i++) {
        if (i)
            lvd_sb_addc(&j->argv_sb, ' ');
        lvd_shell_quote(&j->argv_sb, a->v[i]);
    }
    logf_(j, "step '%s': %s", name, lvd_sb_str(&j->argv_sb));
    proc_spec spec = {.argv = (const char *const *)a->v, .timeout_ms = timeout_s * 1000};
    const char *env[] = {"LVD_NO_PROGRESS=1", j->pin_env ? j->pin_env : "LVD_NO_PROGRESS=1", j->step_env, NULL};
    spec.env = env;
    proc_result res;
    lvd_err err = {{0}};
    int64_t t0 = lvd_mono_ms();
    if (proc_run(&spec, &res, &err)) {
        s->outcome = lvd_xasprintf("failed: %s", err.msg);
        logf_(j, "step '%s': %s", name, err.msg);
        return -1;
    }
    s->ms = lvd_mono_ms() - t0;
    if (res.out.len)
        fprintf(j->log, "%s%s", lvd_sb_str(&res.out), lvd_ends_with(lvd_sb_str(&res.out), "\n") ? "" : "\n");
    if (res.err.len)
        fprintf(j->log, "%s%s", lvd_sb_str(&res.err), lvd_ends_with(lvd_sb_str(&res.err), "\n") ? "" : "\n");
    char how[256];
    proc_describe(&res, how, sizeof how);
    logf_(j, "step '%s': %s after %lld ms", name, how, (long long)s->ms);
    s->exit_code = res.exited ? res.exit_code : -1;
    if (proc_ok(&res)) {
        s->outcome = lvd_xstrdup("ok");
    } else {
        /* the tool's own one-line error is the last line of its stderr */
        char *tail = proc_tail(lvd_sb_str(&res.err), 1);
        tail[strcspn(tail, "\n")] = '\0';
        s->outcome = *tail ? lvd_xasprintf("%s: %s", how, tail) : lvd_xstrdup(how);
        free(tail);
    }
    if (out) {
        lvd_sb_reset(out);
        lvd_sb_add(out, lvd_sb_str(&res.out), res.out.len);
    }
    proc_result_free(&res);
    return s->exit_code;
}

/* Marks the last step with a console line; counts it against the night when
 * it failed in a way that matters. */
static void report_step(job *j, int partial_ok)
{
    night_step *s = &j->r->steps[j->r->n_steps - 1];
    int ok = s->exit_code == LVD_EXIT_OK || (partial_ok && s->exit_code == LVD_EXIT_PARTIAL);
    if (s->exit_code == LVD_EXIT_PARTIAL) {
        free(s->outcome);
        s->outcome = lvd_xstrdup("partial (see the log and the evidence page)");
    }
    console(j, "%-40s %s", s->name, s->outcome);
    if (!ok || s->exit_code == LVD_EXIT_PARTIAL)
        j->r->exit_code = LVD_EXIT_PARTIAL;
}

/* --- the steps ------------------------------------------------------------ */

static void fetch_common(job *j, argv_b *a, const char *flavour)
{
    const night_config *c = j->o->cfg;
    lvd_strv_pushf(&a->v, &a->n, "--pin-file");
    lvd_strv_pushf(&a->v, &a->n, "%s", c->pin_file);
    if (flavour) {
        lvd_strv_pushf(&a->v, &a->n, "--flavour");
        lvd_strv_pushf(&a->v, &a->n, "%s", flavour);
    }
    if (c->builds_dir) {
        lvd_strv_pushf(&a->v, &a->n, "--builds-dir");
        lvd_strv_pushf(&a->v, &a->n, "%s", c->builds_dir);
    }
}

/* Fetches the pinned build for one flavour. Returns 1 when the release host
 * could not be reached (offline). */
static int fetch_pinned(job *j, const char *flavour)
{
    argv_b a = {0};
    tool(j, &a, "fetch");
    fetch_common(j, &a, flavour);
    char name[160];
    snprintf(name, sizeof name, "fetch pinned %s", flavour ? flavour : "(pin's flavour)");
    int rc = run_step(j, name, &a, j->o->cfg->step_timeout_s, NULL);
    argv_free(&a);
    if (rc == LVD_EXIT_NETWORK) {
        night_step *s = &j->r->steps[j->r->n_steps - 1];
        console(j, "offline: %s; going on with the engines already registered", s->outcome);
        free(s->outcome);
        s->outcome = lvd_xstrdup("offline");
        j->r->exit_code = LVD_EXIT_PARTIAL;
        return 1;
    }
    report_step(j, 1);
    return 0;
}

static void fetch_candidate(job *j, const char *flavour)
{
    const night_config *c = j->o->cfg;
    if (!strcmp(c->candidate, "none"))
        return;
    argv_b a = {0};
    tool(j, &a, "fetch");
    if (!strcmp(c->candidate, "latest")) {
        lvd_strv_pushf(&a.v, &a.n, "--latest");
        lvd_strv_pushf(&a.v, &a.n, "--min-age");
        lvd_strv_pushf(&a.v, &a.n, "%s", c->min_age);
    } else {
        lvd_strv_pushf(&a.v, &a.n, "%s", c->candidate);
    }
    fetch_common(j, &a, flavour);
    lvd_strv_pushf(&a.v, &a.n, "--json");
    lvd_sb out = {0};
    char name[160];
    snprintf(name, sizeof name, "fetch candidate %s", flavour ? flavour : "(pin's flavour)");
    int rc = run_step(j, name, &a, c->step_timeout_s, &out);
    argv_free(&a);
    if (rc == LVD_EXIT_OK || rc == LVD_EXIT_PARTIAL) {
        cJSON *root = cJSON_Parse(lvd_sb_str(&out));
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "build");
        if (cJSON_IsString(b) && !j->r->candidate)
            j->r->candidate = lvd_xstrdup(b->valuestring);
        cJSON_Delete(root);
    }
    lvd_sb_free(&out);
    if (rc == LVD_EXIT_NETWORK) {
        night_step *s = &j->r->steps[j->r->n_steps - 1];
        console(j, "offline: %s; no candidate tonight", s->outcome);
        free(s->outcome);
        s->outcome = lvd_xstrdup("offline");
        j->r->offline = 1;
        j->r->exit_code = LVD_EXIT_PARTIAL;
        return;
    }
    report_step(j, 1);
}

/* The model's sha256 as `lvd store model` records it (hash cache: cheap when
 * unchanged), or NULL when it cannot be identified (the step says why). */
static char *identify(job *j, const char *model, const char *when)
{
    argv_b a = {0};
    tool(j, &a, "store");
    lvd_strv_pushf(&a.v, &a.n, "model");
    lvd_strv_pushf(&a.v, &a.n, "%s", model);
    lvd_strv_pushf(&a.v, &a.n, "--json");
    char name[200];
    snprintf(name, sizeof name, "identify %.127s (%s)", lvd_base_name(model), when);
    lvd_sb out = {0};
    int rc = run_step(j, name, &a, j->o->cfg->step_timeout_s, &out);
    argv_free(&a);
    char *sha = NULL;
    if (rc == LVD_EXIT_OK) {
        cJSON *root = cJSON_Parse(lvd_sb_str(&out));
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "sha256");
        if (cJSON_IsString(v))
            sha = lvd_xstrdup(v->valuestring);
        cJSON_Delete(root);
    }
    lvd_sb_free(&out);
    if (!sha)
        report_step(j, 0);
    return sha;
}

/* After a bench: did another session measure at the same time (overlap.h)? */
static void alone_step(job *j)
{
    char msg[512] = "";
    lvd_err err = {{0}};
    int n = night_overlaps(j->o->store, j->r->session, lvd_hostname(), j->since, msg, sizeof msg, &err);
    if (n == 0)
        return;
    night_step *s = add_step(j, "measured alone");
    s->outcome = n < 0 ? lvd_xasprintf("failed: cannot read the runs back: %s", err.msg)
                       : lvd_xasprintf("failed: %d run(s) overlapped another process's measurement (%s): "
                                       "their figures may include its load", n, msg);
    logf_(j, "%s", s->outcome);
    console(j, "%-40s %s", s->name, s->outcome);
    j->r->exit_code = LVD_EXIT_PARTIAL;
}

/* lvd select of model with the night's objective and context: --record
 * (the verdict), or the plain select a service runs. */
static void select_argv(job *j, argv_b *a, const char *model, int record)
{
    const night_config *c = j->o->cfg;
    tool(j, a, "select");
    lvd_strv_pushf(&a->v, &a->n, "--model");
    lvd_strv_pushf(&a->v, &a->n, "%s", model);
    if (record)
        lvd_strv_pushf(&a->v, &a->n, "--record");
    lvd_strv_pushf(&a->v, &a->n, "--objective");
    lvd_strv_pushf(&a->v, &a->n, "%s", c->objective);
    if (c->ctx >= 0) { /* the context served; unset: the one the verdict's depth stands for */
        lvd_strv_pushf(&a->v, &a->n, "--ctx");
        lvd_strv_pushf(&a->v, &a->n, "%d", c->ctx);
    }
}

static void per_model(job *j, const char *what, const char *model)
{
    const night_config *c = j->o->cfg;
    argv_b a = {0};
    char name[200];
    snprintf(name, sizeof name, "%s %.127s", what, lvd_base_name(model));
    int timeout = c->step_timeout_s;
    if (!strcmp(what, "select")) {
        select_argv(j, &a, model, 1);
    } else if (!strcmp(what, "check")) {
        tool(j, &a, "check");
        lvd_strv_pushf(&a.v, &a.n, "--model");
        lvd_strv_pushf(&a.v, &a.n, "%s", model);
    } else if (!strcmp(what, "serve")) { /* the leading arms' launch lines under load, in the night's session */
        tool(j, &a, "serve");
        lvd_strv_pushf(&a.v, &a.n, "--model");
        lvd_strv_pushf(&a.v, &a.n, "%s", model);
        lvd_strv_pushf(&a.v, &a.n, "--arms");
        lvd_strv_pushf(&a.v, &a.n, "%d", c->serve_arms);
        lvd_strv_pushf(&a.v, &a.n, "--load");
        lvd_strv_pushf(&a.v, &a.n, "%s", c->serve);
        lvd_strv_pushf(&a.v, &a.n, "--session");
        lvd_strv_pushf(&a.v, &a.n, "%s", j->r->session);
    } else { /* bench */
        int64_t budget = 900;
        lvd_parse_duration(c->budget, &budget);
        timeout = (int)budget + 600; /* the bench stops itself at its budget */
        stats_rule pin; /* the first look gives lvd pin what its rule needs per build and test */
        stats_rule_pin(&pin);
        a.v = night_bench_argv(c, j->o->tools_dir, j->o->store, model, j->r->session, j->resume.resumed,
                               c->tests, c->budget, pin.min_samples, &a.n);
    }
    if (c->run_timeout && !strcmp(what, "check")) {
        lvd_strv_pushf(&a.v, &a.n, "--timeout");
        lvd_strv_pushf(&a.v, &a.n, "%s", c->run_timeout);
    }
    run_step(j, name, &a, timeout, NULL);
    argv_free(&a);
    report_step(j, 0);
    if (!strcmp(what, "bench")) {
        int64_t left = (timeout - 600) - j->r->steps[j->r->n_steps - 1].ms / 1000;
        j->bench_left_s += left > 0 ? left : 0;
        alone_step(j);
    }
}

static void pin_step(job *j)
{
    const night_config *c = j->o->cfg;
    argv_b a = {0};
    tool(j, &a, "pin");
    lvd_strv_pushf(&a.v, &a.n, "--pin-file");
    lvd_strv_pushf(&a.v, &a.n, "%s", c->pin_file);
    if (j->r->candidate) {
        lvd_strv_pushf(&a.v, &a.n, "--candidate");
        lvd_strv_pushf(&a.v, &a.n, "%s", j->r->candidate);
    }
    if (c->promote)
        lvd_strv_pushf(&a.v, &a.n, "--promote");
    int rc = run_step(j, "pin", &a, c->step_timeout_s, NULL);
    argv_free(&a);
    if (rc == LVD_EXIT_FAIL) {
        /* lvd pin's "nothing to compare": no candidate build has been measured,
           the normal outcome of a night without a newer release */
        night_step *s = &j->r->steps[j->r->n_steps - 1];
        free(s->outcome);
        s->outcome = lvd_xstrdup("no candidate measured: the pin stays");
        console(j, "%-40s %s", s->name, s->outcome);
        return;
    }
    report_step(j, 0);
}

/* The bench budget the night left, spent on the comparisons lvd pin called
 * inconclusive (nightly/remeasure.h), then lvd pin again on what they added. */
static void remeasure_step(job *j)
{
    night_remeasure *v;
    size_t n = night_remeasures(j->o->cfg, j->o->tools_dir, j->o->store, j->r->session, j->bench_left_s, &v);
    for (size_t i = 0; i < n; i++) {
        argv_b a = {.v = v[i].argv, .n = v[i].n};
        char name[200];
        snprintf(name, sizeof name, "more samples: %.180s", v[i].what);
        run_step(j, name, &a, v[i].timeout_s, NULL);
        report_step(j, 1); /* an arm that fails again is the next pin's to judge */
    }
    night_remeasures_free(v, n);
    if (n)
        pin_step(j);
}

/* lvd bisect when the newest pin decision names a regression (nightly/hunt.h). */
static void bisect_step(job *j)
{
    const night_config *c = j->o->cfg;
    int timeout = 0;
    argv_b a = {0};
    a.v = night_bisect_argv(c, j->o->tools_dir, j->o->store, &a.n, &timeout);
    if (!a.v)
        return;
    char *env = c->builds_dir ? lvd_xasprintf("LVD_BUILDS_DIR=%s", c->builds_dir) : NULL;
    j->step_env = env;
    run_step(j, "bisect", &a, timeout, NULL);
    j->step_env = NULL;
    free(env);
    argv_free(&a);
    report_step(j, 0);
}

/* Finds the engines on the box and registers the new ones (lvd probe
 * --discover); what it found is in the log, its summary on the console. */
static void discover_step(job *j)
{
    const night_config *c = j->o->cfg;
    argv_b a = {0};
    tool(j, &a, "probe");
    lvd_strv_pushf(&a.v, &a.n, "--discover");
    char *env = c->builds_dir ? lvd_xasprintf("LVD_BUILDS_DIR=%s", c->builds_dir) : NULL;
    j->step_env = env;
    lvd_sb out = {0};
    int rc = run_step(j, "discover", &a, c->step_timeout_s, &out);
    j->step_env = NULL;
    free(env);
    argv_free(&a);
    night_step *s = &j->r->steps[j->r->n_steps - 1];
    /* the summary is the last line of its output */
    const char *text = lvd_sb_str(&out);
    size_t len = out.len;
    while (len && text[len - 1] == '\n')
        len--;
    size_t start = len;
    while (start && text[start - 1] != '\n')
        start--;
    if (rc == LVD_EXIT_OK || rc == LVD_EXIT_FAIL) {
        /* finding nothing is no failure: the engines registered are measured */
        free(s->outcome);
        s->outcome = len ? lvd_xasprintf("%.*s", (int)(len - start), text + start)
                         : lvd_xstrdup("no llama.cpp engine found");
        console(j, "%-40s %s", s->name, s->outcome);
    } else {
        report_step(j, 0);
    }
    lvd_sb_free(&out);
}

static int evidence_step(job *j)
{
    argv_b a = {0};
    tool(j, &a, "evidence");
    lvd_strv_pushf(&a.v, &a.n, "--out");
    lvd_strv_pushf(&a.v, &a.n, "%s", j->o->cfg->evidence);
    if (j->resume.note) {
        lvd_strv_pushf(&a.v, &a.n, "--note");
        lvd_strv_pushf(&a.v, &a.n, "%s", j->resume.note);
    }
    int rc = run_step(j, "evidence", &a, j->o->cfg->step_timeout_s, NULL);
    argv_free(&a);
    report_step(j, 0);
    return rc;
}

/* Runs argv (model's select) quietly in the night's own environment; logs
 * how it ended. */
static void keep_one(job *j, argv_b *a, const char *model, const char *what)
{
    const char *env[] = {"LVD_NO_PROGRESS=1", NULL};
    proc_spec spec = {.argv = (const char *const *)a->v, .env = env, .timeout_ms = j->o->cfg->step_timeout_s * 1000};
    proc_result res;
    lvd_err err = {{0}};
    char how[256] = "";
    if (proc_run(&spec, &res, &err) == 0) {
        proc_describe(&res, how, sizeof how);
        proc_result_free(&res);
    }
    logf_(j, "the serving answer of %s kept for %s: %s", model, what, *how ? how : err.msg);
}

/* After the night's last write to the store: each model's plain select,
 * in the night's own environment (not the steps' LVD_PIN_FILE: a service
 * sets none), as lvd-select and as `lvd select` (the executable is part of
 * the question), so that its answer is kept (select/cache.h) and the select
 * a service runs at its start answers without SQLite. Logged, never a step:
 * a failure only means that first select computes its answer. */
static void keep_answers(job *j)
{
    const night_config *c = j->o->cfg;
    usleep(20000); /* the store's files a tick old: select keeps no answer of files changed in its tick */
    for (size_t m = 0; m < c->n_models && !j->no_engine; m++) {
        argv_b a = {0}, d = {0};
        select_argv(j, &a, c->models[m], 0);
        keep_one(j, &a, c->models[m], "lvd-select");
        lvd_strv_pushf(&d.v, &d.n, "%s/lvd", j->o->tools_dir);
        lvd_strv_pushf(&d.v, &d.n, "select");
        for (size_t i = 1; i < a.n; i++)
            lvd_strv_pushf(&d.v, &d.n, "%s", a.v[i]);
        keep_one(j, &d, c->models[m], "lvd select");
        argv_free(&a);
        argv_free(&d);
    }
}

/* The night's session: a new one, or the interrupted night's (resume.h);
 * says which in the log and on the console. 0, or -1 with err. */
static int begin(job *j, lvd_err *err)
{
    char ts[32], *fresh;
    lvd_format_utc(lvd_now(), ts, sizeof ts);
    fresh = lvd_session_name("night", ts); /* unique across boxes: stores merge (common/uid.h) */
    j->since = lvd_now() - 2 * 86400;
    int rc = night_resume_begin(j->o->store, fresh, lvd_now(), j->o->cfg->resume_within_s, &j->resume, err);
    free(fresh);
    if (rc)
        return -1;
    night_report *r = j->r;
    r->session = lvd_xstrdup(j->resume.session);
    r->resumed = j->resume.resumed;
    r->note = j->resume.note ? lvd_xstrdup(j->resume.note) : NULL;
    char *shown = store_display(j->o->store);
    logf_(j, "nightly %s starts: config %s, store %s", r->session, j->o->cfg->source, shown);
    free(shown);
    if (j->o->fallback_from)
        logf_(j, "store %s unreachable: this night records into the local fallback store %s "
                 "(lvd store merge pushes it to the shared store later)", j->o->fallback_from, j->o->store);
    console(j, "nightly %s (config: %s, log: %s)", r->session, j->o->cfg->source, j->o->cfg->log);
    if (r->note) {
        logf_(j, "interrupted: %s", r->note);
        console(j, "interrupted: %s", r->note);
    }
    return 0;
}

/* The log's folder made when it is missing. 0, or -1 with err. */
static int make_log_dir(const char *log, lvd_err *err)
{
    char *logdir = lvd_xstrdup(log);
    char *slash = strrchr(logdir, '/');
    int rc = 0;
    if (slash && slash != logdir) {
        *slash = '\0';
        rc = lvd_mkdir_p(logdir, err);
    }
    free(logdir);
    return rc;
}

/* How many engines the store has registered; -1 when it cannot be read (the
 * steps then run and say why themselves). */
static int64_t engines_registered(const job *j)
{
    store *s;
    lvd_err err = {{0}};
    if (store_open(j->o->store, STORE_OPEN_CREATE, &s, &err) != 0)
        return -1;
    lvd_engine *v = NULL;
    size_t n = 0;
    int64_t count = store_engine_list(s, &v, &n, &err) == 0 ? (int64_t)n : -1;
    store_engine_list_free(v, n);
    store_close(s);
    return count;
}

/* No engine after fetch and discover: one line says what is missing and how
 * to get it, and the night skips what needs an engine. */
static void no_engine_step(job *j)
{
    night_step *s = add_step(j, "engines");
    s->outcome = lvd_xasprintf("none registered or found: register a llama.cpp build with `" LVD_REGISTER_HINT
                               "`%s; probe, check, bench%s and select skipped",
                               j->r->offline || !j->o->cfg->fetch ? ", or run online to fetch the pinned release" : "",
                               j->o->cfg->serve ? ", serve" : "");
    logf_(j, "%s", s->outcome);
    console(j, "%-40s %s", s->name, s->outcome);
    j->no_engine = 1;
    j->r->exit_code = LVD_EXIT_FAIL;
}

/* The engines of the night: fetched (pinned, then the candidate) and
 * discovered, as the config says, then probed. */
static void engines_step(job *j)
{
    const night_config *c = j->o->cfg;
    night_report *r = j->r;
    if (c->fetch) {
        size_t nf = c->n_flavours ? c->n_flavours : 1;
        int offline = 0;
        for (size_t i = 0; i < nf && !offline; i++)
            offline = fetch_pinned(j, c->n_flavours ? c->flavours[i] : NULL);
        for (size_t i = 0; i < nf && !offline && !r->offline; i++)
            fetch_candidate(j, c->n_flavours ? c->flavours[i] : NULL);
        r->offline |= offline;
    } else {
        console(j, "fetch is off in %s: measuring the engines %s", c->source,
                c->discover ? "on this box" : "already registered");
    }

    if (c->discover)
        discover_step(j);
    else
        logf_(j, "discover is off in %s: measuring the engines registered", c->source);
    if (engines_registered(j) == 0) {
        no_engine_step(j);
        return;
    }

    argv_b a = {0};
    tool(j, &a, "probe");
    run_step(j, "probe", &a, c->step_timeout_s, NULL);
    argv_free(&a);
    report_step(j, 0);
}

/* One model's check, bench, serve and select; a model replaced while it is
 * measured splits its measurements between two artifacts: said, and the
 * night counted partial. */
static void model_step(job *j, const char *model)
{
    char *before = identify(j, model, "before");
    per_model(j, "check", model);
    per_model(j, "bench", model);
    if (j->o->cfg->serve)
        per_model(j, "serve", model);
    per_model(j, "select", model);
    char *after = before ? identify(j, model, "after") : NULL;
    if (before && after && strcmp(before, after)) {
        night_step *s = add_step(j, "model unchanged");
        s->outcome = lvd_xasprintf("failed: %s changed during the night (sha256 %.12s -> %.12s): "
                                   "its check, bench and verdict may belong to different files",
                                   model, before, after);
        logf_(j, "%s", s->outcome);
        console(j, "%-40s %s", s->name, s->outcome);
        j->r->exit_code = LVD_EXIT_PARTIAL;
    }
    free(before);
    free(after);
}

int night_run(const night_opts *o, night_report *r, lvd_err *err)
{
    memset(r, 0, sizeof *r);
    const night_config *c = o->cfg;
    if (make_log_dir(c->log, err))
        return -1;
    job j = {.o = o, .r = r, .pin_env = c->pin_file ? lvd_xasprintf("LVD_PIN_FILE=%s", c->pin_file) : NULL};
    j.log = fopen(c->log, "ae");
    if (!j.log) {
        free(j.pin_env);
        return lvd_errf(err, "%s: cannot open the log: %s", c->log, strerror(errno));
    }
    if (begin(&j, err)) {
        fclose(j.log);
        free(j.pin_env);
        return -1;
    }
    engines_step(&j);
    for (size_t m = 0; m < c->n_models && !j.no_engine; m++)
        model_step(&j, c->models[m]);
    pin_step(&j);
    remeasure_step(&j);
    bisect_step(&j);
    int ev = evidence_step(&j);
    if (ev != LVD_EXIT_OK && ev != LVD_EXIT_PARTIAL)
        r->exit_code = LVD_EXIT_FAIL; /* no page: the night produced nothing to review */
    logf_(&j, "nightly %s ends: exit %d", r->session, r->exit_code);
    night_resume_end(o->store);
    keep_answers(&j);
    night_resume_free(&j.resume);
    console(&j, "evidence: %s", c->evidence);
    lvd_sb_free(&j.argv_sb);
    free(j.pin_env);
    fclose(j.log);
    return 0;
}

void night_report_free(night_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_steps; i++) {
        free(r->steps[i].name);
        free(r->steps[i].outcome);
    }
    free(r->steps);
    free(r->candidate);
    free(r->session);
    free(r->note);
    memset(r, 0, sizeof *r);
}
