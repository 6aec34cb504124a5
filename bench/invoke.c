/* invoke.c: one llama-bench invocation of an arm (see invoke.h): the tests
 * it asks for, its argv, the process (through proc_run) and the outcome's
 * classification (ok / failed / gpu_ignored) from its parsed output
 * (benchio/benchout.h). Not for the session loop over a plan (runner.c). */
#include "bench/invoke.h"

#include "bench/alloc.h"
#include "benchio/benchout.h"
#include "bench/energy.h"
#include "bench/group.h"
#include "common/proc.h"
#include "engine/argv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* --- tests -------------------------------------------------------------- */

int bench_tests_parse(const char *s, bench_test **tests, size_t *n, lvd_err *err)
{
    *tests = NULL;
    *n = 0;
    size_t count;
    char **items = lvd_split(s ? s : "", ',', &count);
    if (count == 0) {
        lvd_strv_free(items);
        return lvd_errf(err, "tests: none given (e.g. pp512,tg128)");
    }
    if (count > BENCH_MAX_TESTS) {
        lvd_strv_free(items);
        return lvd_errf(err, "tests: %zu given, at most %d", count, BENCH_MAX_TESTS);
    }
    bench_test *v = lvd_xcalloc(count, sizeof *v);
    for (size_t i = 0; i < count; i++) {
        int64_t tokens, depth = 0;
        int pp = lvd_starts_with(items[i], "pp"), tg = lvd_starts_with(items[i], "tg");
        char *at = strstr(items[i], "@d"); /* llama-bench's name of a test at depth D */
        if (at)
            *at = '\0';
        if ((!pp && !tg) || lvd_parse_i64(items[i] + 2, &tokens) || tokens <= 0 || tokens > 1000000 ||
            (at && (lvd_parse_i64(at + 2, &depth) || depth < 0 || depth > 16777216))) {
            if (at)
                *at = '@';
            lvd_errf(err, "tests: '%s' is not ppN or tgN (N in 1..1000000), optionally @dD", items[i]);
            free(v);
            lvd_strv_free(items);
            return -1;
        }
        v[i].n_prompt = pp ? (int)tokens : 0;
        v[i].n_gen = tg ? (int)tokens : 0;
        v[i].n_depth = (int)depth;
        benchio_test_name(v[i].n_prompt, v[i].n_gen, v[i].n_depth, v[i].name, sizeof v[i].name);
        for (size_t k = 0; k < i; k++) {
            if (!strcmp(v[k].name, v[i].name)) {
                lvd_errf(err, "tests: '%s' is given twice", items[i]);
                free(v);
                lvd_strv_free(items);
                return -1;
            }
        }
    }
    lvd_strv_free(items);
    *tests = v;
    *n = count;
    return 0;
}

int bench_tests_from_counts(const char *n_prompt, const char *n_gen, bench_test **tests, size_t *n,
                            lvd_err *err)
{
    static const char *const kinds[][2] = {{"n-prompt", "pp"}, {"n-gen", "tg"}};
    const char *lists[] = {n_prompt ? n_prompt : "512", n_gen ? n_gen : "128"};
    char *spec = lvd_xstrdup("");
    int rc = 0;
    for (size_t k = 0; k < 2 && rc == 0; k++) {
        size_t count;
        char **items = lvd_split(lists[k], ',', &count);
        for (size_t i = 0; i < count && rc == 0; i++) {
            int64_t tokens;
            if (lvd_parse_i64(items[i], &tokens) || tokens < 0) {
                rc = lvd_errf(err, "%s: '%s' is not a number of tokens", kinds[k][0], items[i]);
            } else if (tokens > 0) {
                char *more = lvd_xasprintf("%s%s%s%s", spec, *spec ? "," : "", kinds[k][1], items[i]);
                free(spec);
                spec = more;
            }
        }
        if (count == 0)
            rc = lvd_errf(err, "%s: no number of tokens given", kinds[k][0]);
        lvd_strv_free(items);
    }
    if (rc == 0)
        rc = bench_tests_parse(spec, tests, n, err);
    free(spec);
    return rc;
}

/* --- one invocation ----------------------------------------------------- */

enum { LIST_PP, LIST_TG, LIST_DEPTH };

static int test_value(const bench_test *t, int which)
{
    return which == LIST_PP ? t->n_prompt : which == LIST_TG ? t->n_gen : t->n_depth;
}

/* The comma list of the tests' n_prompt (pp), n_gen (tg) or n_depth, each
 * value once in first-seen order (pp and tg: > 0 only, "0" when none). */
static char *token_list(const bench_invoke *inv, int which)
{
    lvd_sb sb = {0};
    for (size_t i = 0; i < inv->n_tests; i++) {
        int v = test_value(&inv->tests[i], which), seen = 0;
        for (size_t k = 0; k < i && !seen; k++)
            seen = test_value(&inv->tests[k], which) == v;
        if (!seen && (v > 0 || which == LIST_DEPTH))
            lvd_sb_addf(&sb, "%s%d", sb.len ? "," : "", v);
    }
    if (!sb.len)
        lvd_sb_adds(&sb, "0");
    return lvd_sb_detach(&sb);
}

static int any_depth(const bench_invoke *inv)
{
    for (size_t i = 0; i < inv->n_tests; i++)
        if (inv->tests[i].n_depth > 0)
            return 1;
    return 0;
}

int bench_group_cmd(const bench_plan *plan, const bench_group *g, const bench_invoke *inv, int progress,
                    engine_argv *out, lvd_err *err)
{
    static const int ctx_list[ENGINE_LIST_COUNT] = {[ENGINE_LIST_FA] = BENCH_CTX_FA, [ENGINE_LIST_UB] = BENCH_CTX_UB,
                                                    [ENGINE_LIST_CTK] = BENCH_CTX_CTK,
                                                    [ENGINE_LIST_CTV] = BENCH_CTX_CTV, [ENGINE_LIST_T] = BENCH_CTX_T};
    const bench_arm *arm = &plan->arms[g->arms[0]];
    engine_help help;
    engine_help_load(arm->flags, &help);
    char *lists[ENGINE_LIST_COUNT];
    engine_run r = {.kind = ENGINE_RUN_BENCH, .binary = arm->binary, .model = inv->model, .params = arm->params,
                    .help = arm->flags ? &help : NULL, .reps = inv->reps, .no_warmup = inv->no_warmup,
                    .progress = progress};
    char *pp = token_list(inv, LIST_PP), *tg = token_list(inv, LIST_TG);
    char *depth = any_depth(inv) ? token_list(inv, LIST_DEPTH) : NULL;
    r.n_prompt = pp;
    r.n_gen = tg;
    r.n_depth = depth;
    for (int i = 0; i < ENGINE_LIST_COUNT; i++)
        r.lists[i] = lists[i] = bench_group_list(plan, g, ctx_list[i]);
    int rc = engine_argv_build(&r, out, err);
    for (int i = 0; i < ENGINE_LIST_COUNT; i++)
        free(lists[i]);
    free(pp);
    free(tg);
    free(depth);
    engine_help_free(&help);
    return rc;
}

char **bench_group_argv(const bench_plan *plan, const bench_group *g, const bench_invoke *inv)
{
    engine_argv a;
    lvd_err err = {{0}};
    if (bench_group_cmd(plan, g, inv, 0, &a, &err) != 0)
        return NULL;
    char **v = a.argv;
    a.argv = NULL;
    engine_argv_free(&a);
    return v;
}

char **bench_arm_argv(const bench_arm *arm, const bench_invoke *inv)
{
    size_t zero = 0;
    bench_plan one = {.arms = (bench_arm *)arm, .n_arms = 1};
    bench_group g = {.arms = &zero, .n = 1, .abba = -1};
    return bench_group_argv(&one, &g, inv);
}

static void set_status(lvd_run *run, const char *status, char *reason)
{
    snprintf(run->status, sizeof run->status, "%s", status);
    free(run->reason);
    run->reason = reason;
}

const lvd_result *bench_run_result(const lvd_run *run, const char *test)
{
    for (size_t i = 0; i < run->n_results; i++)
        if (!strcmp(run->results[i].test, test))
            return &run->results[i];
    return NULL;
}

/* 1 when the run left test t out: a pp test at a depth its build could
 * not run (engine/argv.h: "left out -d 2048", ik_llama.cpp's -gp runs only
 * tg at a depth). */
static int test_left_out(const lvd_run *run, const bench_test *t)
{
    if (!run->left_out || t->n_depth <= 0 || t->n_prompt <= 0)
        return 0;
    char word[32];
    int n = snprintf(word, sizeof word, "-d %d", t->n_depth);
    for (const char *p = strstr(run->left_out, word); p; p = strstr(p + 1, word))
        if ((p == run->left_out || p[-1] == ' ') && (p[n] == '\0' || p[n] == ',' || p[n] == ':'))
            return 1;
    return 0;
}

/* The status of a run whose process exited 0 with parsed results. */
static void classify_results(const bench_arm *arm, const bench_invoke *inv, lvd_run *run)
{
    for (size_t i = 0; i < inv->n_tests; i++) {
        const lvd_result *r = bench_run_result(run, inv->tests[i].name);
        if (!r && test_left_out(run, &inv->tests[i]))
            continue;
        if (!r) {
            set_status(run, "failed",
                       lvd_xasprintf("llama-bench printed no %s result (%zu results for %zu tests)",
                                     inv->tests[i].name, run->n_results, inv->n_tests));
            return;
        }
        if (benchio_result_means_only(r)) {
            set_status(run, "failed",
                       lvd_xasprintf("%s: llama-bench printed only the mean of its -r %d repetitions, no "
                                     "samples: measured again one repetition per process",
                                     r->test, inv->reps));
            return;
        }
        if (!benchio_result_samples_valid(r)) {
            set_status(run, "failed",
                       lvd_xasprintf("%s: no valid samples (a throughput that is not finite and > 0)",
                                     r->test));
            return;
        }
    }
    for (size_t i = 0; i < run->n_results && arm->gpu; i++) {
        const lvd_result *r = &run->results[i];
        if (benchio_result_gpu_ignored(r) || !strcasecmp(r->backends, "CPU")) {
            set_status(run, "gpu_ignored",
                       lvd_xasprintf("GPU flags ignored: asked -dev %s -ngl %d, llama-bench reported"
                                     " backends \"%s\" (the build ran on the CPU)",
                                     *arm->params.device ? arm->params.device : "-",
                                     arm->params.ngl, r->backends));
            return;
        }
    }
    set_status(run, "ok", NULL);
}

/* A build that prints only means: at -r 1 each mean is the one sample its
 * repetition measured. 1 when a result of run kept only a mean of several. */
static int means_as_samples(const bench_invoke *inv, lvd_run *run)
{
    int means = 0;
    for (size_t i = 0; i < run->n_results; i++)
        if (inv->reps != 1)
            means |= benchio_result_means_only(&run->results[i]);
        else
            (void)benchio_result_mean_as_sample(&run->results[i]); /* -1: it has samples */
    return means;
}

static void flag_warmup(lvd_run *run)
{
    for (size_t i = 0; i < run->n_results; i++)
        benchio_result_flag_warmup(&run->results[i]);
}

/* The last non-empty line of s (malloc'd; "" when none). */
static char *last_line(const char *s)
{
    char *tail = proc_tail(s, 1);
    size_t n = strlen(tail);
    while (n && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
        tail[--n] = '\0';
    return tail;
}

/* Why the process produced no usable output, or NULL when it did (exit 0,
 * output within the capture limit). malloc'd. */
static char *process_failure(const proc_result *res)
{
    char what[256];
    proc_describe(res, what, sizeof what);
    if (!res->spawned || res->signaled || res->timed_out)
        return lvd_xasprintf("%s%s", what, res->timed_out ? " (process group killed)" : "");
    if (!res->exited || res->exit_code != 0) {
        char *line = last_line(lvd_sb_str(&res->err));
        char *r = lvd_xasprintf("%s%s%s", what, *line ? ": " : "", line);
        free(line);
        return r;
    }
    if (res->out_truncated)
        return lvd_xstrdup("output larger than the capture limit");
    return NULL;
}

/* A run of member m of g with the invocation's identity fields. */
static void run_init(lvd_run *run, const bench_arm *arm, const proc_result *res, int64_t started)
{
    memset(run, 0, sizeof *run);
    run->engine_id = arm->engine_id;
    run->binary = lvd_xstrdup(arm->binary);
    run->build = lvd_xstrdup(arm->build);
    run->params = arm->params;
    run->arm_key = lvd_xstrdup(arm->arm_key);
    run->exit_code = res && res->exited ? res->exit_code : -1;
    run->started_at = started;
    run->wall_ms = res ? res->wall_ms : 0;
    run->stderr_tail = res ? proc_tail(lvd_sb_str(&res->err), BENCH_STDERR_TAIL_LINES) : NULL;
    snprintf(run->source, sizeof run->source, "bench");
}

static void result_push(lvd_run *run, lvd_result *r)
{
    run->results = lvd_xrealloc(run->results, (run->n_results + 1) * sizeof *run->results);
    run->results[run->n_results++] = *r;
    memset(r, 0, sizeof *r);
}

static double samples_ms(const lvd_run *run)
{
    double ns = 0;
    for (size_t i = 0; i < run->n_results; i++)
        for (size_t k = 0; k < run->results[i].n; k++)
            ns += (double)run->results[i].ns[k];
    return ns / 1e6;
}

/* Splits the parsed rows of all over the members' slots (slot = the how-many-th
 * row of that member and test) into out (g->n x slots runs, member-major),
 * then takes means as samples at -r 1, flags warm-up and classifies each.
 * Rows matching no member are dropped. 1 when a run kept only means of
 * several repetitions (failed: measured again at -r 1). */
static int split_rows(const bench_plan *plan, const bench_group *g, const bench_invoke *inv, lvd_run *all,
                      lvd_run *out, size_t slots)
{
    int means = 0;
    double fixed = (double)all->wall_ms - samples_ms(all);
    for (size_t i = 0; i < all->n_results; i++) {
        lvd_result *r = &all->results[i];
        size_t m = bench_group_match(plan, g, r);
        for (size_t k = 0; m != (size_t)-1 && k < slots; k++) {
            lvd_run *run = &out[m * slots + k];
            if (!bench_run_result(run, r->test)) {
                result_push(run, r);
                break;
            }
        }
        lvd_result_free(r);
    }
    all->n_results = 0;
    for (size_t i = 0; i < g->n * slots; i++) {
        lvd_run *run = &out[i];
        run->build_commit = all->build_commit ? lvd_xstrdup(all->build_commit) : NULL;
        run->build_number = all->build_number;
        if (g->n * slots > 1) /* shared, A B B A or a plain list: each run its share of the fixed cost */
            run->wall_ms = (int64_t)(samples_ms(run) + (fixed > 0 ? fixed : 0) / (double)(g->n * slots));
        means |= means_as_samples(inv, run);
        flag_warmup(run);
        classify_results(&plan->arms[g->arms[i / slots]], inv, run);
    }
    return means;
}

/* The runs of g's members from one process (res NULL: none ran) into out:
 * each failed with why, or its rows of all split out; each carrying the
 * argv note (what the build's --help left out). */
/* The allocation lines of the group's process onto every run, beside the
 * prediction for the group's members together (bench_alloc_group_pred: one
 * process reports the largest of its contexts' buffers). */
static void attach_alloc(const bench_plan *plan, const bench_group *g, const proc_result *res,
                         bench_group_runs *out)
{
    const bench_arm **members = lvd_xcalloc(g->n ? g->n : 1, sizeof *members);
    for (size_t i = 0; i < g->n; i++)
        members[i] = &plan->arms[g->arms[i]];
    bench_arm merged;
    bench_alloc_group_pred(members, g->n, &merged);
    free(members);
    for (size_t i = 0; i < out->n; i++)
        bench_alloc_attach(&merged, res->err.buf, res->err.len, &out->runs[i]);
}

static void group_runs(const bench_plan *plan, const bench_group *g, const bench_invoke *inv, const proc_result *res,
                       int64_t started, const char *why, const char *note, lvd_run *all, bench_group_runs *out)
{
    size_t slots = why ? 1 : bench_group_slots(g);
    out->n = g->n * slots;
    out->runs = lvd_xcalloc(out->n, sizeof *out->runs);
    out->member = lvd_xcalloc(out->n, sizeof *out->member);
    for (size_t i = 0; i < out->n; i++) {
        run_init(&out->runs[i], &plan->arms[g->arms[i / slots]], res, started);
        out->member[i] = i / slots;
        out->runs[i].left_out = note ? lvd_xstrdup(note) : NULL;
        if (why)
            set_status(&out->runs[i], "failed", lvd_xstrdup(why));
    }
    if (!why)
        out->means_only = split_rows(plan, g, inv, all, out->runs, slots);
    if (res)
        attach_alloc(plan, g, res, out);
}

int bench_run_group(const bench_plan *plan, const bench_group *g, const bench_invoke *inv, bench_group_runs *out,
                    lvd_err *err)
{
    memset(out, 0, sizeof *out);
    int64_t started = lvd_now();
    const bench_arm *first = &plan->arms[g->arms[0]];
    proc_spec spec = {.timeout_ms = inv->timeout_ms};
    energy_watch ew;
    int progress = bench_energy_begin(inv->energy, g->arms[0], &spec, &ew);
    engine_argv cmd;
    lvd_err cmd_err = {{0}};
    if (bench_group_cmd(plan, g, inv, progress, &cmd, &cmd_err) != 0) { /* the build lacks a flag it needs */
        energy_watch_free(&ew);
        group_runs(plan, g, inv, NULL, started, cmd_err.msg, NULL, NULL, out);
        return 0;
    }
    size_t n_env;
    char **env = lvd_split(first->params.env, ' ', &n_env);
    spec.argv = (const char *const *)cmd.argv;
    spec.env = n_env ? (const char *const *)env : NULL;
    proc_result res;
    memset(&res, 0, sizeof res);
    int64_t t0 = inv->clock_ms ? inv->clock_ms(inv->clock_ctx) : 0;
    int rc = proc_run(&spec, &res, err);
    bench_energy_end(inv->energy, &ew); /* the process ended: the last window closes */
    if (inv->clock_ms)
        res.wall_ms = inv->clock_ms(inv->clock_ctx) - t0;
    lvd_strv_free(env);
    if (rc) {
        engine_argv_free(&cmd);
        energy_watch_free(&ew);
        proc_result_free(&res);
        return -1;
    }
    out->wall_ms = res.wall_ms;
    out->timed_out = res.timed_out;
    char *why = process_failure(&res);
    lvd_run all;
    run_init(&all, first, &res, started);
    lvd_err perr = {0};
    if (!why && benchio_parse_output(res.out.buf ? res.out.buf : "", res.out.len, first->engine, &all, &perr))
        why = lvd_xasprintf("unparsable output: %s", perr.msg);
    if (!why)
        bench_energy_attach(inv->energy, g->arms[0], &ew, &all);
    energy_watch_free(&ew);
    group_runs(plan, g, inv, &res, started, why, cmd.note, &all, out);
    free(why);
    engine_argv_free(&cmd);
    lvd_run_free(&all);
    proc_result_free(&res);
    return 0;
}

void bench_group_runs_free(bench_group_runs *r)
{
    for (size_t i = 0; r && i < r->n; i++)
        lvd_run_free(&r->runs[i]);
    if (r) {
        free(r->runs);
        free(r->member);
        memset(r, 0, sizeof *r);
    }
}

int bench_run_arm(const bench_arm *arm, const bench_invoke *inv, lvd_run *run, lvd_err *err)
{
    size_t zero = 0;
    bench_plan one = {.arms = (bench_arm *)arm, .n_arms = 1};
    bench_group g = {.arms = &zero, .n = 1, .abba = -1};
    bench_group_runs out;
    if (bench_run_group(&one, &g, inv, &out, err)) {
        memset(run, 0, sizeof *run);
        return -1;
    }
    *run = out.runs[0];
    out.n = 0;
    bench_group_runs_free(&out);
    return 0;
}
