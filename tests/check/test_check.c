/* test_check.c: check/check.h: the pass/fail rule on the real perplexity
 * captures and on synthetic outputs at each bound, the argv, and whole
 * check sessions driving the fake engine's llama-perplexity:
 * the CPU reference recorded as "base", a correct device passing, a device
 * with wrong results failing with the bounds it broke, a build that ignores
 * -ngl failing, a crashing device and a missing llama-perplexity erroring,
 * a GPU engine serving as reference at -ngl 0 -dev none when there is no
 * CPU-only engine, and a failed reference erroring every device; and
 * check_import on the H200 captures (reference, correct devices judged
 * on their PPL ratio, the build that ignored -ngl, the device a check is
 * recorded under, refusals). */
#include "tests/support/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/check.h"
#include "common/cli.h"
#include "engine/probe.h"
#include "store/identify.h"

#define CPU "llama.cpp/cpu-build-b9749/"

static lvd_check judged(const check_ppl *out, const check_opts *o)
{
    lvd_check c;
    memset(&c, 0, sizeof c);
    check_judge(out, 32813.2123, o, &c);
    return c;
}

static check_ppl synthetic(double kld, double ratio, double top_p)
{
    check_ppl p;
    memset(&p, 0, sizeof p);
    p.ppl = p.ppl_err = NAN;
    p.ppl_q = 1000 * ratio;
    p.ppl_base = 1000;
    p.ppl_ratio = ratio;
    p.mean_kld = kld;
    p.same_top_p = top_p;
    p.has_kld = 1;
    return p;
}

static void test_judge(void **state)
{
    (void)state;
    check_opts o;
    check_opts_init(&o);
    assert_true(o.kld_max == 0.01 && o.ppl_tol == 0.01 && o.top_p_min < 0);

    /* the real CPU-vs-CPU capture: KLD 0, ratio 1: pass */
    char *po = tu_fixture(CPU "perplexity-kld.stdout"), *pe = tu_fixture(CPU "perplexity-kld.stderr");
    char *out = tu_read(po, NULL), *errt = tu_read(pe, NULL);
    check_ppl p;
    lvd_err err = {0};
    assert_int_equal(check_ppl_parse(out, errt, "kld", &p, &err), 0);
    lvd_check c = judged(&p, &o);
    assert_string_equal(c.status, "pass");
    assert_null(c.reason);
    assert_true(fabs(c.ppl - 32813.212282) < 1e-6);
    assert_true(fabs(c.ppl_base - 32813.225197) < 1e-6);
    assert_true(c.ppl_ratio == 1.0 && c.mean_kld == 0.0 && c.same_top_p == 100.0);
    check_ppl_free(&p);
    free(out);
    free(errt);
    free(po);
    free(pe);

    /* the plain run has no KL statistics: error, not pass */
    po = tu_fixture(CPU "perplexity.stdout");
    pe = tu_fixture(CPU "perplexity.stderr");
    out = tu_read(po, NULL);
    errt = tu_read(pe, NULL);
    assert_int_equal(check_ppl_parse(out, errt, "plain", &p, &err), 0);
    c = judged(&p, &o);
    assert_string_equal(c.status, "error");
    assert_non_null(strstr(c.reason, "no KL divergence statistics"));
    free(c.reason);
    check_ppl_free(&p);
    free(out);
    free(errt);
    free(po);
    free(pe);

    /* the H200 ratios of correct devices pass; at and beyond each bound */
    p = synthetic(0.0001, 1.0013, 99.5);
    c = judged(&p, &o);
    assert_string_equal(c.status, "pass");
    p = synthetic(0.01, 1.0, 99.5); /* KLD exactly at its bound */
    c = judged(&p, &o);
    assert_string_equal(c.status, "pass");
    p = synthetic(0.0101, 1.0, 99.5);
    c = judged(&p, &o);
    assert_string_equal(c.status, "fail");
    assert_string_equal(c.reason, "mean KLD 0.0101 > 0.01");
    free(c.reason);
    p = synthetic(0.001, 1.0102, 99.5);
    c = judged(&p, &o);
    assert_string_equal(c.reason, "PPL ratio 1.0102 outside 1 +- 0.01");
    free(c.reason);
    p = synthetic(0.5, 1.3, 60);
    c = judged(&p, &o);
    assert_string_equal(c.reason, "mean KLD 0.5 > 0.01; PPL ratio 1.3 outside 1 +- 0.01");
    free(c.reason);
    p = synthetic(NAN, 1.0, 99.5); /* a device that produced NaN logits */
    c = judged(&p, &o);
    assert_string_equal(c.status, "fail");
    assert_non_null(strstr(c.reason, "mean KLD nan is not <="));
    free(c.reason);
    o.top_p_min = 99.0;
    p = synthetic(0.001, 1.0, 98.0);
    c = judged(&p, &o);
    assert_string_equal(c.reason, "same top p 98.000 % < 99.000 %");
    free(c.reason);
    o.top_p_min = -1;
    /* a ratio not printed falls back to PPL / base PPL */
    p = synthetic(0.001, NAN, 99.5);
    p.ppl_q = 32846.0;
    p.ppl_base = NAN;
    c = judged(&p, &o);
    assert_true(fabs(c.ppl_base - 32813.2123) < 1e-9);
    assert_true(fabs(c.ppl_ratio - 32846.0 / 32813.2123) < 1e-12);
    assert_string_equal(c.status, "pass");
    /* the build warned that -ngl is ignored: the device proved nothing */
    p = synthetic(0.0, 1.0, 100.0);
    p.gpu_ignored = 1;
    c = judged(&p, &o);
    assert_string_equal(c.status, "fail");
    assert_non_null(strstr(c.reason, "GPU flags ignored"));
    free(c.reason);
    /* ... also without KL statistics: a failure, not an error */
    p.has_kld = 0;
    c = judged(&p, &o);
    assert_string_equal(c.status, "fail");
    assert_non_null(strstr(c.reason, "GPU flags ignored"));
    free(c.reason);
    /* captures: without KL statistics the PPL ratio alone decides, and says so */
    o.ppl_only = 1;
    p = synthetic(NAN, 1.0006, NAN);
    p.has_kld = 0;
    c = judged(&p, &o);
    assert_string_equal(c.status, "pass");
    assert_true(isnan(c.mean_kld) && isnan(c.same_top_p));
    assert_string_equal(c.reason, "judged on the PPL ratio alone: KLD not measured (no --kl-divergence"
                                  " statistics in the capture)");
    free(c.reason);
    p.ppl_ratio = 1.02;
    c = judged(&p, &o);
    assert_string_equal(c.status, "fail");
    assert_true(lvd_starts_with(c.reason, "PPL ratio 1.02 outside 1 +- 0.01; judged on the PPL ratio alone"));
    free(c.reason);
    o.top_p_min = 99.0; /* no same-top-p figure to hold against the floor */
    p.ppl_ratio = 1.0;
    c = judged(&p, &o);
    assert_string_equal(c.status, "pass");
    free(c.reason);
}

static void test_argv(void **state)
{
    (void)state;
    check_opts o;
    check_opts_init(&o);
    o.model = "m.gguf";
    o.text = "t.txt";
    char **v = check_argv("/e/llama-perplexity", &o, "/tmp/base", 0, NULL);
    lvd_sb sb = {0};
    for (size_t i = 0; v[i]; i++)
        lvd_sb_addf(&sb, "%s%s", i ? " " : "", v[i]);
    assert_string_equal(lvd_sb_str(&sb), "/e/llama-perplexity -m m.gguf -f t.txt -c 128 --chunks 4"
                                         " --kl-divergence-base /tmp/base");
    lvd_strv_free(v);
    lvd_sb_reset(&sb);
    v = check_argv("/e/llama-perplexity", &o, "/tmp/base", 1, "Vulkan1");
    for (size_t i = 0; v[i]; i++)
        lvd_sb_addf(&sb, "%s%s", i ? " " : "", v[i]);
    assert_string_equal(lvd_sb_str(&sb), "/e/llama-perplexity -m m.gguf -f t.txt -c 128 --chunks 4"
                                         " --kl-divergence-base /tmp/base --kl-divergence -ngl 99 -dev Vulkan1");
    lvd_strv_free(v);
    lvd_sb_reset(&sb);
    v = check_argv("/e/llama-perplexity", &o, "/tmp/base", 0, "none");
    for (size_t i = 0; v[i]; i++)
        lvd_sb_addf(&sb, "%s%s", i ? " " : "", v[i]);
    assert_true(lvd_ends_with(lvd_sb_str(&sb), "--kl-divergence-base /tmp/base -ngl 0 -dev none"));
    lvd_strv_free(v);
    lvd_sb_free(&sb);

}

/* --- sessions ----------------------------------------------------------- */

typedef tu_session fx;

/* The shipped text every check scores. */
static const char *text(void)
{
    static char *path; /* one for the whole run */
    if (!path)
        path = tu_source("share/perplexity-input.txt");
    return path;
}

static void check_ok(fx *f, check_report *r)
{
    check_opts o;
    check_opts_init(&o);
    o.model = f->model;
    o.text = text();
    o.artifact = f->art.sha256;
    o.host = "testhost";
    o.timeout_ms = 5000;
    lvd_err err = {0};
    if (check_run(f->s, f->e, f->p, f->n, &o, r, &err))
        fail_msg("%s", err.msg);
}

static const check_item *item(const check_report *r, const char *engine, const char *dev)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->items[i].engine, engine) && !strcmp(r->items[i].check.device, dev))
            return &r->items[i];
    fail_msg("no check of %s %s", engine, dev);
    return NULL;
}

static void test_session(void **state)
{
    fx *f = *state;
    tu_session_engine(f, "cuda", 1, "device = CUDA0|NVIDIA H200|143155|142629|9.0\n"
                                    "dev.CUDA0.kld = 0.0002\ndev.CUDA0.ppl_ratio = 1.0006\n");
    tu_session_engine(f, "vulkan", 1, "device = Vulkan0|NVIDIA H200|143771|143139\n"
                                      "device = Vulkan1|AMD Radeon RX 7900 XTX|24560|24000\n"
                                      "dev.Vulkan1.kld = 0.35\ndev.Vulkan1.ppl_ratio = 1.25\ndev.Vulkan1.same_top_p = 71\n");
    size_t cpu = tu_session_engine(f, "cpu", 1, "ppl = 32813.2123\n");
    tu_session_engine(f, "crashing", 1,
                      "device = CUDA0|NVIDIA H200|143155|142629|9.0\nppl.fault = crash\n");
    tu_session_engine(f, "noppl", 0, "device = CUDA0|NVIDIA H200|143155|142629|9.0\n");
    tu_session_engine(f, "ignores", 1, "device = Vulkan0|NVIDIA H200|143771|143139\nignore_ngl = 1\n");
    check_report r;
    check_ok(f, &r);
    assert_true(r.reference_ok);
    assert_true(r.items[0].reference);
    assert_string_equal(r.items[0].engine, "cpu");
    assert_string_equal(r.items[0].check.status, "base");
    assert_true(fabs(r.items[0].check.ppl - 32813.2123) < 1e-6);
    const check_item *it = item(&r, "cuda", "CUDA0");
    assert_string_equal(it->check.status, "pass");
    assert_true(fabs(it->check.ppl_ratio - 1.0006) < 1e-4);
    assert_true(fabs(it->check.mean_kld - 0.0002) < 1e-9);
    assert_string_equal(item(&r, "vulkan", "Vulkan0")->check.status, "pass");
    it = item(&r, "vulkan", "Vulkan1");
    assert_string_equal(it->check.status, "fail");
    assert_string_equal(it->check.reason, "mean KLD 0.35 > 0.01; PPL ratio 1.25 outside 1 +- 0.01");
    assert_true(fabs(it->check.same_top_p - 71) < 1e-9);
    it = item(&r, "crashing", "CUDA0");
    assert_string_equal(it->check.status, "error");
    assert_non_null(strstr(it->check.reason, "killed by signal 11"));
    it = item(&r, "noppl", "CUDA0");
    assert_string_equal(it->check.status, "error");
    assert_non_null(strstr(it->check.reason, "no executable llama-perplexity"));
    it = item(&r, "ignores", "Vulkan0");
    assert_string_equal(it->check.status, "fail");
    assert_non_null(strstr(it->check.reason, "GPU flags ignored"));
    assert_int_equal(r.n_pass, 2);
    assert_int_equal(r.n_fail, 2);
    assert_int_equal(r.n_error, 2);
    assert_int_equal(check_exit(&r), 5);

    /* everything is in the store, the reference as "base" */
    lvd_check *v;
    size_t n;
    lvd_err err = {0};
    assert_int_equal(store_check_list(f->s, f->art.sha256, &v, &n, &err), 0);
    assert_int_equal(n, r.n);
    store_check_list_free(v, n);
    lvd_check latest;
    assert_int_equal(store_check_latest(f->s, f->art.sha256, "testhost", f->e[cpu].id, "", &latest, &err), 0);
    assert_string_equal(latest.status, "base");
    lvd_check_free(&latest);
    assert_int_equal(store_check_latest(f->s, f->art.sha256, "testhost", f->e[1].id, "Vulkan1", &latest, &err), 0);
    assert_string_equal(latest.status, "fail");
    assert_non_null(strstr(latest.reason, "mean KLD 0.35"));
    lvd_check_free(&latest);
    check_report_free(&r);
}

/* No CPU-only engine: a GPU engine computes the reference at -ngl 0 -dev
 * none, and its devices are then checked against it. */
static void test_gpu_reference(void **state)
{
    fx *f = *state;
    size_t g = tu_session_engine(f, "cuda", 1, "device = CUDA0|NVIDIA H200|143155|142629|9.0\n");
    check_report r;
    check_ok(f, &r);
    assert_true(r.reference_ok);
    assert_int_equal(r.n, 2);
    assert_string_equal(r.items[0].check.status, "base");
    assert_non_null(strstr(r.items[0].check.reason, "-ngl 0 -dev none"));
    assert_string_equal(r.items[1].check.status, "pass");
    char *log = lvd_xasprintf("%s/calls.log", f->e[g].dir);
    char *calls = tu_read(log, NULL);
    assert_non_null(strstr(calls, "--kl-divergence-base"));
    assert_non_null(strstr(calls, "-ngl 0 -dev none"));
    assert_non_null(strstr(calls, "--kl-divergence -ngl 99 -dev CUDA0"));
    free(calls);
    free(log);
    check_report_free(&r);
}

/* The reference fails: it is recorded as an error, every device too. */
static void test_reference_fails(void **state)
{
    fx *f = *state;
    tu_session_engine(f, "cpu", 1, "ppl.fault = exit1\n");
    tu_session_engine(f, "cuda", 1, "device = CUDA0|NVIDIA H200|143155|142629|9.0\n");
    check_report r;
    check_ok(f, &r);
    assert_false(r.reference_ok);
    assert_string_equal(r.items[0].check.status, "error");
    assert_non_null(strstr(r.items[0].check.reason, "exit 1"));
    assert_string_equal(r.items[1].check.status, "error");
    assert_non_null(strstr(r.items[1].check.reason, "not checked: the CPU reference failed"));
    assert_int_equal(check_exit(&r), 1);
    check_report_free(&r);

    /* no engine with llama-perplexity at all: an error, nothing run */
    tu_session_teardown(state);
    tu_session_setup(state);
    f = *state;
    tu_session_engine(f, "noppl", 0, "device = CUDA0|NVIDIA H200|143155|142629|9.0\n");
    check_opts o;
    check_opts_init(&o);
    o.model = f->model;
    o.text = text();
    o.artifact = f->art.sha256;
    o.host = "h";
    lvd_err err = {0};
    assert_int_equal(check_run(f->s, f->e, f->p, f->n, &o, &r, &err), -1);
    assert_non_null(strstr(err.msg, "llama-perplexity"));
    check_report_free(&r);
}

/* --- captured output ----------------------------------------------------- */

#define H200 "llama.cpp/gpu-h200/"

/* An engine known from imported results only: registered, never probed. */
static size_t imported_engine(fx *f, const char *name)
{
    size_t i = f->n++;
    lvd_engine *e = &f->e[i];
    memset(e, 0, sizeof *e);
    e->name = lvd_xstrdup(name);
    e->dir = lvd_xasprintf("/elsewhere/%s", name);
    e->build = lvd_xstrdup("b9749");
    e->origin = lvd_xstrdup("imported");
    lvd_err err = {0};
    if (store_engine_put(f->s, e, &err))
        fail_msg("%s", err.msg);
    return i;
}

/* check_import of engine's capture REL.out/.err (H200-relative), against
 * base (NULL: as the reference); returns its exit code, *c the one check. */
static int import_capture(fx *f, const char *engine, const char *rel, const char *base, const char *device,
                          lvd_check *c, lvd_err *err)
{
    char *po = lvd_xasprintf("%s%s.out", H200, rel), *pe = lvd_xasprintf("%s%s.err", H200, rel);
    char *out = tu_fixture(po), *log = tu_fixture(pe);
    char *bo = NULL, *be = NULL;
    if (base) {
        char *a = lvd_xasprintf("%s%s.out", H200, base), *b = lvd_xasprintf("%s%s.err", H200, base);
        bo = tu_fixture(a);
        be = tu_fixture(b);
        free(a);
        free(b);
    }
    check_import_opts o;
    check_import_opts_init(&o);
    o.artifact = f->art.sha256;
    o.engine = engine;
    o.device = device;
    o.host = "h200";
    o.output = out;
    o.log = log;
    o.base_output = bo;
    o.base_log = be;
    check_report r;
    int code = -1;
    if (check_import(f->s, &o, &r, &code, err) == 0) {
        assert_int_equal(r.n, 1);
        assert_true(r.reference_ok);
        *c = r.items[0].check;
        c->host = lvd_xstrdup(c->host);
        c->reason = c->reason ? lvd_xstrdup(c->reason) : NULL;
        code = check_exit(&r);
    }
    check_report_free(&r);
    free(po);
    free(pe);
    free(out);
    free(log);
    free(bo);
    free(be);
    return code;
}

static void test_import_h200(void **state)
{
    fx *f = *state;
    imported_engine(f, "cpu");
    imported_engine(f, "cuda");
    imported_engine(f, "vulkan");
    imported_engine(f, "nodriver");
    lvd_err err = {0};
    lvd_check c;
    /* the CPU build's run is the reference, whatever its log warns about -ngl */
    assert_int_equal(import_capture(f, "cpu", "ppl-cpu", NULL, NULL, &c, &err), LVD_EXIT_OK);
    assert_string_equal(c.status, "base");
    assert_string_equal(c.device, "");
    assert_true(c.ppl == 51588.7878 && c.ppl_base == 51588.7878 && c.ppl_ratio == 1.0);
    lvd_check_free(&c);
    /* correct devices: ratios 1.0006 and 1.0013, no KL statistics captured */
    assert_int_equal(import_capture(f, "cuda", "ppl-cuda", "ppl-cpu", NULL, &c, &err), LVD_EXIT_OK);
    assert_string_equal(c.status, "pass");
    assert_string_equal(c.device, "auto"); /* never probed: its default device */
    assert_true(fabs(c.ppl_ratio - 51619.5225 / 51588.7878) < 1e-12);
    assert_true(isnan(c.mean_kld));
    assert_non_null(strstr(c.reason, "KLD not measured"));
    lvd_check_free(&c);
    assert_int_equal(import_capture(f, "vulkan", "ppl-vulkan", "ppl-cpu", NULL, &c, &err), LVD_EXIT_OK);
    assert_string_equal(c.status, "pass");
    assert_true(fabs(c.ppl_ratio - 1.0013) < 5e-5);
    lvd_check_free(&c);
    /* the Vulkan build without a driver: the CPU's perplexity to the last
     * digit, but it warned that -ngl is ignored */
    assert_int_equal(import_capture(f, "nodriver", "vulkan-build-no-driver/ppl", "ppl-cpu", NULL, &c, &err),
                     LVD_EXIT_PARTIAL);
    assert_string_equal(c.status, "fail");
    assert_true(c.ppl_ratio == 1.0);
    assert_non_null(strstr(c.reason, "GPU flags ignored"));
    lvd_check_free(&c);
    /* recorded: what verdicts read */
    assert_int_equal(store_check_latest(f->s, f->art.sha256, "h200", f->e[1].id, "auto", &c, &err), 0);
    assert_string_equal(c.status, "pass");
    lvd_check_free(&c);
    assert_int_equal(store_check_latest(f->s, f->art.sha256, "h200", f->e[0].id, "", &c, &err), 0);
    assert_string_equal(c.status, "base");
    lvd_check_free(&c);
    /* a selector given for an engine no probe describes is taken as given */
    assert_int_equal(import_capture(f, "cuda", "ppl-cuda", "ppl-cpu", "CUDA0", &c, &err), LVD_EXIT_OK);
    assert_string_equal(c.device, "CUDA0");
    lvd_check_free(&c);
}

static void test_import_probed_and_refused(void **state)
{
    fx *f = *state;
    tu_session_engine(f, "cuda", 1, "device = CUDA0|NVIDIA H200|143155|142629\n");
    imported_engine(f, "cpu");
    lvd_err err = {0};
    lvd_check c;
    /* a probed engine: its first device, and only the devices it lists */
    assert_int_equal(import_capture(f, "cuda", "ppl-cuda", "ppl-cpu", NULL, &c, &err), LVD_EXIT_OK);
    assert_string_equal(c.device, "CUDA0");
    lvd_check_free(&c);
    assert_int_equal(import_capture(f, "cuda", "ppl-cuda", "ppl-cpu", "Vulkan0", &c, &err), LVD_EXIT_USAGE);
    assert_non_null(strstr(err.msg, "engine cuda's probe lists no device Vulkan0"));
    assert_int_equal(import_capture(f, "nope", "ppl-cuda", "ppl-cpu", NULL, &c, &err), LVD_EXIT_USAGE);
    assert_non_null(strstr(err.msg, "no engine named 'nope'"));
    assert_int_equal(import_capture(f, "cpu", "ppl-cpu", NULL, "CUDA0", &c, &err), LVD_EXIT_USAGE);
    assert_non_null(strstr(err.msg, "the CPU reference has no device"));

    /* files: a reference that was a comparison, runs of different lengths, garbage */
    char *kld_out = tu_fixture(CPU "perplexity-kld.stdout"), *kld_err = tu_fixture(CPU "perplexity-kld.stderr");
    char *two = lvd_xasprintf("%s/two.out", f->tmp), *junk = lvd_xasprintf("%s/junk.out", f->tmp);
    tu_write_str(two, "[1]56026.8961,[2]52276.4709,\n");
    tu_write_str(junk, "Segmentation fault\n");
    char *cuda_out = tu_fixture(H200 "ppl-cuda.out"), *cpu_out = tu_fixture(H200 "ppl-cpu.out");
    struct {
        const char *output, *base, *needle;
    } bad[] = {
        {cuda_out, kld_out, "has KL divergence statistics: it compared against a reference"},
        {kld_out, NULL, "has KL divergence statistics: a comparison run"},
        {two, cpu_out, "scored 4 chunks"},
        {junk, cpu_out, "junk.out"},
        {cuda_out, junk, "junk.out"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(bad); i++) {
        check_import_opts o;
        check_import_opts_init(&o);
        o.artifact = f->art.sha256;
        o.engine = "cpu";
        o.output = bad[i].output;
        o.log = bad[i].output == kld_out ? kld_err : NULL;
        o.base_output = bad[i].base;
        check_report r;
        int code = 0;
        err.msg[0] = '\0';
        assert_int_equal(check_import(f->s, &o, &r, &code, &err), -1);
        if (code != LVD_EXIT_INPUT || !strstr(err.msg, bad[i].needle))
            fail_msg("case %zu: exit %d, '%s'", i, code, err.msg);
        assert_int_equal(r.n, 0);
    }
    /* an artifact the store does not know */
    check_import_opts o;
    check_import_opts_init(&o);
    o.artifact = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    o.engine = "cpu";
    o.output = cpu_out;
    check_report r;
    int code = 0;
    assert_int_equal(check_import(f->s, &o, &r, &code, &err), -1);
    assert_int_equal(code, LVD_EXIT_USAGE);
    assert_non_null(strstr(err.msg, "no artifact e3b0c442"));
    lvd_check *all;
    size_t n;
    assert_int_equal(store_check_list(f->s, f->art.sha256, &all, &n, &err), 0);
    assert_int_equal(n, 1); /* only the first import above was recorded */
    store_check_list_free(all, n);
    free(kld_out);
    free(kld_err);
    free(two);
    free(junk);
    free(cuda_out);
    free(cpu_out);
}

int main(void)
{
    if (!getenv("LVD_FAKE_ENGINE")) {
        fprintf(stderr, "test_check: LVD_FAKE_ENGINE is not set\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_judge),
        cmocka_unit_test(test_argv),
        cmocka_unit_test_setup_teardown(test_session, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_gpu_reference, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_reference_fails, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_import_h200, tu_session_setup, tu_session_teardown),
        cmocka_unit_test_setup_teardown(test_import_probed_and_refused, tu_session_setup, tu_session_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
