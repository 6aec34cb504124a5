/* test_select.c: lvd-select's library: the operator profile (parsing and its
 * errors), the verdict (who may win, the rules, hysteresis on a tie, the
 * fingerprint), and the selection order (each rule; the stale verdict; the
 * failed check; a selector the probe does not show; no engine), placement
 * rungs through select with a given free memory, and which launch flags an
 * engine gets; the pipeline's steps on their own: what gather reads (one
 * check when the verdict holds) and decide over facts alone, no store.
 * Engines are directories with stand-in binaries that are never
 * run (select spawns nothing); their probes, runs and checks are written
 * into a fresh store the way lvd probe, lvd bench and lvd check record them. */
#include "benchio/arm.h"
#include "common/cli.h"
#include "select/choice.h"
#include "select/decide.h"
#include "select/engines.h"
#include "select/gather.h"
#include "select/profile.h"
#include "select/select.h"
#include "select/verdict.h"
#include "store/identify.h"
#include "tests/support/testutil.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define HOST "testhost"

typedef struct fx {
    char *dir;
    char *db;
    store *s;
    char *model;           /* small-llama-q8_0.gguf (the fixture, read-only) */
    store_artifact a;
    int64_t started;       /* run clock */
} fx;

/* --- fixture ------------------------------------------------------------ */

static int setup(void **state)
{
    fx *f = lvd_xcalloc(1, sizeof *f);
    lvd_err err = {{0}};
    f->dir = tu_tmpdir();
    f->db = tu_store_spec(f->dir);
    f->s = tu_store_at(f->db);
    f->model = tu_model("small-llama-q8_0.gguf");
    if (store_identify(f->s, f->model, 0, &f->a, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    f->started = 1000;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    store_artifact_free(&f->a);
    store_close(f->s);
    tu_tmpdir_free(f->dir);
    free(f->db);
    free(f->model);
    free(f);
    return 0;
}

static lvd_device dev(const char *sel, const char *name, int64_t free_mib, const char *cc)
{
    lvd_device d = {.total_mib = free_mib + 300, .free_mib = free_mib};
    snprintf(d.selector, sizeof d.selector, "%s", sel);
    snprintf(d.name, sizeof d.name, "%s", name);
    char *b = d.backend;
    for (const char *p = sel; *p && (*p < '0' || *p > '9'); p++)
        *b++ = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    snprintf(d.compute_cap, sizeof d.compute_cap, "%s", cc ? cc : "");
    return d;
}

#define GTX1060 "NVIDIA GeForce GTX 1060 6GB"
#define H200 "NVIDIA H200"

static void write_exe(const char *path, const char *body)
{
    tu_write_str(path, body);
    assert_int_equal(chmod(path, 0755), 0);
}

/* An engine directory with stand-in llama-bench / llama-server (never run),
 * registered, and probed with devs (n 0: a CPU build; backend "unknown"
 * when unknown is set). Returns its id. */
static int64_t engine_ex(fx *f, const char *name, const lvd_device *devs, size_t n, int unknown,
                         int with_server)
{
    lvd_err err = {{0}};
    char *dir = lvd_xasprintf("%s/%s", f->dir, name);
    assert_int_equal(lvd_mkdir_p(dir, &err), 0);
    char *bench = lvd_xasprintf("%s/llama-bench", dir);
    char *server = lvd_xasprintf("%s/llama-server", dir);
    char *body = lvd_xasprintf("#!/bin/sh\n# stand-in for %s\nexit 0\n", name);
    write_exe(bench, body);
    if (with_server)
        write_exe(server, body);
    lvd_engine e = {.name = (char *)name, .dir = dir, .build = "b9749", .origin = "registered"};
    if (store_engine_put(f->s, &e, &err))
        fail_msg("%s", err.msg);
    int64_t mtime, size;
    assert_int_equal(sel_stat_file(bench, &mtime, &size), 0);
    lvd_probe p = {.engine_id = e.id, .binary = bench, .bin_mtime_ns = mtime, .bin_size = size,
                   .probed_at = lvd_now(), .devices = (lvd_device *)devs, .n_devices = n};
    snprintf(p.backend, sizeof p.backend, "%s",
             unknown ? LVD_BACKEND_UNKNOWN : n ? devs[0].backend : LVD_BACKEND_CPU);
    if (unknown)
        p.reason = "timed out after 30 s";
    if (store_probe_put(f->s, &p, &err))
        fail_msg("%s", err.msg);
    free(dir);
    free(bench);
    free(server);
    free(body);
    return e.id;
}

static int64_t engine(fx *f, const char *name, const lvd_device *devs, size_t n)
{
    return engine_ex(f, name, devs, n, 0, 1);
}

static void fill_result(lvd_result *r, const char *test, int n_prompt, int n_gen,
                        const double *ts, size_t n)
{
    memset(r, 0, sizeof *r);
    snprintf(r->test, sizeof r->test, "%s", test);
    r->n_prompt = n_prompt;
    r->n_gen = n_gen;
    r->n = n;
    r->ns = lvd_xcalloc(n ? n : 1, sizeof *r->ns);
    r->ts = lvd_xcalloc(n ? n : 1, sizeof *r->ts);
    r->warmup = lvd_xcalloc(n ? n : 1, 1);
    for (size_t i = 0; i < n; i++) {
        r->ts[i] = ts[i];
        r->ns[i] = (int64_t)(1e9 * 128 / ts[i]);
    }
}

/* Ten samples around center with a fixed +-0.5 % pattern. */
static void samples(double center, double *out)
{
    static const double pattern[10] = {-0.5, 0.2, -0.1, 0.4, 0.0, -0.3, 0.1, 0.3, -0.2, -0.4};
    for (size_t i = 0; i < 10; i++)
        out[i] = center * (1.0 + pattern[i] / 100.0);
}

/* One run of engine eid with parameters p in session: tg128 around tg and
 * pp512 around pp (plus a leading warm-up sample that must not count), with
 * status. */
static void run_p(fx *f, int64_t eid, const lvd_params *p, const char *session, double tg, double pp,
                  const char *status)
{
    lvd_err err = {{0}};
    lvd_engine e;
    assert_int_equal(store_engine_get(f->s, eid, &e, &err), 0);
    lvd_run r = {0};
    memcpy(r.artifact, f->a.sha256, sizeof r.artifact);
    r.engine_id = eid;
    r.binary = lvd_xasprintf("%s/llama-bench", e.dir);
    r.build = lvd_xstrdup("b9749");
    r.host = lvd_xstrdup(HOST);
    r.session = lvd_xstrdup(session);
    r.params = *p;
    char key[320];
    assert_int_equal(benchio_arm_key(&r.params, key, sizeof key), 0);
    r.arm_key = lvd_xstrdup(key);
    snprintf(r.status, sizeof r.status, "%s", status);
    r.started_at = f->started++;
    snprintf(r.source, sizeof r.source, "bench");
    if (strcmp(status, "failed") != 0) {
        double t[11], p[11];
        samples(tg, t + 1);
        samples(pp, p + 1);
        t[0] = tg * 0.3; /* warm-up: flagged, never scored */
        p[0] = pp * 0.3;
        r.n_results = 2;
        r.results = lvd_xcalloc(2, sizeof *r.results);
        fill_result(&r.results[0], "pp512", 512, 0, p, 11);
        fill_result(&r.results[1], "tg128", 0, 128, t, 11);
        r.results[0].warmup[0] = r.results[1].warmup[0] = 1;
    } else {
        r.reason = lvd_xstrdup("crashed: SIGSEGV");
        r.exit_code = -1;
    }
    if (store_run_put(f->s, &r, &err))
        fail_msg("%s", err.msg);
    lvd_run_free(&r);
    lvd_engine_free(&e);
}

/* run_p on device sel ("" = CPU: no GPU flag) with -ngl 99 -fa fa. */
static void run_ex(fx *f, int64_t eid, const char *sel, const char *session, double tg, double pp,
                   const char *status, int fa)
{
    lvd_params p;
    lvd_params_init(&p);
    snprintf(p.device, sizeof p.device, "%s", sel);
    if (*sel) {
        p.ngl = 99;
        p.fa = fa;
    }
    run_p(f, eid, &p, session, tg, pp, status);
}

static void run(fx *f, int64_t eid, const char *sel, const char *session, double tg, double pp)
{
    run_ex(f, eid, sel, session, tg, pp, "ok", 1);
}

static void check(fx *f, int64_t eid, const char *sel, const char *status)
{
    lvd_err err = {{0}};
    lvd_check c = {.engine_id = eid, .host = HOST, .ran_at = f->started++, .mean_kld = NAN,
                   .same_top_p = NAN, .ppl = NAN, .ppl_base = NAN, .ppl_ratio = NAN};
    memcpy(c.artifact, f->a.sha256, sizeof c.artifact);
    snprintf(c.device, sizeof c.device, "%s", sel);
    snprintf(c.status, sizeof c.status, "%s", status);
    if (strcmp(status, "pass"))
        c.reason = "mean KLD 0.41 > 0.05";
    if (store_check_put(f->s, &c, &err))
        fail_msg("%s", err.msg);
}

static int record(fx *f, const char *objective, lvd_verdict *v)
{
    sel_verdict_opts o;
    sel_verdict_opts_init(&o);
    o.host = HOST;
    lvd_err err = {{0}};
    if (objective)
        assert_int_equal(stats_objective_parse(objective, &o.objective, &err), 0);
    int rc = sel_verdict_record(f->s, f->a.sha256, &o, v, &err);
    if (rc < 0)
        fail_msg("%s", err.msg);
    return rc;
}

static sel_request request(const fx *f)
{
    sel_request rq;
    sel_request_init(&rq);
    rq.model = f->model;
    rq.host = HOST;
    return rq;
}

/* Runs the selection; expects success and returns the result. */
static sel_result choose(fx *f, const sel_request *rq)
{
    sel_result r;
    int code;
    lvd_err err = {{0}};
    if (sel_select(f->s, &f->a, rq, &r, &code, &err) != 0)
        fail_msg("select failed (%d): %s", code, err.msg);
    assert_int_equal(code, LVD_EXIT_OK);
    return r;
}

static int explains(const sel_result *r, const char *needle)
{
    for (size_t i = 0; i < r->n_explain; i++)
        if (strstr(r->explain[i], needle))
            return 1;
    return 0;
}

static void assert_explains(const sel_result *r, const char *needle)
{
    if (explains(r, needle))
        return;
    for (size_t i = 0; i < r->n_explain; i++)
        fprintf(stderr, "  explain: %s\n", r->explain[i]);
    fail_msg("no explain line holds '%s'", needle);
}

/* The value after flag in the launch argv, or NULL when the flag is absent. */
static const char *flag(const sel_result *r, const char *name)
{
    for (size_t i = 1; i + 1 < r->launch.argc; i++)
        if (strcmp(r->launch.argv[i], name) == 0)
            return r->launch.argv[i + 1];
    return NULL;
}

static void profile_of(const char *text, sel_profile *p)
{
    lvd_err err = {{0}};
    if (sel_profile_parse(text, strlen(text), "test.profile", p, &err) != 0)
        fail_msg("%s", err.msg);
}

/* The usual box: a CPU build, a CUDA build and a Vulkan build on one GTX 1060. */
typedef struct box {
    int64_t cpu, cuda, vk;
} box;

static box pascal_box(fx *f)
{
    lvd_device c = dev("CUDA0", GTX1060, 5800, "6.1"), v = dev("Vulkan0", GTX1060, 5900, NULL);
    box b = {.cpu = engine(f, "cpu", NULL, 0), .cuda = engine(f, "cuda", &c, 1),
             .vk = engine(f, "vk", &v, 1)};
    return b;
}

/* The Pascal box with CUDA0 and Vulkan0 benched in session n1 at these tg
 * and pp speeds, both checked. */
static box benched_box(fx *f, double cuda_tg, double cuda_pp, double vk_tg, double vk_pp)
{
    box b = pascal_box(f);
    run(f, b.cuda, "CUDA0", "n1", cuda_tg, cuda_pp);
    run(f, b.vk, "Vulkan0", "n1", vk_tg, vk_pp);
    check(f, b.cuda, "CUDA0", "pass");
    check(f, b.vk, "Vulkan0", "pass");
    return b;
}

/* benched_box with CUDA faster, and its verdict recorded (CUDA0 wins). */
static box verdict_box(fx *f)
{
    box b = benched_box(f, 900, 5000, 600, 4000);
    lvd_verdict v;
    assert_int_equal(record(f, NULL, &v), 0);
    assert_int_equal(v.engine_id, b.cuda);
    lvd_verdict_free(&v);
    return b;
}

/* --- profile ------------------------------------------------------------ */

static void test_profile_parse(void **state)
{
    (void)state;
    sel_profile p;
    profile_of("# chat\nbackend = Vulkan\ndevice = Vulkan0\nctx = 8192\nfa = on\nctk = q8_0\n"
               "ctv = q8_0\nngl = 99\nn-cpu-moe = 0\nub = 256\nthreads = 8\n"
               "env.GGML_VK_PREFER_HOST_MEMORY = 1\nenv.A_B = x=y\nenv.A_B = z\n",
               &p);
    assert_string_equal(p.backend, "vulkan");
    assert_string_equal(p.device, "Vulkan0");
    assert_int_equal(p.line_device, 3);
    assert_null(p.engine);
    assert_int_equal(p.ctx, 8192);
    assert_int_equal(p.fa, 1);
    assert_string_equal(p.type_k, "q8_0");
    assert_int_equal(p.ngl, 99);
    assert_int_equal(p.n_cpu_moe, 0);
    assert_int_equal(p.ubatch, 256);
    assert_int_equal(p.threads, 8);
    assert_string_equal(p.env, "GGML_VK_PREFER_HOST_MEMORY=1 A_B=z");
    assert_true(sel_profile_decides(&p));
    lvd_params params;
    lvd_params_init(&params);
    params.fa = 0;
    sel_profile_apply(&p, &params);
    assert_int_equal(params.fa, 1);
    assert_int_equal(params.ubatch, 256);
    assert_int_equal(params.n_cpu_moe, 0);
    assert_string_equal(params.type_v, "q8_0");
    assert_string_equal(params.device, ""); /* resolved against the probe, not copied */
    sel_profile_free(&p);

    profile_of("ctx = 0\nfa = auto\n", &p);
    assert_false(sel_profile_decides(&p));
    assert_int_equal(p.ngl, -1);
    lvd_params_init(&params);
    params.fa = 1;
    sel_profile_apply(&p, &params);
    assert_int_equal(params.fa, -1); /* auto: -fa not passed */
    assert_int_equal(params.ngl, -1);
    sel_profile_free(&p);

    /* fa takes every spelling of lvd_parse_onoff (common/util.h) */
    static const struct { const char *word; int fa; } words[] = {
        {"1", 1}, {"0", 0}, {"off", 0}, {"yes", 1}, {"no", 0}, {"true", 1}, {"false", 0},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(words); i++) {
        char text[32];
        snprintf(text, sizeof text, "fa = %s\n", words[i].word);
        profile_of(text, &p);
        assert_int_equal(p.fa, words[i].fa);
        sel_profile_free(&p);
    }
}

static void test_profile_errors(void **state)
{
    (void)state;
    static const struct { const char *text, *want; } cases[] = {
        {"backend = cuda\nspeed = fast\n", "test.profile:2: unknown key 'speed'"},
        {"fa = maybe\n", "test.profile:1: fa = 'maybe'"},
        {"\nctk = q9_9\n", "test.profile:2: ctk = 'q9_9'"},
        {"ctx = -1\n", "test.profile:1: ctx = '-1'"},
        {"ctx = 4k\n", "test.profile:1: ctx = '4k'"},
        {"ub = 0\n", "test.profile:1: ub = '0'"},
        {"threads = 99999\n", "test.profile:1: threads"},
        {"device = CUDA0,CUDA1\n", "test.profile:1: device = 'CUDA0,CUDA1'"},
        {"device =\n", "test.profile:1: device"},
        {"backend = cu-da\n", "test.profile:1: backend = 'cu-da'"},
        {"env.1X = 1\n", "test.profile:1: env.1X"},
        {"env.X = a b\n", "test.profile:1: env.X = 'a b'"},
        {"engine =\n", "test.profile:1: engine"},
        {"backend cuda\n", "test.profile:1: expected 'key = value'"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(cases); i++) {
        sel_profile p;
        lvd_err err = {{0}};
        assert_int_equal(sel_profile_parse(cases[i].text, strlen(cases[i].text), "test.profile",
                                           &p, &err), -1);
        if (!strstr(err.msg, cases[i].want))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].want);
    }
    /* too much environment */
    lvd_sb sb = {0};
    for (int i = 0; i < 40; i++)
        lvd_sb_addf(&sb, "env.VARIABLE_%02d = 0123456789\n", i);
    sel_profile p;
    lvd_err err = {{0}};
    assert_int_equal(sel_profile_parse(sb.buf, sb.len, "big", &p, &err), -1);
    assert_non_null(strstr(err.msg, "exceed"));
    lvd_sb_free(&sb);
    assert_int_equal(sel_profile_load("/nonexistent/x.profile", &p, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent/x.profile"));
}

/* --- rule 1 ------------------------------------------------------------- */

/* The profile wins over a recorded verdict; its flags reach the launch. */
static void test_rule1_profile_wins(void **state)
{
    fx *f = *state;
    box b = verdict_box(f);

    sel_profile p;
    profile_of("backend = vulkan\nfa = off\nctk = q8_0\nthreads = 6\nctx = 2048\n"
               "env.GGML_VK_PREFER_HOST_MEMORY = 1\n", &p);
    sel_request rq = request(f);
    rq.profile = &p;
    sel_result r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_PROFILE);
    assert_int_equal(r.engine.id, b.vk);
    assert_string_equal(r.device.selector, "Vulkan0");
    assert_string_equal(flag(&r, "--device"), "Vulkan0");
    assert_string_equal(flag(&r, "-fa"), "off");
    assert_string_equal(flag(&r, "-ctk"), "q8_0");
    assert_string_equal(flag(&r, "-t"), "6");
    assert_string_equal(flag(&r, "-c"), "2048");
    assert_int_equal(r.n_explain > 0, 1);
    assert_explains(&r, "rule 1 (profile): decided");
    assert_int_equal(r.launch.n_env, 1);
    assert_string_equal(r.launch.env[0], "GGML_VK_PREFER_HOST_MEMORY=1");
    char *want = lvd_xasprintf("%s/vk/llama-server", f->dir);
    assert_string_equal(r.launch.argv[0], want);
    free(want);
    sel_result_free(&r);
    sel_profile_free(&p);

    /* engine = NAME with a device of its probe; a failed check is warned, not overruled */
    check(f, b.cuda, "CUDA0", "fail");
    profile_of("engine = cuda\ndevice = CUDA0\n", &p);
    r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_PROFILE);
    assert_int_equal(r.engine.id, b.cuda);
    assert_explains(&r, "warning: cuda CUDA0's correctness check for this model says fail");
    sel_result_free(&r);
    sel_profile_free(&p);
}

/* A selector the engine's probe does not show, an unknown engine, a backend
 * nobody has: errors naming the profile line, never a guess. */
static void test_rule1_profile_errors(void **state)
{
    fx *f = *state;
    pascal_box(f);
    lvd_device llvm = dev("Vulkan0", "llvmpipe (LLVM 15.0.6, 256 bits)", 64000, NULL);
    engine_ex(f, "stale", &llvm, 1, 1, 1);
    static const struct { const char *text, *want; } cases[] = {
        {"engine = vk\ndevice = Vulkan1\n",
         "test.profile:2: engine vk's probe shows no device Vulkan1 (it shows: Vulkan0)"},
        {"backend = cuda\n\ndevice = Vulkan0\n",
         "test.profile:3: no usable engine's probe shows a device Vulkan0 under backend cuda"},
        {"device = CUDA1\n", "test.profile:1: no usable engine's probe shows a device CUDA1"},
        {"backend = rocm\n", "test.profile:1: no usable engine's probe shows a rocm device"},
        {"engine = cpu\nbackend = cuda\n", "test.profile:2: engine cpu's probe shows no cuda device (it shows: no devices)"},
        {"engine = nope\n", "test.profile:1: engine 'nope' is not registered"},
        {"engine = stale\n", "test.profile:1: engine stale cannot serve: its last probe could not ask it"},
        {"backend = cpu\ndevice = CUDA0\n", "test.profile:2: device CUDA0 with backend = cpu"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(cases); i++) {
        sel_profile p;
        profile_of(cases[i].text, &p);
        sel_request rq = request(f);
        rq.profile = &p;
        sel_result r;
        int code;
        lvd_err err = {{0}};
        assert_int_equal(sel_select(f->s, &f->a, &rq, &r, &code, &err), -1);
        assert_int_equal(code, LVD_EXIT_INPUT);
        if (!strstr(err.msg, cases[i].want))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].want);
        assert_null(r.explain);
        sel_profile_free(&p);
    }
}

/* backend = cpu: the CPU build, with no GPU flag; a GPU engine named for
 * the CPU gets -ngl 0 and no --device. A flags-only profile decides
 * nothing but its flags apply. */
static void test_rule1_cpu_and_flags_only(void **state)
{
    fx *f = *state;
    box b = pascal_box(f);
    sel_profile p;
    profile_of("backend = cpu\nngl = 40\n", &p);
    sel_request rq = request(f);
    rq.profile = &p;
    sel_result r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_PROFILE);
    assert_int_equal(r.engine.id, b.cpu);
    assert_string_equal(r.backend, "cpu");
    assert_null(flag(&r, "-ngl")); /* a CPU-only build ignores it silently: never shown */
    assert_null(flag(&r, "--device"));
    assert_false(r.placed);
    sel_result_free(&r);
    sel_profile_free(&p);

    profile_of("engine = cuda\nbackend = cpu\n", &p);
    r = choose(f, &rq);
    assert_int_equal(r.engine.id, b.cuda);
    assert_string_equal(flag(&r, "-ngl"), "0");
    assert_null(flag(&r, "--device"));
    sel_result_free(&r);
    sel_profile_free(&p);

    profile_of("ctx = 1024\nfa = on\n", &p);
    r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_HEURISTIC);
    assert_explains(&r, "test.profile names no engine, backend or device");
    assert_string_equal(flag(&r, "-c"), "1024");
    assert_string_equal(flag(&r, "-fa"), "on");
    sel_result_free(&r);
    sel_profile_free(&p);
}

/* --- rule 2 ------------------------------------------------------------- */

/* A verdict wins over the heuristic: on the GTX 1060 the heuristic says
 * Vulkan, the measurement says CUDA. */
static void test_rule2_verdict(void **state)
{
    fx *f = *state;
    box b = pascal_box(f);
    run(f, b.cpu, "", "n1", 50, 400);
    run(f, b.cuda, "CUDA0", "n1", 900, 5000);
    run(f, b.vk, "Vulkan0", "n1", 600, 4000);
    check(f, b.cuda, "CUDA0", "pass");
    check(f, b.vk, "Vulkan0", "pass");
    lvd_verdict v;
    assert_int_equal(record(f, NULL, &v), 0);
    assert_true(v.id > 0);
    assert_string_equal(v.rule, "win");
    assert_string_equal(v.objective, "tg");
    assert_int_equal(v.engine_id, b.cuda);
    assert_string_equal(v.params.device, "CUDA0");
    assert_non_null(strstr(v.explain, "win: cuda · CUDA0, ngl 99, fa 1"));
    assert_null(strstr(v.explain, "dev=")); /* the readable words, never the arm key */
    assert_non_null(strstr(v.explain, "median 899.55 t/s on tg128 over 10 kept samples"));
    cJSON *stats = cJSON_Parse(v.stats_json);
    assert_non_null(stats);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(stats, "state")), "win");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(stats, "tests"), "tg")),
                        "tg128");
    cJSON *arm0 = cJSON_GetArrayItem(cJSON_GetObjectItem(stats, "arms"), 0);
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(arm0, "n")), 10); /* warm-up dropped */
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(arm0, "winner")));
    cJSON_Delete(stats);
    cJSON *fp = cJSON_Parse(v.fingerprint);
    assert_int_equal(cJSON_GetArraySize(fp), 3);
    cJSON *files = cJSON_GetObjectItem(cJSON_GetArrayItem(fp, 1), "files");
    assert_int_equal(cJSON_GetArraySize(files), 2); /* llama-bench and llama-server */
    cJSON_Delete(fp);
    lvd_verdict_free(&v);

    sel_request rq = request(f);
    sel_result r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_VERDICT);
    assert_int_equal(r.engine.id, b.cuda);
    assert_string_equal(flag(&r, "--device"), "CUDA0");
    assert_string_equal(flag(&r, "-fa"), "on");
    assert_true(r.verdict_id > 0);
    assert_explains(&r, "rule 1 (profile): no profile");
    assert_explains(&r, "rule 2 (verdict): decided");
    assert_false(explains(&r, "rule 3"));
    sel_result_free(&r);

    /* another objective has no verdict: the heuristic decides (Pascal -> Vulkan) */
    assert_int_equal(stats_objective_parse("pp", &rq.objective, NULL), 0);
    r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_HEURISTIC);
    assert_int_equal(r.engine.id, b.vk);
    assert_explains(&r, "no verdict for this model on testhost, objective pp");
    sel_result_free(&r);
}

static void set_mtime(const char *path, time_t sec)
{
    struct timeval tv[2] = {{sec, 0}, {sec, 0}};
    assert_int_equal(utimes(path, tv), 0);
}

/* A binary whose mtime changed makes the verdict stale: ignored, and the
 * explanation names the engine and the file. */
static void test_rule2_stale(void **state)
{
    fx *f = *state;
    box b = verdict_box(f);
    lvd_verdict v;

    char *server = lvd_xasprintf("%s/cuda/llama-server", f->dir);
    set_mtime(server, 1700000000);
    sel_request rq = request(f);
    sel_result r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_HEURISTIC);
    assert_int_equal(r.engine.id, b.vk);
    assert_explains(&r, "is stale: engine cuda: llama-server changed since the verdict (mtime)");
    sel_result_free(&r);

    /* a changed build is stale too, even with the same files */
    lvd_err err = {{0}};
    assert_int_equal(record(f, NULL, &v), 0); /* fingerprint of the files as they are now */
    lvd_verdict_free(&v);
    r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_VERDICT);
    sel_result_free(&r);
    lvd_engine e;
    assert_int_equal(store_engine_get(f->s, b.vk, &e, &err), 0);
    free(e.build);
    e.build = lvd_xstrdup("b9800");
    assert_int_equal(store_engine_put(f->s, &e, &err), 0);
    lvd_engine_free(&e);
    r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_HEURISTIC);
    assert_explains(&r, "engine vk changed build from b9749 to b9800");
    sel_result_free(&r);
    free(server);
}

/* The gather step reads the checks the rules weigh: the verdict's device's
 * only while the verdict holds (a warm start), every offered device's once
 * it does not; decide then runs over those facts alone (no store), and a
 * device whose gathered check failed is left out. */
static void test_gather_decide(void **state)
{
    fx *f = *state;
    box b = verdict_box(f);
    sel_request rq = request(f);
    sel_facts facts;
    lvd_err err = {{0}};
    assert_int_equal(sel_gather(f->s, &f->a, &rq, &facts, &err), LVD_EXIT_OK);
    assert_int_equal(facts.verdict.standing, SEL_STANDING_HOLDS);
    assert_string_equal(facts.verdict.check.status, "pass");
    assert_null(facts.dev_checks); /* no other check read */
    assert_null(facts.ceilings);   /* no context asked */
    sel_facts_free(&facts);

    char *server = lvd_xasprintf("%s/cuda/llama-server", f->dir);
    set_mtime(server, 1700000000); /* the verdict goes stale */
    free(server);
    assert_int_equal(sel_gather(f->s, &f->a, &rq, &facts, &err), LVD_EXIT_OK);
    assert_int_equal(facts.verdict.standing, SEL_STANDING_STALE);
    assert_string_equal(facts.verdict.check.status, ""); /* not read: the stale verdict fell first */
    const sel_engine *vk = sel_engines_find(&facts.es, b.vk);
    const sel_check_seen *c = sel_facts_dev_check(&facts, vk, &vk->probe.devices[0]);
    assert_non_null(c);
    assert_string_equal(c->status, "pass");

    snprintf(facts.dev_checks[1].status, sizeof facts.dev_checks[1].status, "fail"); /* Vulkan0: as if it failed */
    assert_ptr_equal(sel_facts_dev_check(&facts, vk, &vk->probe.devices[0]), &facts.dev_checks[1]);
    sel_decision d;
    sel_explain x = {0};
    assert_int_equal(sel_decide(&facts, &rq, &d, &x, &err), LVD_EXIT_OK);
    assert_int_equal(d.by, SEL_BY_HEURISTIC);
    assert_int_equal(d.pick.eng->e.id, b.cuda); /* Pascal wants Vulkan, but Vulkan0 is left out */
    int left_out = 0;
    for (size_t i = 0; i < x.n; i++)
        left_out |= strstr(x.v[i], "vk Vulkan0 left out: its correctness check says fail") != NULL;
    assert_true(left_out);
    sel_explain_free(&x);
    sel_facts_free(&facts);
}

/* The winner's device failed its check after the verdict: the verdict is
 * not used, and rules 3-4 leave that device out too. */
static void test_rule2_failed_check(void **state)
{
    fx *f = *state;
    lvd_device c = dev("CUDA0", H200, 140000, "9.0"), vk = dev("Vulkan0", H200, 140000, NULL);
    int64_t cuda = engine(f, "cuda", &c, 1), vulkan = engine(f, "vk", &vk, 1);
    run(f, cuda, "CUDA0", "n1", 900, 5000);
    run(f, vulkan, "Vulkan0", "n1", 600, 4000);
    check(f, cuda, "CUDA0", "pass");
    check(f, vulkan, "Vulkan0", "pass");
    lvd_verdict v;
    assert_int_equal(record(f, NULL, &v), 0);
    assert_int_equal(v.engine_id, cuda);
    lvd_verdict_free(&v);

    check(f, cuda, "CUDA0", "fail");
    sel_request rq = request(f);
    sel_result r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_HEURISTIC); /* modern NVIDIA -> CUDA, but CUDA0 failed */
    assert_int_equal(r.engine.id, vulkan);
    assert_explains(&r, "chose cuda CUDA0, whose newest correctness check says fail");
    assert_explains(&r, "cuda CUDA0 left out: its correctness check says fail");
    sel_result_free(&r);

    /* and a new verdict does not let it win */
    assert_int_equal(record(f, NULL, &v), 0);
    assert_int_equal(v.engine_id, vulkan);
    assert_string_equal(v.rule, "only-arm");
    assert_non_null(strstr(v.explain, "excluded cuda · CUDA0"));
    lvd_verdict_free(&v);
}

/* --- the verdict's own rules ------------------------------------------ */

/* Failed runs, gpu_ignored runs, failed and missing checks never win;
 * only the newest session counts; a slower arm does not win over a faster
 * unchecked one. */
static void test_verdict_exclusions(void **state)
{
    fx *f = *state;
    lvd_device d[] = {dev("CUDA0", H200, 140000, "9.0"), dev("CUDA1", H200, 140000, "9.0"),
                      dev("CUDA2", H200, 140000, "9.0"), dev("CUDA3", H200, 140000, "9.0")};
    int64_t cpu = engine(f, "cpu", NULL, 0), cuda = engine(f, "cuda", d, 4);
    run(f, cuda, "CUDA0", "old", 5000, 9000); /* an older session: does not count */
    run(f, cpu, "", "new", 50, 400);
    run(f, cuda, "CUDA0", "new", 2000, 9000);          /* check fails */
    run_ex(f, cuda, "CUDA1", "new", 1900, 9000, "gpu_ignored", 1);
    run(f, cuda, "CUDA2", "new", 1800, 9000);          /* no check */
    run(f, cuda, "CUDA3", "new", 1000, 9000);
    run_ex(f, cuda, "CUDA3", "new", 0, 0, "failed", 1); /* one crash excludes the arm */
    check(f, cuda, "CUDA0", "fail");
    check(f, cuda, "CUDA1", "pass");
    check(f, cuda, "CUDA3", "pass");
    lvd_verdict v;
    assert_int_equal(record(f, NULL, &v), 0);
    assert_int_equal(v.engine_id, 0); /* CUDA2 is faster than the CPU and unchecked */
    assert_string_equal(v.rule, SEL_VERDICT_UNCHECKED);
    assert_non_null(strstr(v.explain, "cuda · CUDA2, ngl 99"));
    assert_non_null(strstr(v.explain, "check fail on CUDA0: mean KLD 0.41"));
    assert_non_null(strstr(v.explain, "gpu_ignored run"));
    assert_non_null(strstr(v.explain, "unchecked: no correctness check of CUDA2"));
    assert_non_null(strstr(v.explain, "failed run: crashed: SIGSEGV"));
    lvd_verdict_free(&v);

    /* nothing eligible: recorded as no-arm, and selection ignores it */
    check(f, cuda, "CUDA2", "pass");
    run_ex(f, cuda, "CUDA1", "newest", 700, 900, "gpu_ignored", 1);
    run_ex(f, cuda, "CUDA2", "newest", 0, 0, "failed", 1);
    assert_int_equal(record(f, NULL, &v), 0);
    assert_int_equal(v.engine_id, 0);
    assert_string_equal(v.rule, "no-arm");
    lvd_verdict_free(&v);
    sel_request rq = request(f);
    sel_result r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_HEURISTIC);
    assert_explains(&r, "recommends no arm");
    sel_result_free(&r);

    /* no runs at all for another host: 1 */
    sel_verdict_opts o;
    sel_verdict_opts_init(&o);
    o.host = "elsewhere";
    lvd_err err = {{0}};
    assert_int_equal(sel_verdict_compute(f->s, f->a.sha256, &o, &v, &err), 1);
    assert_non_null(strstr(err.msg, "no bench run"));
}

/* Unchecked is not failed: a slower arm wins over a faster arm whose check
 * failed, never over one that has no check; then the verdict records no
 * winner and selection falls through to the heuristic. */
static void test_verdict_unchecked(void **state)
{
    fx *f = *state;
    lvd_device d[] = {dev("CUDA0", H200, 140000, "9.0"), dev("CUDA1", H200, 140000, "9.0")};
    int64_t cpu = engine(f, "cpu", NULL, 0), cuda = engine(f, "cuda", d, 2);
    run(f, cpu, "", "s", 50, 400);
    run(f, cuda, "CUDA0", "s", 1000, 9000);
    run(f, cuda, "CUDA1", "s", 600, 8000);
    lvd_verdict v;
    assert_int_equal(record(f, NULL, &v), 0); /* nothing checked: no win for the CPU */
    assert_int_equal(v.engine_id, 0);
    assert_string_equal(v.rule, SEL_VERDICT_UNCHECKED);
    assert_non_null(strstr(v.explain, SEL_VERDICT_UNCHECKED ": cuda · CUDA0, ngl 99, fa 1"));
    assert_non_null(strstr(v.explain, "has no correctness check and measured 999.50 t/s on tg128 (2"
                                      " faster arms unchecked), faster than the best checked arm, cpu on cpu"));
    lvd_verdict_free(&v);
    sel_request rq = request(f);
    sel_result r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_HEURISTIC); /* H200: CUDA, as without any measurement */
    assert_int_equal(r.engine.id, cuda);
    assert_explains(&r, "(" SEL_VERDICT_UNCHECKED ", objective tg) recommends no arm");
    sel_result_free(&r);

    check(f, cuda, "CUDA0", "pass"); /* a slower unchecked arm does not stop a win */
    assert_int_equal(record(f, NULL, &v), 0);
    assert_int_equal(v.engine_id, cuda);
    assert_string_equal(v.params.device, "CUDA0");
    assert_string_equal(v.rule, "win");
    lvd_verdict_free(&v);

    check(f, cuda, "CUDA0", "fail"); /* failed is excluded; CUDA1, faster than the CPU, unchecked */
    assert_int_equal(record(f, NULL, &v), 0);
    assert_int_equal(v.engine_id, 0);
    assert_non_null(strstr(v.explain, SEL_VERDICT_UNCHECKED ": cuda · CUDA1, ngl 99, fa 1"));
    assert_null(strstr(v.explain, "faster arms unchecked),"));
    lvd_verdict_free(&v);

    check(f, cuda, "CUDA1", "fail"); /* faster arms all failed: the slower one wins */
    assert_int_equal(record(f, NULL, &v), 0);
    assert_int_equal(v.engine_id, cpu);
    assert_string_equal(v.rule, "only-arm");
    lvd_verdict_free(&v);

    check(f, cuda, "CUDA0", "pass"); /* every arm checked: the normal ranking */
    check(f, cuda, "CUDA1", "pass");
    assert_int_equal(record(f, NULL, &v), 0);
    assert_int_equal(v.engine_id, cuda);
    assert_string_equal(v.params.device, "CUDA0");
    assert_string_equal(v.rule, "win");
    lvd_verdict_free(&v);
}

/* The device a check is under: the selector asked, the probe's first for
 * an arm without one, "auto" when no probe lists a device, "" for the CPU. */
static void test_check_device(void **state)
{
    (void)state;
    lvd_device d[] = {dev("CUDA0", H200, 140000, "9.0"), dev("CUDA1", H200, 140000, "9.0")};
    lvd_probe gpu = {.devices = d, .n_devices = 2}, cpu = {0};
    struct {
        const lvd_probe *probe;
        const char *sel;
        int ngl;
        const char *want;
    } cases[] = {
        {&gpu, "CUDA1", 99, "CUDA1"}, {&gpu, "", 99, "CUDA0"}, {&gpu, "", -1, "CUDA0"},
        {&gpu, "", 0, ""},            {&cpu, "", -1, ""},      {&cpu, "", 99, "auto"},
        {NULL, "", 99, "auto"},       {NULL, "", -1, ""},      {NULL, "Vulkan0", 99, "Vulkan0"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(cases); i++) {
        lvd_params p;
        lvd_params_init(&p);
        snprintf(p.device, sizeof p.device, "%s", cases[i].sel);
        p.ngl = cases[i].ngl;
        char out[64];
        engine_check_device(cases[i].probe, &p, out, sizeof out);
        if (strcmp(out, cases[i].want))
            fail_msg("case %zu: '%s', want '%s'", i, out, cases[i].want);
    }
}

/* An engine known only from imported results (no probe: its binaries are on
 * another machine) that asked for GPU layers ran on its default device: it
 * is not the CPU reference, and stays unchecked (the CPU does not win over
 * it either) until a check under "auto" passes (what lvd check --import
 * records). */
static void test_verdict_imported_engine(void **state)
{
    fx *f = *state;
    lvd_err err = {{0}};
    int64_t cpu = engine(f, "cpu", NULL, 0);
    lvd_engine e = {.name = "cuda-imported", .dir = "/elsewhere/cuda", .build = "b9749", .origin = "imported"};
    assert_int_equal(store_engine_put(f->s, &e, &err), 0);
    lvd_params p;
    lvd_params_init(&p);
    p.ngl = 99;
    p.fa = 1;
    run_p(f, e.id, &p, "night", 995, 85000, "ok");
    run(f, cpu, "", "night", 54, 430);
    lvd_verdict v;
    assert_int_equal(record(f, NULL, &v), 0);
    assert_int_equal(v.engine_id, 0); /* faster than the CPU, unchecked: no win for the CPU */
    assert_string_equal(v.rule, SEL_VERDICT_UNCHECKED);
    assert_non_null(strstr(v.explain, "unchecked: no correctness check of auto"));
    lvd_verdict_free(&v);
    check(f, e.id, "auto", "pass");
    assert_int_equal(record(f, NULL, &v), 0);
    assert_int_equal(v.engine_id, e.id);
    assert_string_equal(v.rule, "win");
    assert_null(strstr(v.explain, "excluded"));
    lvd_verdict_free(&v);
}

/* sel_choice_lines_build of a choice from records: no profile, --ctx or --free-mib. */
static int lines_build(const lvd_engine *e, const lvd_probe *probe, const char *reported, const lvd_params *p,
                       const store_artifact *a, const char *hint, sel_choice_lines *out, lvd_err *err)
{
    sel_line_in in;
    sel_line_in_init(&in);
    in.engine = e;
    in.probe = probe;
    in.reported = reported;
    in.params = p;
    in.artifact = a;
    in.model_hint = hint;
    return sel_choice_lines_build(&in, out, err);
}

/* Placement and launch line of a choice already made, from records alone
 * (select/choice.h): what lvd select --record --artifact prints and the
 * evidence page shows. */
static void test_choice_lines(void **state)
{
    fx *f = *state;
    lvd_err err = {{0}};
    lvd_engine e = {.id = 7, .name = "cuda", .dir = "/opt/llama/cuda", .build = "b9749"};
    lvd_device d[] = {dev("CUDA0", H200, 142629, "9.0"), dev("CUDA1", H200, -1, "9.0")};
    lvd_probe probe = {.engine_id = 7, .devices = d, .n_devices = 2};
    snprintf(probe.backend, sizeof probe.backend, "cuda");
    lvd_params p;
    lvd_params_init(&p);
    p.ngl = 99;
    p.fa = 1;
    sel_choice_lines c;
    /* known shape and free memory: placed as lvd select places it */
    assert_int_equal(lines_build(&e, &probe, "CUDA", &p, &f->a, NULL, &c, &err), 0);
    assert_true(c.placement_known && c.placed);
    assert_string_equal(c.backend, "cuda");
    assert_true(lvd_starts_with(c.placement_line, "fully resident on CUDA0 (142629 MiB free, context "));
    /* the artifact's last known path is the resolved one (realpath) */
    char *real = realpath(f->model, NULL);
    assert_non_null(real);
    assert_string_equal(c.model, real);
    free(real);
    assert_null(c.model_note);
    assert_non_null(strstr(c.launch_line, " -c "));
    assert_true(lvd_starts_with(c.launch_line, "/opt/llama/cuda/llama-server -m "));
    sel_choice_lines_free(&c);
    /* a device whose free memory no probe printed */
    strcpy(p.device, "CUDA1");
    assert_int_equal(lines_build(&e, &probe, "CUDA", &p, &f->a, NULL, &c, &err), 0);
    assert_false(c.placement_known);
    assert_string_equal(c.placement_line, "the free memory of CUDA1 is not recorded (its probe did not print it)");
    /* not placed, but the context is lvd select's: min(4096, trained) */
    char want_c[32];
    uint32_t train = f->a.shape.n_ctx_train;
    snprintf(want_c, sizeof want_c, " -c %u", train && train < 4096 ? train : 4096);
    assert_true(lvd_ends_with(c.launch_line, want_c));
    assert_non_null(strstr(c.launch_line, "--device CUDA1 -ngl 99 -fa on"));
    sel_choice_lines_free(&c);
    /* a stub artifact (imported by sha256), an engine never probed here */
    store_artifact stub = {.size = -1};
    snprintf(stub.sha256, sizeof stub.sha256, "973978067daa0%051d", 0);
    p.device[0] = '\0';
    assert_int_equal(lines_build(&e, NULL, "CUDA", &p, &stub, "models/dense-1b-f16.gguf", &c, &err), 0);
    assert_false(c.placement_known);
    assert_true(lvd_starts_with(c.placement_line, "shape not recorded"));
    assert_string_equal(c.model, SEL_MODEL_PLACEHOLDER);
    assert_string_equal(c.model_note, "MODEL.gguf stands for the model 973978067daa: its path is not in the store"
                                      " (llama-bench called it models/dense-1b-f16.gguf)");
    assert_string_equal(c.launch_line, "/opt/llama/cuda/llama-server -m MODEL.gguf -ngl 99 -fa on");
    sel_choice_lines_free(&c);
    /* a CPU engine: known, nothing to place, no GPU flags */
    assert_int_equal(lines_build(&e, NULL, "CPU", &p, &stub, NULL, &c, &err), 0);
    assert_true(c.placement_known && !c.placed);
    assert_string_equal(c.placement_line, "CPU engine: the whole model in host memory");
    assert_string_equal(c.launch_line, "/opt/llama/cuda/llama-server -m MODEL.gguf -fa on");
    sel_choice_lines_free(&c);
    /* a CPU engine on a model whose shape is known: lvd select's -c too */
    assert_int_equal(lines_build(&e, NULL, "CPU", &p, &f->a, NULL, &c, &err), 0);
    assert_true(c.placement_known && !c.placed);
    assert_true(lvd_ends_with(c.launch_line, want_c));
    sel_choice_lines_free(&c);
    /* an engine no longer registered: no launch line */
    assert_int_equal(lines_build(NULL, NULL, "CUDA", &p, &stub, NULL, &c, &err), 0);
    assert_null(c.launch_line);
    assert_int_equal(c.launch.argc, 0);
    sel_choice_lines_free(&c);
    /* parameters a launch line cannot carry */
    p.ubatch = -5;
    assert_int_equal(lines_build(&e, NULL, "CUDA", &p, &stub, NULL, &c, &err), -1);
    assert_non_null(strstr(err.msg, "out of range"));
}

/* pp and weighted objectives rank on their own tests. */
static void test_verdict_objectives(void **state)
{
    fx *f = *state;
    box b = pascal_box(f);
    run(f, b.cuda, "CUDA0", "n1", 600, 9000);
    run(f, b.vk, "Vulkan0", "n1", 900, 5000);
    check(f, b.cuda, "CUDA0", "pass");
    check(f, b.vk, "Vulkan0", "pass");
    lvd_verdict v;
    assert_int_equal(record(f, "tg", &v), 0);
    assert_int_equal(v.engine_id, b.vk);
    lvd_verdict_free(&v);
    assert_int_equal(record(f, "pp", &v), 0);
    assert_int_equal(v.engine_id, b.cuda);
    assert_string_equal(v.objective, "pp");
    lvd_verdict_free(&v);
    /* w = 0.9: (900/600)^0.9 * (5000/9000)^0.1 = 1.39 -> Vulkan */
    assert_int_equal(record(f, "0.9", &v), 0);
    assert_int_equal(v.engine_id, b.vk);
    assert_string_equal(v.objective, "w=0.90");
    assert_string_equal(v.rule, "win");
    lvd_verdict_free(&v);
    /* w = 0.2: (1.5)^0.2 * (0.556)^0.8 = 0.69 -> CUDA */
    assert_int_equal(record(f, "0.2", &v), 0);
    assert_int_equal(v.engine_id, b.cuda);
    lvd_verdict_free(&v);
    /* select reads the verdict of its objective */
    sel_request rq = request(f);
    assert_int_equal(stats_objective_parse("pp", &rq.objective, NULL), 0);
    sel_result r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_VERDICT);
    assert_int_equal(r.engine.id, b.cuda);
    sel_result_free(&r);
}

/* One lvd serve run of engine eid on device sel at -np n in session: 64+16
 * requests whose time to first token is ttft_ms (serve-ttft's rate 64 /
 * TTFT) and aggregate rate tps (serve-tps), ten of each. */
static void serve_run(fx *f, int64_t eid, const char *sel, int n, const char *session, double ttft_ms, double tps)
{
    lvd_err err = {{0}};
    lvd_run r = {0};
    memcpy(r.artifact, f->a.sha256, sizeof r.artifact);
    r.engine_id = eid;
    r.binary = lvd_xstrdup("/x/llama-server");
    r.build = lvd_xstrdup("b9749");
    r.host = lvd_xstrdup(HOST);
    r.session = lvd_xstrdup(session);
    lvd_params_init(&r.params);
    snprintf(r.params.device, sizeof r.params.device, "%s", sel);
    r.params.ngl = 99;
    r.params.parallel = n;
    char key[320];
    assert_int_equal(benchio_arm_key(&r.params, key, sizeof key), 0);
    r.arm_key = lvd_xstrdup(key);
    snprintf(r.status, sizeof r.status, "ok");
    r.started_at = f->started++;
    snprintf(r.source, sizeof r.source, "bench");
    double t[10], g[10];
    samples(64 / (ttft_ms / 1e3), t);
    samples(tps, g);
    r.n_results = 2;
    r.results = lvd_xcalloc(2, sizeof *r.results);
    fill_result(&r.results[0], "serve-ttft@pp64+tg16", 64, 16, t, 10);
    fill_result(&r.results[1], "serve-tps@pp64+tg16", 64, 16, g, 10);
    for (size_t i = 0; i < 10; i++)
        r.results[0].ns[i] = (int64_t)(64e9 / t[i]);
    if (store_run_put(f->s, &r, &err))
        fail_msg("%s", err.msg);
    lvd_run_free(&r);
}

/* The serve objective ranks serving runs only (and tg llama-bench's only):
 * the most aggregate t/s, among the arms whose p95 TTFT is within the bound;
 * its launch line carries -np, and --explain names the objective. */
static void test_verdict_serve(void **state)
{
    fx *f = *state;
    box b = pascal_box(f);
    run(f, b.cuda, "CUDA0", "n1", 900, 9000);
    run(f, b.vk, "Vulkan0", "n1", 600, 5000);
    check(f, b.cuda, "CUDA0", "pass");
    check(f, b.vk, "Vulkan0", "pass");
    lvd_verdict v;
    int rc = record(f, "serve", &v);
    assert_int_equal(rc, 1); /* no serving run yet: nothing to decide */
    serve_run(f, b.cuda, "CUDA0", 1, "s1", 30, 150);
    serve_run(f, b.cuda, "CUDA0", 4, "s1", 50, 300);
    serve_run(f, b.vk, "Vulkan0", 4, "s1", 120, 400);
    assert_int_equal(record(f, "tg", &v), 0); /* the serving session hides no bench session */
    assert_int_equal(v.engine_id, b.cuda);
    assert_int_equal(v.params.parallel, 0);
    assert_string_equal(v.rule, "win");
    lvd_verdict_free(&v);
    assert_int_equal(record(f, "serve", &v), 0);
    assert_int_equal(v.engine_id, b.vk);
    assert_int_equal(v.params.parallel, 4);
    assert_string_equal(v.objective, "serve");
    lvd_verdict_free(&v);
    assert_int_equal(record(f, "serve=100ms", &v), 0);
    assert_int_equal(v.engine_id, b.cuda);
    assert_int_equal(v.params.parallel, 4);
    assert_string_equal(v.rule, "win");
    assert_non_null(strstr(v.explain, "excluded vulkan · Vulkan0, ngl 99, np 4 on vk: p95 time to first token 120."));
    assert_non_null(strstr(v.explain, "above the bound 100 ms (objective serve=100ms)"));
    lvd_verdict_free(&v);
    sel_request rq = request(f);
    assert_int_equal(stats_objective_parse("serve=100ms", &rq.objective, NULL), 0);
    sel_result r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_VERDICT);
    assert_int_equal(r.engine.id, b.cuda);
    assert_string_equal(flag(&r, "-np"), "4");
    assert_explains(&r, "(win, objective serve=100ms), engines unchanged");
    sel_result_free(&r);
}

/* The verdict ranks at the session's last look: one run per arm is look 1;
 * six rounds are look 6, whose spent level (alpha 6 / (pi^2 36) / m) widens
 * the sequential interval over the same samples. */
static void test_verdict_session_look(void **state)
{
    fx *f = *state;
    box b = benched_box(f, 600, 9000, 660, 5000);
    lvd_verdict v;
    assert_int_equal(record(f, NULL, &v), 0);
    cJSON *j = cJSON_Parse(v.stats_json);
    assert_int_equal((int)cJSON_GetObjectItem(j, "look")->valuedouble, 1);
    cJSON *cmp = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "arms"), 1), "vs_leader");
    assert_int_equal((int)cJSON_GetObjectItem(cmp, "look")->valuedouble, 1);
    double lo1 = cJSON_GetArrayItem(cJSON_GetObjectItem(cmp, "seq"), 0)->valuedouble;
    cJSON_Delete(j);
    lvd_verdict_free(&v);
    /* session n6: the same samples over six rounds (6 runs per arm) */
    for (int i = 0; i < 6; i++) {
        run(f, b.cuda, "CUDA0", "n6", 600, 9000);
        run(f, b.vk, "Vulkan0", "n6", 660, 5000);
    }
    assert_int_equal(record(f, NULL, &v), 0);
    j = cJSON_Parse(v.stats_json);
    assert_int_equal((int)cJSON_GetObjectItem(j, "look")->valuedouble, 6);
    cmp = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "arms"), 1), "vs_leader");
    assert_int_equal((int)cJSON_GetObjectItem(cmp, "look")->valuedouble, 6);
    /* 60 samples per arm at look 6 against the same 10 at look 1: the
     * interval is narrower from n, but its level is alpha_6 = alpha_1 / 36 */
    stats_rule rule;
    stats_rule_default(&rule);
    rule.look = 6;
    double t[60], c[60];
    for (int i = 0; i < 6; i++) {
        samples(600, c + 10 * i);
        samples(660, t + 10 * i);
    }
    stats_comparison want;
    assert_int_equal(stats_compare(c, 60, t, 60, &rule, &want), 0);
    double lo6 = cJSON_GetArrayItem(cJSON_GetObjectItem(cmp, "seq"), 0)->valuedouble;
    assert_true(fabs(lo6 - want.seq.lo) < 1e-9);
    rule.look = 1;
    assert_int_equal(stats_compare(c, 60, t, 60, &rule, &want), 0);
    assert_true(lo6 < want.seq.lo - 1e-6); /* look 1 would have spent more */
    assert_true(lo1 < lo6);
    cJSON_Delete(j);
    lvd_verdict_free(&v);
}

/* Ties keep the heuristic's choice, or the previous winner when it is among
 * the tied arms (no flapping). */
static void test_verdict_tie_hysteresis(void **state)
{
    fx *f = *state;
    box b = pascal_box(f);
    run(f, b.cuda, "CUDA0", "n1", 700, 5000);
    run(f, b.vk, "Vulkan0", "n1", 701, 5000);
    run(f, b.cpu, "", "n1", 50, 400);
    check(f, b.cuda, "CUDA0", "pass");
    check(f, b.vk, "Vulkan0", "pass");
    lvd_verdict v;
    assert_int_equal(record(f, NULL, &v), 0);
    assert_string_equal(v.rule, "tie: kept heuristic choice");
    assert_int_equal(v.engine_id, b.vk); /* Pascal: Vulkan */
    assert_non_null(strstr(v.explain, "Pascal"));
    lvd_verdict_free(&v);

    /* the previous winner is CUDA (say, an earlier night's clear win) */
    lvd_verdict prev = {0};
    memcpy(prev.artifact, f->a.sha256, sizeof prev.artifact);
    prev.host = HOST;
    prev.objective = "tg";
    prev.engine_id = b.cuda;
    lvd_params_init(&prev.params);
    strcpy(prev.params.device, "CUDA0");
    prev.params.ngl = 99;
    prev.params.fa = 1;
    char key[320];
    assert_int_equal(benchio_arm_key(&prev.params, key, sizeof key), 0);
    prev.arm_key = key;
    prev.rule = "win";
    lvd_err err = {{0}};
    assert_int_equal(store_verdict_put(f->s, &prev, &err), 0);
    assert_int_equal(record(f, NULL, &v), 0);
    assert_string_equal(v.rule, "tie: kept previous verdict");
    assert_int_equal(v.engine_id, b.cuda);
    lvd_verdict_free(&v);
}

/* --- rules 3 and 4 ------------------------------------------------------ */

static void test_rule3_rule4(void **state)
{
    fx *f = *state;
    /* an accelerator no row recognises: the heuristic has no answer, rule 4
     * takes the first engine listing a device */
    lvd_device adreno = dev("Vulkan0", "Adreno (TM) 740", 7000, NULL);
    int64_t cpu = engine(f, "cpu", NULL, 0);
    int64_t vk = engine(f, "vk", &adreno, 1);
    sel_request rq = request(f);
    sel_result r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_FIRST);
    assert_int_equal(r.engine.id, vk);
    assert_explains(&r, "rule 3 (heuristic): no answer");
    assert_explains(&r, "rule 4 (first engine): decided: vk");
    sel_result_free(&r);

    /* its device failed the check: the heuristic sees no accelerator -> CPU */
    check(f, vk, "Vulkan0", "error");
    r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_HEURISTIC);
    assert_int_equal(r.engine.id, cpu);
    assert_null(flag(&r, "-ngl"));
    sel_result_free(&r);
}

/* Engines that cannot serve are not offered, and with none left select fails. */
static void test_no_engine(void **state)
{
    fx *f = *state;
    sel_request rq = request(f);
    sel_result r;
    int code;
    lvd_err err = {{0}};
    assert_int_equal(sel_select(f->s, &f->a, &rq, &r, &code, &err), -1);
    assert_int_equal(code, LVD_EXIT_FAIL);
    assert_non_null(strstr(err.msg, "no engine is registered"));

    lvd_device d = dev("CUDA0", H200, 1000, "9.0");
    engine_ex(f, "hung", &d, 1, 1, 1);
    engine_ex(f, "benchonly", NULL, 0, 0, 0);
    int64_t moved = engine(f, "moved", &d, 1);
    (void)moved;
    char *bench = lvd_xasprintf("%s/moved/llama-bench", f->dir);
    tu_write_str(bench, "#!/bin/sh\n# rebuilt, larger\nexit 0\n");
    assert_int_equal(sel_select(f->s, &f->a, &rq, &r, &code, &err), -1);
    assert_int_equal(code, LVD_EXIT_FAIL);
    assert_non_null(strstr(err.msg, "hung: its last probe could not ask it: timed out after 30 s"));
    assert_non_null(strstr(err.msg, "benchonly: no executable llama-server in"));
    assert_non_null(strstr(err.msg, "changed since it was probed (run lvd probe)"));
    free(bench);

    /* a usable one appears: offered, the others are explained */
    engine(f, "cpu", NULL, 0);
    r = choose(f, &rq);
    assert_int_equal(r.by, SEL_BY_HEURISTIC);
    assert_explains(&r, "engine hung is not offered");
    sel_result_free(&r);
}

/* --- placement through select ------------------------------------------ */

static void test_placement_rungs(void **state)
{
    fx *f = *state;
    lvd_device d = dev("CUDA0", H200, 140000, "9.0");
    engine(f, "cuda", &d, 1);
    static const struct {
        int64_t free_mib;
        placement_rung rung;
        const char *ngl, *ub;
    } cases[] = {
        /* small-llama at its 4096 context: 11.3 MiB of weights, 8 of KV and
         * the 512 MiB reserve over its predicted 74.5 MiB compute buffer
         * (a smaller ubatch saves nothing); then blocks of 0.75 MiB and 2 of
         * KV go to the host one by one, the output head (8.3 MiB) last:
         * -ngl N keeps the head and the last N - 1 blocks */
        {-1, PLACEMENT_RUNG_FULL, "5", NULL}, /* the probe's 140000 */
        {1250, PLACEMENT_RUNG_FULL, "5", NULL},
        {700, PLACEMENT_RUNG_FULL, "5", NULL},
        {531, PLACEMENT_RUNG_PARTIAL, "4", NULL},
        {524, PLACEMENT_RUNG_PARTIAL, "2", NULL},
        {521, PLACEMENT_RUNG_PARTIAL, "1", NULL},
        {520, PLACEMENT_RUNG_CPU_ONLY, "0", NULL},
        {512, PLACEMENT_RUNG_CPU_ONLY, "0", NULL},
        {511, PLACEMENT_RUNG_NOTHING_FITS, "0", "128"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(cases); i++) {
        sel_request rq = request(f);
        rq.free_mib = cases[i].free_mib;
        sel_result r = choose(f, &rq);
        assert_true(r.placed);
        if (r.placement.rung != cases[i].rung)
            fail_msg("free %lld: rung %s", (long long)cases[i].free_mib,
                     placement_rung_name(r.placement.rung));
        assert_string_equal(flag(&r, "-ngl"), cases[i].ngl);
        if (cases[i].ub)
            assert_string_equal(flag(&r, "-ub"), cases[i].ub);
        else
            assert_null(flag(&r, "-ub"));
        assert_null(flag(&r, "--n-cpu-moe"));
        assert_string_equal(flag(&r, "-c"), "4096");
        assert_explains(&r, cases[i].free_mib < 0 ? "140000 MiB free (from the probe)"
                                                  : "(from --free-mib)");
        sel_result_free(&r);
    }

    /* a profile's ngl overrides placement */
    sel_profile p;
    profile_of("ngl = 2\n", &p);
    sel_request rq = request(f);
    rq.profile = &p;
    rq.free_mib = 1250;
    sel_result r = choose(f, &rq);
    assert_string_equal(flag(&r, "-ngl"), "2");
    assert_explains(&r, "overrides it");
    sel_result_free(&r);
    sel_profile_free(&p);
}

/* tiny-moe at ctx 3584 with 515 MiB: fully resident (1.2 MiB of weights, 1.8
 * of KV, the 512 MiB reserve over its predicted compute buffer); at 514 it
 * drops to partial offload (test_placement.c, test_real_tiny_moe, says
 * why this model never lands on the experts rung in MiB steps). */
static void test_placement_tiny_moe(void **state)
{
    fx *f = *state;
    lvd_err err = {{0}};
    char *moe = tu_model("tiny-moe-q4_0.gguf");
    store_artifact a;
    assert_int_equal(store_identify(f->s, moe, 0, &a, NULL, &err), 0);
    lvd_device d = dev("CUDA0", H200, 140000, "9.0");
    engine(f, "cuda", &d, 1);
    sel_request rq = request(f);
    rq.model = moe;
    rq.ctx = 3584;
    rq.free_mib = 515;
    sel_result r;
    int code;
    assert_int_equal(sel_select(f->s, &a, &rq, &r, &code, &err), 0);
    assert_int_equal(r.placement.rung, PLACEMENT_RUNG_FULL);
    assert_null(flag(&r, "--n-cpu-moe"));
    assert_null(flag(&r, "-ub"));
    assert_string_equal(flag(&r, "-c"), "3584");
    cJSON *j = sel_result_json(&r);
    cJSON *pl = cJSON_GetObjectItem(j, "placement");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(pl, "rung")), "fully resident");
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(pl, "n_cpu_moe")), 0);
    assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(pl, "margin")), 14080);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "rule")), "heuristic");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "backend")), "cuda");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "device")), "CUDA0");
    assert_true(cJSON_IsArray(cJSON_GetObjectItem(j, "argv")));
    assert_true(cJSON_IsArray(cJSON_GetObjectItem(j, "env")));
    assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(j, "explain")) >= 3);
    cJSON_Delete(j);
    sel_result_free(&r);
    store_artifact_free(&a);
    free(moe);
}

/* Unknown free memory: no placement, and the line says nothing it cannot know. */
static void test_placement_unknown_free(void **state)
{
    fx *f = *state;
    lvd_device d = dev("Vulkan0", "AMD Radeon RX 7900 XTX (RADV NAVI31)", 0, NULL);
    d.free_mib = d.total_mib = -1;
    engine(f, "vk", &d, 1);
    sel_request rq = request(f);
    sel_result r = choose(f, &rq);
    assert_false(r.placed);
    assert_null(flag(&r, "-ngl"));
    assert_explains(&r, "free memory is unknown");
    sel_result_free(&r);
    rq.free_mib = 4000;
    r = choose(f, &rq);
    assert_true(r.placed);
    assert_string_equal(flag(&r, "-ngl"), "5");
    sel_result_free(&r);
}

/* --- opening the store ------------------------------------------------- */

/* Read-only from the hash cache when it answers; a new model is hashed
 * through a writable store; a bad model is an input error. */
static void test_open_identify(void **state)
{
    fx *f = *state;
    store *s;
    store_artifact a;
    int code;
    lvd_err err = {{0}};
    assert_int_equal(sel_open_identify(f->db, f->model, 0, &s, &a, &code, &err), 0);
    assert_string_equal(a.sha256, f->a.sha256);
    store_artifact_free(&a);
    /* read-only: a write fails */
    lvd_check c = {.engine_id = 1, .host = HOST, .status = "pass"};
    memcpy(c.artifact, f->a.sha256, sizeof c.artifact);
    assert_int_equal(store_check_put(s, &c, &err), -1);
    store_close(s);

    char *copy = lvd_xasprintf("%s/copy of model.gguf", f->dir);
    size_t n;
    char *bytes = tu_read(f->model, &n);
    tu_write(copy, bytes, n);
    free(bytes);
    assert_int_equal(store_identify_cached(f->s, copy, &a, &err), 1);
    assert_int_equal(sel_open_identify(f->db, copy, 0, &s, &a, &code, &err), 0);
    assert_string_equal(a.sha256, f->a.sha256);
    store_artifact_free(&a);
    store_close(s);

    char *junk = lvd_xasprintf("%s/junk.gguf", f->dir);
    tu_write_str(junk, "not a gguf");
    assert_int_equal(sel_open_identify(f->db, junk, 0, &s, &a, &code, &err), -1);
    assert_int_equal(code, LVD_EXIT_INPUT);
    assert_non_null(strstr(err.msg, junk));
    assert_int_equal(sel_open_identify("/nonexistent/store.db", f->model, 0, &s, &a, &code, &err), -1);
    assert_int_equal(code, LVD_EXIT_STORE);
    free(copy);
    free(junk);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_profile_parse),
        cmocka_unit_test(test_profile_errors),
        cmocka_unit_test_setup_teardown(test_rule1_profile_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rule1_profile_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rule1_cpu_and_flags_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rule2_verdict, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rule2_stale, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rule2_failed_check, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gather_decide, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verdict_exclusions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verdict_unchecked, setup, teardown),
        cmocka_unit_test(test_check_device),
        cmocka_unit_test_setup_teardown(test_choice_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verdict_imported_engine, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verdict_objectives, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verdict_serve, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verdict_session_look, setup, teardown),
        cmocka_unit_test_setup_teardown(test_verdict_tie_hysteresis, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rule3_rule4, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_engine, setup, teardown),
        cmocka_unit_test_setup_teardown(test_placement_rungs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_placement_tiny_moe, setup, teardown),
        cmocka_unit_test_setup_teardown(test_placement_unknown_free, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_identify, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
