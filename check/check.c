/* check.c: the correctness session of lvd-check (rules in check.h): the
 * judge, the llama-perplexity argv, the CPU reference and one comparison per
 * device, each judged and recorded as it ends, and the report's rows as the
 * tool shows them (table, JSON, exit code), beside the code that adds,
 * fills and frees them. Processes only through proc_run; the store only
 * through store.h. Not for captured output (lvd check --import:
 * check_import.c). */
#include "check/check.h"
#include "check/check_item.h"

#include "common/cli.h"
#include "common/json.h"
#include "common/proc.h"
#include "engine/argv.h"
#include "engine/cudaarch.h"
#include "engine/family.h"
#include "engine/visibility.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STDERR_TAIL_LINES 3

void check_opts_init(check_opts *o)
{
    memset(o, 0, sizeof *o);
    o->kld_max = CHECK_KLD_MAX;
    o->ppl_tol = CHECK_PPL_TOL;
    o->top_p_min = -1.0;
    o->timeout_ms = CHECK_TIMEOUT_S * 1000;
}

static void set_status(lvd_check *c, const char *status, char *reason)
{
    snprintf(c->status, sizeof c->status, "%s", status);
    free(c->reason);
    c->reason = reason;
}

void check_judge(const check_ppl *out, double base_ppl, const check_opts *o, lvd_check *c)
{
    c->ppl = check_ppl_value(out);
    c->ppl_base = !isnan(out->ppl_base) ? out->ppl_base : base_ppl;
    c->ppl_ratio = !isnan(out->ppl_ratio) ? out->ppl_ratio : c->ppl / c->ppl_base;
    c->mean_kld = out->mean_kld;
    c->same_top_p = out->same_top_p;
    if (out->gpu_ignored) {
        set_status(c, "fail", lvd_xstrdup("GPU flags ignored: the build warned that -ngl is ignored"
                                          " and ran on the CPU, so the device proved nothing"));
        return;
    }
    if (!out->has_kld && !o->ppl_only) {
        set_status(c, "error", lvd_xstrdup("no KL divergence statistics in the output"));
        return;
    }
    lvd_sb why = {0};
    if (out->has_kld && !(c->mean_kld <= o->kld_max))
        lvd_sb_addf(&why, "; mean KLD %.6g %s %.6g", c->mean_kld, isnan(c->mean_kld) ? "is not <=" : ">",
                    o->kld_max);
    if (!(fabs(c->ppl_ratio - 1.0) <= o->ppl_tol))
        lvd_sb_addf(&why, "; PPL ratio %.6g outside 1 +- %.6g", c->ppl_ratio, o->ppl_tol);
    if (out->has_kld && o->top_p_min >= 0 && !(c->same_top_p >= o->top_p_min))
        lvd_sb_addf(&why, "; same top p %.3f %% < %.3f %%", c->same_top_p, o->top_p_min);
    int broken = why.len > 0;
    if (!out->has_kld) {
        c->mean_kld = c->same_top_p = NAN;
        lvd_sb_adds(&why, "; judged on the PPL ratio alone: KLD not measured (no --kl-divergence"
                          " statistics in the capture)");
    }
    set_status(c, broken ? "fail" : "pass", why.len ? lvd_xstrdup(why.buf + 2) : NULL);
    lvd_sb_free(&why);
}

int check_cmd(const char *binary, const char *flags, const check_opts *o, const char *base_file, int compare,
              const char *device, engine_argv *out, lvd_err *err)
{
    engine_help help;
    engine_help_load(flags, &help);
    engine_run r = {.kind = ENGINE_RUN_PERPLEXITY, .binary = binary, .model = o->model, .help = flags ? &help : NULL,
                    .text = o->text, .ctx = CHECK_CTX, .chunks = CHECK_CHUNKS, .kld_base = base_file, .kld = compare};
    lvd_params_init(&r.params);
    if (device) { /* "none": the GPU engine's CPU reference */
        snprintf(r.params.device, sizeof r.params.device, "%s", device);
        r.params.ngl = strcmp(device, "none") ? 99 : 0;
    }
    int rc = engine_argv_build(&r, out, err);
    engine_help_free(&help);
    return rc;
}

char **check_argv(const char *binary, const check_opts *o, const char *base_file, int compare, const char *device)
{
    engine_argv a;
    lvd_err err = {{0}};
    if (check_cmd(binary, NULL, o, base_file, compare, device, &a, &err) != 0)
        return NULL;
    char **v = a.argv;
    a.argv = NULL;
    engine_argv_free(&a);
    return v;
}

/* --- the session -------------------------------------------------------- */

static char *ppl_binary(const lvd_engine *e)
{
    return lvd_xasprintf("%s/llama-perplexity", e->dir ? e->dir : ".");
}

static int has_ppl(const lvd_engine *e)
{
    char *b = ppl_binary(e);
    int ok = access(b, X_OK) == 0;
    free(b);
    return ok;
}

static int probed(const lvd_probe *p)
{
    return *p->backend && strcmp(p->backend, LVD_BACKEND_UNKNOWN) != 0;
}

check_item *check_add_item(check_report *r, const lvd_engine *e, const char *backend,
                                      const lvd_device *dev, const check_opts *o)
{
    r->items = lvd_xrealloc(r->items, (r->n + 1) * sizeof *r->items);
    check_item *it = &r->items[r->n++];
    memset(it, 0, sizeof *it);
    it->engine_id = e->id;
    it->engine = lvd_xstrdup(e->name ? e->name : "?");
    snprintf(it->backend, sizeof it->backend, "%s", backend);
    if (dev) {
        snprintf(it->device_name, sizeof it->device_name, "%s", dev->name);
        snprintf(it->check.device, sizeof it->check.device, "%s", dev->selector);
    }
    snprintf(it->check.artifact, sizeof it->check.artifact, "%s", o->artifact);
    it->check.engine_id = e->id;
    it->check.host = lvd_xstrdup(o->host);
    it->check.mean_kld = it->check.same_top_p = it->check.ppl = NAN;
    it->check.ppl_base = it->check.ppl_ratio = NAN;
    return it;
}

static void add_skip(check_report *r, const lvd_engine *e, const char *fmt, const char *detail)
{
    r->skipped = lvd_xrealloc(r->skipped, (r->n_skipped + 1) * sizeof *r->skipped);
    char *why = lvd_xasprintf(fmt, detail);
    r->skipped[r->n_skipped++] = lvd_xasprintf("%s: %s", e->name ? e->name : "?", why);
    free(why);
}

/* What one finished run says: 1 parsed into out, 0 c set to error. */
static int judge_run(const proc_result *res, const char *binary, lvd_check *c, check_ppl *out)
{
    char what[256];
    proc_describe(res, what, sizeof what);
    if (!proc_ok(res)) {
        char *tail = proc_tail(lvd_sb_str(&res->err), STDERR_TAIL_LINES);
        for (char *p = tail; *p; p++)
            if (*p == '\n')
                *p = ' ';
        set_status(c, "error", lvd_xasprintf("%s%s%s%s", what, res->timed_out ? " (process group killed)" : "",
                                             *tail ? ": " : "", tail));
        free(tail);
        return 0;
    }
    lvd_err perr = {0};
    if (check_ppl_parse(lvd_sb_str(&res->out), lvd_sb_str(&res->err), binary, out, &perr) == 0)
        return 1;
    set_status(c, "error", lvd_xasprintf("unparsable output: %s", perr.msg));
    return 0;
}

/* Runs e's llama-perplexity (check_cmd over flags, what e's tools list:
 * against base_file when compare, on device dev); on success parses into
 * out and returns 1; else sets it's check to error with the reason and
 * returns 0 (-1: the runner failed). What the build left out is it's note. */
static int run_ppl(store *s, const lvd_engine *e, const char *flags, const check_opts *o, const char *base_file,
                   int compare, const char *dev, check_item *it, check_ppl *out, lvd_err *err)
{
    lvd_check *c = &it->check;
    char *bin = ppl_binary(e);
    engine_argv cmd;
    lvd_err cerr = {{0}};
    int built = check_cmd(bin, flags, o, base_file, compare, dev, &cmd, &cerr);
    free(bin);
    if (built != 0) { /* the build lacks a flag the check needs */
        set_status(c, "error", lvd_xstrdup(cerr.msg));
        return 0;
    }
    it->left_out = cmd.note ? lvd_xstrdup(cmd.note) : NULL;
    size_t n_env;
    char **env = lvd_split(c->env, ' ', &n_env); /* the visibility the device needs */
    proc_spec spec = {.argv = (const char *const *)cmd.argv, .env = n_env ? (const char *const *)env : NULL,
                      .timeout_ms = o->timeout_ms};
    proc_result res;
    memset(&res, 0, sizeof res);
    int ok = -1;
    /* its log names the CUDA archs the build was compiled for: kept with the probe */
    if (proc_run(&spec, &res, err) == 0 && engine_cuda_archs_note(s, e, lvd_sb_str(&res.err), err) == 0)
        ok = judge_run(&res, cmd.argv[0], c, out);
    proc_result_free(&res);
    engine_argv_free(&cmd);
    lvd_strv_free(env);
    return ok;
}

int check_record(store *s, check_report *r, check_item *it, lvd_err *err)
{
    if (!strcmp(it->check.status, "pass"))
        r->n_pass++;
    else if (!strcmp(it->check.status, "fail"))
        r->n_fail++;
    else if (!strcmp(it->check.status, "error"))
        r->n_error++;
    return store_check_put(s, &it->check, err);
}

void check_set_base(lvd_check *c, double ppl, char *reason)
{
    c->ppl = c->ppl_base = ppl;
    c->ppl_ratio = 1.0;
    c->mean_kld = 0.0;
    c->same_top_p = 100.0;
    set_status(c, "base", reason);
}

/* 1 when engine e is of family (engine/family.h). */
static int of_family(const lvd_engine *e, const char *family)
{
    return !strcmp(lvd_engine_family(e), family);
}

/* Picks family's reference: a CPU-only engine, else a GPU engine at -ngl 0
 * -dev none. Returns its index or -1; *gpu_ref says which kind. */
static long pick_reference(const lvd_engine *engines, const lvd_probe *probes, size_t n, const char *family,
                           int *gpu_ref)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            if (probed(&probes[i]) && has_ppl(&engines[i]) && of_family(&engines[i], family) &&
                (probes[i].n_devices == 0) == (pass == 0)) {
                *gpu_ref = pass == 1;
                return (long)i;
            }
    return -1;
}

/* The reference run: writes base_file. 1 ok, 0 failed (recorded), -1 store. */
static int run_reference(store *s, const lvd_engine *e, const char *flags, int gpu_ref, const check_opts *o,
                         const char *base_file, check_report *r, double *base_ppl, lvd_err *err)
{
    check_item *it = check_add_item(r, e, LVD_BACKEND_CPU, NULL, o);
    it->reference = 1;
    lvd_progress("check: CPU reference on %s", e->name);
    check_ppl out;
    int rc = run_ppl(s, e, flags, o, base_file, 0, gpu_ref ? "none" : NULL, it, &out, err);
    if (rc < 0)
        return -1;
    if (rc == 1) {
        *base_ppl = check_ppl_value(&out);
        check_ppl_free(&out);
        if (access(base_file, R_OK) != 0) {
            set_status(&it->check, "error", lvd_xasprintf("no logits file written (%s)", base_file));
            rc = 0;
        } else {
            check_set_base(&it->check, *base_ppl,
                     gpu_ref ? lvd_xstrdup("reference: a GPU engine at -ngl 0 -dev none") : NULL);
        }
    }
    r->reference_ok &= rc == 1;
    if (rc != 1)
        r->n_error++;
    return store_check_put(s, &it->check, err) ? -1 : rc;
}

/* One comparison of engine e (probe pr) on dev (NULL: a CPU engine),
 * carrying the visibility variables dev needs from its probe's environment. */
static int run_compare(store *s, const lvd_engine *e, const lvd_probe *pr, const lvd_device *dev,
                       const check_opts *o, const char *base_file, double base_ppl,
                       const char *ref_failure, check_report *r, lvd_err *err)
{
    check_item *it = check_add_item(r, e, dev ? dev->backend : LVD_BACKEND_CPU, dev, o);
    if (dev) {
        char *vis = engine_visibility_for_device(pr->env, dev->backend);
        snprintf(it->check.env, sizeof it->check.env, "%s", vis);
        free(vis);
    }
    if (ref_failure) {
        set_status(&it->check, "error", lvd_xasprintf("not checked: the CPU reference failed (%s)", ref_failure));
        return check_record(s, r, it, err);
    }
    if (!has_ppl(e)) {
        set_status(&it->check, "error", lvd_xasprintf("not checked: no executable llama-perplexity in %s", e->dir));
        return check_record(s, r, it, err);
    }
    lvd_progress("check: %s %s", e->name, dev ? dev->selector : "cpu");
    check_ppl out;
    int rc = run_ppl(s, e, pr->flags, o, base_file, 1, dev ? dev->selector : NULL, it, &out, err);
    if (rc < 0)
        return -1;
    if (rc == 1) {
        check_judge(&out, base_ppl, o, &it->check);
        check_ppl_free(&out);
    }
    return check_record(s, r, it, err);
}

/* One family's check (engine/family.h: its numerics, its kernels and its
 * logits file are its own): its reference run into base_file, then every
 * other probed engine of the family, each device, against it. 0, -1 (store). */
static int check_family(store *s, const lvd_engine *engines, const lvd_probe *probes, size_t n, long ref,
                        int gpu_ref, const check_opts *o, const char *base_file, check_report *out, lvd_err *err)
{
    const char *family = lvd_engine_family(&engines[ref]);
    double base_ppl = NAN;
    size_t first = out->n;
    int rc = run_reference(s, &engines[ref], probes[ref].flags, gpu_ref, o, base_file, out, &base_ppl, err);
    char *ref_failure = rc == 0 ? lvd_xstrdup(out->items[first].check.reason ? out->items[first].check.reason : "?")
                                : NULL;
    for (size_t i = 0; i < n && rc >= 0; i++) {
        if (!probed(&probes[i]) || !of_family(&engines[i], family))
            continue;
        if (probes[i].n_devices == 0) {
            if ((long)i != ref)
                rc = run_compare(s, &engines[i], &probes[i], NULL, o, base_file, base_ppl, ref_failure, out, err)
                         ? -1 : rc;
            continue;
        }
        for (size_t d = 0; d < probes[i].n_devices && rc >= 0; d++)
            rc = run_compare(s, &engines[i], &probes[i], &probes[i].devices[d], o, base_file, base_ppl,
                             ref_failure, out, err) ? -1 : rc;
    }
    free(ref_failure);
    return rc < 0 ? -1 : 0;
}

int check_run(store *s, const lvd_engine *engines, const lvd_probe *probes, size_t n,
                    const check_opts *o, check_report *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    out->reference_ok = 1;
    for (size_t i = 0; i < n; i++)
        if (!probed(&probes[i]))
            add_skip(out, &engines[i], "probe unknown: %s", probes[i].reason ? probes[i].reason : "never probed");
    int gpu_ref = 0;
    long refs = 0;
    for (size_t i = 0; i < n; i++) /* any family's reference */
        refs += pick_reference(engines, probes, n, lvd_engine_family(&engines[i]), &gpu_ref) >= 0;
    if (!refs)
        return lvd_errf(err, "no probed engine has an executable llama-perplexity to compute the CPU reference");

    char tmpl[] = "/tmp/lvd-check-XXXXXX";
    const char *tmpdir = getenv("TMPDIR");
    char *dir_tmpl = tmpdir && *tmpdir ? lvd_xasprintf("%s/lvd-check-XXXXXX", tmpdir) : lvd_xstrdup(tmpl);
    if (!mkdtemp(dir_tmpl)) {
        lvd_errf(err, "%s: cannot create a directory for the reference logits", dir_tmpl);
        free(dir_tmpl);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *family = lvd_engine_family(&engines[i]);
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++)
            seen = of_family(&engines[k], family);
        long ref = seen ? -1 : pick_reference(engines, probes, n, family, &gpu_ref);
        for (size_t k = i; !seen && ref < 0 && k < n && rc == 0; k++) /* its engines: none has llama-perplexity */
            if (probed(&probes[k]) && of_family(&engines[k], family))
                rc = run_compare(s, &engines[k], &probes[k], NULL, o, "", NAN, NULL, out, err) ? -1 : 0;
        if (ref < 0)
            continue; /* a family seen already, or none of its engines can be the reference */
        char *base_file = lvd_xasprintf("%s/kld-base-%zu.bin", dir_tmpl, i);
        rc = check_family(s, engines, probes, n, ref, gpu_ref, o, base_file, out, err);
        free(base_file);
    }
    lvd_progress_done();
    lvd_rm_rf(dir_tmpl);
    free(dir_tmpl);
    return rc;
}

void check_report_free(check_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free(r->items[i].engine);
        free(r->items[i].check.host);
        free(r->items[i].check.reason);
        free(r->items[i].left_out);
    }
    free(r->items);
    for (size_t i = 0; i < r->n_skipped; i++)
        free(r->skipped[i]);
    free(r->skipped);
    memset(r, 0, sizeof *r);
}

/* --- the report as lvd-check shows it ------------------------------------- */

static void fmt_num(char *buf, size_t len, const char *fmt, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, fmt, v);
}

void check_print(FILE *f, const check_report *r, const check_opts *o)
{
    int we = 6, wd = 6;
    for (size_t i = 0; i < r->n; i++) {
        int l = (int)strlen(r->items[i].engine);
        we = l > we ? l : we;
        l = (int)strlen(r->items[i].check.device);
        wd = l > wd ? l : wd;
    }
    fprintf(f, "%-*s %-*s %-8s %-6s %10s %11s %14s %10s  %s\n", we, "ENGINE", wd, "DEVICE", "BACKEND",
            "STATUS", "MEAN KLD", "SAME TOP P", "PPL", "PPL RATIO", "REASON");
    for (size_t i = 0; i < r->n; i++) {
        const check_item *it = &r->items[i];
        const lvd_check *c = &it->check;
        char kld[32], top[32], ppl[32], ratio[32];
        fmt_num(kld, sizeof kld, "%.6f", c->mean_kld);
        fmt_num(top, sizeof top, "%.3f %%", c->same_top_p);
        fmt_num(ppl, sizeof ppl, "%.4f", c->ppl);
        fmt_num(ratio, sizeof ratio, "%.5f", c->ppl_ratio);
        const char *color = !strcmp(c->status, "pass") ? "\033[1;32m"
                            : !strcmp(c->status, "base") ? ""
                                                         : "\033[1;31m";
        fprintf(f, "%-*s %-*s %-8s %s%-6s%s %10s %11s %14s %10s  %s\n", we, it->engine, wd,
                *c->device ? c->device : "-", it->backend, lvd_ansi(f, color), c->status,
                lvd_ansi(f, "\033[0m"), kld, top, ppl, ratio,
                c->reason ? c->reason : (it->reference ? "the CPU reference" : ""));
    }
    for (size_t i = 0; i < r->n; i++)
        if (r->items[i].left_out)
            fprintf(f, "left out: %s %s: %s\n", r->items[i].engine,
                    *r->items[i].check.device ? r->items[i].check.device : "-", r->items[i].left_out);
    for (size_t i = 0; i < r->n_skipped; i++)
        fprintf(f, "skipped: %s\n", r->skipped[i]);
    fprintf(f, "pass: mean KLD <= %g and |PPL ratio - 1| <= %g", o->kld_max, o->ppl_tol);
    if (o->top_p_min >= 0)
        fprintf(f, " and same top p >= %g %%", o->top_p_min);
    if (o->text)
        fprintf(f, " (text %s, -c %d, %d chunks)", o->text, CHECK_CTX, CHECK_CHUNKS);
    else
        fprintf(f, " (imported llama-perplexity captures)");
    fprintf(f, "; %zu pass, %zu fail, %zu error\n", r->n_pass, r->n_fail, r->n_error);
}

cJSON *check_json(const check_report *r, const check_opts *o)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "model", lvd_json_str(o->model));
    cJSON_AddStringToObject(root, "artifact", o->artifact);
    cJSON_AddStringToObject(root, "host", o->host);
    cJSON_AddItemToObject(root, "text", lvd_json_str(o->text));
    cJSON *tol = cJSON_AddObjectToObject(root, "tolerances");
    cJSON_AddNumberToObject(tol, "kld_max", o->kld_max);
    cJSON_AddNumberToObject(tol, "ppl_tol", o->ppl_tol);
    cJSON_AddItemToObject(tol, "top_p_min", lvd_json_num_if(o->top_p_min >= 0, o->top_p_min));
    cJSON *arr = cJSON_AddArrayToObject(root, "checks");
    for (size_t i = 0; i < r->n; i++) {
        const check_item *it = &r->items[i];
        const lvd_check *c = &it->check;
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "engine", it->engine);
        cJSON_AddNumberToObject(x, "engine_id", (double)it->engine_id);
        cJSON_AddItemToObject(x, "device", lvd_json_text(c->device));
        cJSON_AddStringToObject(x, "device_name", it->device_name);
        cJSON_AddStringToObject(x, "backend", it->backend);
        cJSON_AddItemToObject(x, "env", engine_visibility_json(c->env));
        cJSON_AddBoolToObject(x, "reference", it->reference);
        cJSON_AddStringToObject(x, "status", c->status);
        cJSON_AddItemToObject(x, "mean_kld", lvd_json_num(c->mean_kld));
        cJSON_AddItemToObject(x, "same_top_p", lvd_json_num(c->same_top_p));
        cJSON_AddItemToObject(x, "ppl", lvd_json_num(c->ppl));
        cJSON_AddItemToObject(x, "ppl_base", lvd_json_num(c->ppl_base));
        cJSON_AddItemToObject(x, "ppl_ratio", lvd_json_num(c->ppl_ratio));
        cJSON_AddItemToObject(x, "reason", lvd_json_str(c->reason));
        if (it->left_out) /* only then: every other item stays as it was */
            cJSON_AddStringToObject(x, "left_out", it->left_out);
        cJSON_AddItemToArray(arr, x);
    }
    cJSON_AddItemToObject(root, "skipped", lvd_json_strings(r->skipped, r->n_skipped));
    cJSON_AddNumberToObject(root, "pass", (double)r->n_pass);
    cJSON_AddNumberToObject(root, "fail", (double)r->n_fail);
    cJSON_AddNumberToObject(root, "error", (double)r->n_error);
    return root;
}

int check_exit(const check_report *r)
{
    if (!r->reference_ok)
        return LVD_EXIT_FAIL;
    return r->n_fail || r->n_error || r->n_skipped ? LVD_EXIT_PARTIAL : LVD_EXIT_OK;
}
