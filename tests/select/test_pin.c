/* test_pin.c: pin promotion. The rule table on synthetic samples with known
 * truth (regression, no win, failed check, failed run, too few samples,
 * first night, same measurements twice, no digest, second night promotes),
 * then the whole path through a store: engines of two builds, two nights of
 * runs, checks, recorded decisions, the details read back, and the pin file
 * rewritten atomically with its comments. */
#include "tests/support/testutil.h"

#include "common/util.h"
#include "builds/pinfile.h"
#include "select/armset.h"
#include "select/pin.h"
#include "store/store.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHA_M "973978067daa0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define DIGEST_OLD "1246c764f630f1cfc7c0921353a9719603c5d9ccfa7ced621bac216ffd9b2d87"
#define DIGEST_NEW "5e0c2d8fa4b1e3d7c9a8f6e5d4c3b2a1908f7e6d5c4b3a29180706f5e4d3c2b1"
#define FLAVOUR "bin-ubuntu-vulkan-x64"

/* n samples around mean with relative noise sd (deterministic per seed). */
static double *samples(uint64_t seed, double mean, double sd, size_t n)
{
    stats_rng r;
    stats_rng_seed(&r, seed);
    double *v = lvd_xmalloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = mean * (1.0 + sd * stats_rng_normal(&r));
    return v;
}

/* An evaluation with one tg128 pair on vulkan: candidate at cand_mean
 * against pinned at 700 t/s, n samples each, 0.5 % noise. */
static void eval_one(sel_pin_eval *e, double cand_mean, size_t n)
{
    sel_pin_eval_init(e, "b100", "b101", FLAVOUR);
    double *c = samples(1, cand_mean, 0.005, n), *p = samples(2, 700.0, 0.005, n);
    lvd_params params;
    lvd_params_init(&params);
    strcpy(params.device, "Vulkan0");
    params.ngl = 99;
    lvd_err err = {0};
    assert_int_equal(sel_pin_add_pair(e, SHA_M, "vulkan", "dev=Vulkan0 ngl=99", &params, "tg128", 1, 2,
                                      c, n, p, n, &err), 0);
    sel_pin_add_session(e, "night-2");
    sel_pin_add_session(e, "night-1");
    sel_pin_add_session(e, "night-2");
    e->candidate_digest = lvd_xstrdup(DIGEST_NEW);
    free(c);
    free(p);
}

static void expect_hold(const sel_pin_eval *e, sel_pin_hold hold, const char *needle)
{
    sel_pin_verdict v;
    sel_pin_judge(e, &v);
    if (v.hold != hold || !strstr(v.rule, needle))
        fail_msg("hold %s (%s), expected %s with '%s'", sel_pin_hold_name(v.hold), v.rule,
                 sel_pin_hold_name(hold), needle);
    assert_int_equal(v.promote, hold == SEL_PIN_PROMOTE);
}

/* --- the rule table -------------------------------------------------------- */

static void test_regression_holds(void **state)
{
    (void)state;
    sel_pin_eval e;
    eval_one(&e, 679.0, 10); /* -3 % */
    e.has_prev = e.prev_would_promote = 1;
    expect_hold(&e, SEL_PIN_REGRESSION, "regression: tg128 on vulkan -3.");
    expect_hold(&e, SEL_PIN_REGRESSION, "[CI -");
    expect_hold(&e, SEL_PIN_REGRESSION, "Vulkan0, ngl 99");
    sel_pin_verdict v;
    sel_pin_judge(&e, &v);
    assert_false(v.would_promote);
    assert_int_equal(v.n_regressions, 1);
    sel_pin_eval_free(&e);
}

static void test_regression_wins_elsewhere_still_holds(void **state)
{
    (void)state;
    sel_pin_eval e;
    eval_one(&e, 770.0, 10); /* a clear win on tg128 */
    double *c = samples(3, 55000, 0.005, 10), *p = samples(4, 60000, 0.005, 10);
    lvd_err err = {0};
    assert_int_equal(sel_pin_add_pair(&e, SHA_M, "vulkan", "k", NULL, "pp512", 1, 2, c, 10, p, 10, &err), 0);
    free(c);
    free(p);
    e.has_prev = e.prev_would_promote = 1;
    expect_hold(&e, SEL_PIN_REGRESSION, "regression: pp512 on vulkan -8.");
    sel_pin_eval_free(&e);
}

static void test_small_loss_inside_floor_is_no_regression(void **state)
{
    (void)state;
    sel_pin_eval e;
    eval_one(&e, 697.0, 20); /* -0.4 %: the CI stays above 0.98 */
    expect_hold(&e, SEL_PIN_NO_WIN, "no significant win (best: tg128 on vulkan -0.");
    sel_pin_eval_free(&e);
}

/* One tg128 pair on cpu: candidate at cand_mean against pinned at 700 t/s,
 * n samples each with relative noise sd. */
static void eval_noisy(sel_pin_eval *e, double cand_mean, double sd, size_t n)
{
    sel_pin_eval_init(e, "b100", "b101", FLAVOUR);
    double *c = samples(5, cand_mean, sd, n), *p = samples(6, 700.0, sd, n);
    lvd_err err = {0};
    assert_int_equal(sel_pin_add_pair(e, SHA_M, "cpu", "k", NULL, "tg128", 1, 2, c, n, p, n, &err), 0);
    e->candidate_digest = lvd_xstrdup(DIGEST_NEW);
    e->has_prev = e->prev_would_promote = 1;
    free(c);
    free(p);
}

/* The issue's case: a point estimate near +0 % whose CI reaches below the
 * -2 % floor but also above 1 is not a regression: it is inconclusive. */
static void test_wide_ci_is_inconclusive_not_regression(void **state)
{
    (void)state;
    sel_pin_eval e;
    eval_noisy(&e, 701.0, 0.03, 6);
    const stats_comparison *c = &e.pairs[0].cmp;
    assert_true(c->ci_lo < 0.98 && c->ci_hi > 1.0);
    expect_hold(&e, SEL_PIN_INCONCLUSIVE, "inconclusive: tg128 on cpu ");
    expect_hold(&e, SEL_PIN_INCONCLUSIVE, ": CI reaches -");
    expect_hold(&e, SEL_PIN_INCONCLUSIVE, ", needs more samples (1 inconclusive comparison)");
    sel_pin_verdict v;
    sel_pin_judge(&e, &v);
    assert_false(v.would_promote);
    assert_int_equal(v.n_regressions, 0);
    assert_int_equal(v.n_inconclusive, 1);
    assert_int_equal(sel_pin_pair_word(c), SEL_PIN_W_INCONCLUSIVE);
    /* --json: the pair's verdict word and the hold agree */
    cJSON *j = sel_pin_details_json(&e, &v, 0);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j, "hold")), "inconclusive");
    const cJSON *pair = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "comparisons"), 0);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(pair, "verdict")), "inconclusive");
    cJSON_Delete(j);
    sel_pin_eval_free(&e);
}

/* Shown slower (CI high < 1) is a regression even when the same pairs hold
 * an inconclusive one: the regression is named, it is what the hunt reads. */
static void test_shown_slower_is_regression(void **state)
{
    (void)state;
    sel_pin_eval e;
    eval_noisy(&e, 701.0, 0.03, 6);
    double *c = samples(7, 672.0, 0.005, 10), *p = samples(8, 700.0, 0.005, 10);
    lvd_err err = {0};
    assert_int_equal(sel_pin_add_pair(&e, SHA_M, "cpu", "k", NULL, "pp512", 1, 2, c, 10, p, 10, &err), 0);
    free(c);
    free(p);
    assert_true(e.pairs[1].cmp.ci_hi < 1.0);
    expect_hold(&e, SEL_PIN_REGRESSION, "regression: pp512 on cpu -3.");
    sel_pin_verdict v;
    sel_pin_judge(&e, &v);
    assert_int_equal(v.n_regressions, 1);
    assert_int_equal(v.n_inconclusive, 1);
    cJSON *j = sel_pin_details_json(&e, &v, 0);
    const cJSON *pair = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "comparisons"), 1);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(pair, "verdict")), "regression");
    /* a decision recorded without "verdict" reads the same word from its CI */
    char *txt = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    char *old = strstr(txt, ",\"verdict\":\"regression\"");
    assert_non_null(old);
    memmove(old, old + strlen(",\"verdict\":\"regression\""), strlen(old + strlen(",\"verdict\":\"regression\"")) + 1);
    sel_pin_row *rows;
    size_t nr, ni;
    char **issues;
    assert_int_equal(sel_pin_details_rows(txt, &rows, &nr, &issues, &ni, &err), 0);
    assert_int_equal(nr, 2);
    assert_string_equal(rows[0].verdict, "inconclusive");
    assert_string_equal(rows[1].verdict, "regression");
    sel_pin_rows_free(rows, nr);
    lvd_strv_free(issues);
    free(txt);
    sel_pin_eval_free(&e);
}

static void test_no_win_holds(void **state)
{
    (void)state;
    sel_pin_eval e;
    eval_one(&e, 707.0, 10); /* +1 %: below the 1.02 bar */
    e.has_prev = e.prev_would_promote = 1;
    expect_hold(&e, SEL_PIN_NO_WIN, "no significant win");
    sel_pin_eval_free(&e);
}

static void test_failed_check_holds(void **state)
{
    (void)state;
    sel_pin_eval e;
    eval_one(&e, 770.0, 10);
    e.has_prev = e.prev_would_promote = 1;
    sel_pin_add_issue(&e, SHA_M, "cuda", "CUDA0", "check", "fail", "PPL ratio 1.3100");
    expect_hold(&e, SEL_PIN_CORRECTNESS, "candidate failed correctness on CUDA0");
    expect_hold(&e, SEL_PIN_CORRECTNESS, "PPL ratio 1.3100");
    sel_pin_eval_free(&e);

    eval_one(&e, 770.0, 10);
    sel_pin_add_issue(&e, SHA_M, "cpu", "", "check", "missing", NULL);
    expect_hold(&e, SEL_PIN_CORRECTNESS, "candidate not checked on the CPU");
    sel_pin_eval_free(&e);
}

static void test_failed_run_holds(void **state)
{
    (void)state;
    sel_pin_eval e;
    eval_one(&e, 770.0, 10);
    sel_pin_add_issue(&e, SHA_M, "vulkan", "Vulkan0", "run", "failed", "exit 139 (SIGSEGV)");
    expect_hold(&e, SEL_PIN_CANDIDATE_FAILED, "candidate failed on vulkan Vulkan0");
    sel_pin_eval_free(&e);
    /* a candidate that only failed is a decision, not "nothing to compare" */
    sel_pin_eval_init(&e, "b100", "b101", FLAVOUR);
    sel_pin_add_issue(&e, SHA_M, "vulkan", "Vulkan0", "run", "gpu_ignored", NULL);
    expect_hold(&e, SEL_PIN_CANDIDATE_FAILED, "candidate ignored the GPU flags on vulkan");
    sel_pin_eval_free(&e);
}

static void test_few_samples_hold(void **state)
{
    (void)state;
    sel_pin_eval e;
    eval_one(&e, 770.0, 3);
    expect_hold(&e, SEL_PIN_FEW_SAMPLES, "too few samples: tg128 on vulkan (3 candidate, 3 pinned; 5 needed");
    sel_pin_eval_free(&e);
}

static void test_no_candidate(void **state)
{
    (void)state;
    sel_pin_eval e;
    sel_pin_eval_init(&e, "b100", NULL, FLAVOUR);
    expect_hold(&e, SEL_PIN_NO_CANDIDATE, "no candidate measured");
    sel_pin_eval_free(&e);
    sel_pin_eval_init(&e, "b100", "b101", FLAVOUR);
    expect_hold(&e, SEL_PIN_NO_CANDIDATE, "no test ran on both b100 and b101");
    sel_pin_eval_free(&e);
}

static void test_first_night_then_second_promotes(void **state)
{
    (void)state;
    sel_pin_eval e;
    eval_one(&e, 770.0, 10); /* +10 % */
    expect_hold(&e, SEL_PIN_FIRST_NIGHT, "first night: needs a second consecutive night");
    sel_pin_verdict v;
    sel_pin_judge(&e, &v);
    assert_true(v.would_promote);
    assert_int_equal(v.n_wins, 1);
    /* the previous decision kept the pin for another reason */
    e.has_prev = 1;
    expect_hold(&e, SEL_PIN_FIRST_NIGHT, "first night");
    /* the previous one would have promoted, but on the same numbers */
    e.prev_would_promote = 1;
    e.prev_same_sessions = 1;
    expect_hold(&e, SEL_PIN_FIRST_NIGHT, "saw the same measurements");
    e.prev_same_sessions = 0;
    expect_hold(&e, SEL_PIN_PROMOTE, "promote b101: no regression in 1 comparisons, 1 significant win");
    expect_hold(&e, SEL_PIN_PROMOTE, "tg128 on vulkan +9.8 %");
    /* ... unless there is no digest to record */
    free(e.candidate_digest);
    e.candidate_digest = NULL;
    expect_hold(&e, SEL_PIN_NO_DIGEST, "no digest recorded for b101 " FLAVOUR ": fetch it (lvd fetch b101)");
    sel_pin_judge(&e, &v);
    assert_true(v.would_promote);
    /* measured as a local build: the line says what its user does instead */
    e.candidate_local = lvd_xstrdup("b101-local");
    expect_hold(&e, SEL_PIN_NO_DIGEST, "it was measured as a local build (engine b101-local)");
    expect_hold(&e, SEL_PIN_NO_DIGEST, "fetch and measure the release (lvd fetch b101 --flavour " FLAVOUR
                                       "), or move the pin by hand (build = b101 in the pin file)");
    sel_pin_eval_free(&e);
}

static void test_sessions_sorted_distinct(void **state)
{
    (void)state;
    sel_pin_eval e;
    eval_one(&e, 700.0, 5);
    assert_int_equal(e.n_sessions, 2);
    assert_string_equal(e.sessions[0], "night-1");
    assert_string_equal(e.sessions[1], "night-2");
    assert_null(e.sessions[2]);
    sel_pin_eval_free(&e);
}

static void test_details_roundtrip(void **state)
{
    (void)state;
    sel_pin_eval e;
    eval_one(&e, 770.0, 10);
    sel_pin_add_issue(&e, SHA_M, "cuda", "CUDA0", "check", "fail", "PPL ratio 1.3100");
    sel_pin_verdict v;
    sel_pin_judge(&e, &v);
    cJSON *j = sel_pin_details_json(&e, &v, 0);
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    assert_non_null(strstr(text, "\"hold\":\"correctness\""));
    assert_non_null(strstr(text, "\"would_promote\":false"));
    sel_pin_row *rows;
    size_t n, ni;
    char **issues;
    lvd_err err = {0};
    assert_int_equal(sel_pin_details_rows(text, &rows, &n, &issues, &ni, &err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].test, "tg128");
    assert_string_equal(rows[0].backend, "vulkan");
    assert_string_equal(rows[0].params, "Vulkan0, ngl 99");
    assert_true(fabs(rows[0].ratio - e.pairs[0].cmp.ratio) < 1e-12);
    assert_true(fabs(rows[0].ci_lo - e.pairs[0].cmp.ci_lo) < 1e-12);
    assert_true(rows[0].pinned_median > 690 && rows[0].pinned_median < 710);
    assert_int_equal(rows[0].candidate_n, 10);
    assert_true(rows[0].win);
    assert_int_equal(ni, 1);
    assert_non_null(strstr(issues[0], "check cuda CUDA0 (model 973978067daa): fail: PPL ratio 1.3100"));
    sel_pin_rows_free(rows, n);
    lvd_strv_free(issues);
    assert_int_equal(sel_pin_details_rows("[1]", &rows, &n, &issues, &ni, &err), -1);
    assert_non_null(strstr(err.msg, "not a JSON object"));
    free(text);
    sel_pin_eval_free(&e);
}

/* --- through a store ------------------------------------------------------ */

typedef struct fx {
    char *dir;
    char *pin_path;
    store *s;
    int64_t pinned, candidate, cuda_old, cuda_new;
} fx;

static int64_t add_engine(store *s, const char *name, const char *build, const char *origin,
                          const char *flavour, const char *digest, int64_t created)
{
    lvd_engine e = {0};
    e.name = (char *)name;
    e.dir = lvd_xasprintf("/builds/%s", name);
    e.build = (char *)build;
    e.flavour = (char *)flavour;
    e.digest = (char *)digest;
    e.origin = (char *)origin;
    e.created_at = created;
    lvd_err err = {0};
    if (store_engine_put(s, &e, &err))
        fail_msg("%s", err.msg);
    free(e.dir);
    return e.id;
}

static void add_probe(store *s, int64_t engine, const char *backend, const char *selector)
{
    lvd_probe p = {0};
    p.engine_id = engine;
    p.binary = "/builds/x/llama-bench";
    p.probed_at = 1000;
    snprintf(p.backend, sizeof p.backend, "%s", backend);
    lvd_device d = {0};
    snprintf(d.selector, sizeof d.selector, "%s", selector);
    snprintf(d.name, sizeof d.name, "NVIDIA H200");
    snprintf(d.backend, sizeof d.backend, "%s", backend);
    d.total_mib = d.free_mib = 143000;
    p.devices = &d;
    p.n_devices = 1;
    lvd_err err = {0};
    if (store_probe_put(s, &p, &err))
        fail_msg("%s", err.msg);
}

/* One run of tg128 with n samples around mean (first one flagged warm-up). */
static void add_run(store *s, int64_t engine, const char *build, const char *session,
                    const char *device, int64_t started, double mean, uint64_t seed, const char *status)
{
    lvd_run r = {0};
    strcpy(r.artifact, SHA_M);
    r.engine_id = engine;
    r.binary = "/builds/x/llama-bench";
    r.build = (char *)build;
    r.host = "gpu-box";
    r.session = (char *)session;
    lvd_params_init(&r.params);
    snprintf(r.params.device, sizeof r.params.device, "%s", device);
    r.params.ngl = 99;
    r.arm_key = lvd_xasprintf("dev=%s ngl=99", device);
    snprintf(r.status, sizeof r.status, "%s", status);
    r.reason = strcmp(status, "ok") ? "exit 139 (SIGSEGV)" : NULL;
    r.started_at = started;
    strcpy(r.source, "bench");
    lvd_result res = {0};
    if (!strcmp(status, "ok")) {
        strcpy(res.test, "tg128");
        res.n_gen = 128;
        strcpy(res.backends, "Vulkan");
        res.n = 9;
        res.ts = samples(seed, mean, 0.004, res.n);
        res.ts[0] = mean * 0.6;
        res.ns = lvd_xcalloc(res.n, sizeof *res.ns);
        res.warmup = lvd_xcalloc(res.n, 1);
        res.warmup[0] = 1;
        r.results = &res;
        r.n_results = 1;
    }
    lvd_err err = {0};
    if (store_run_put(s, &r, &err))
        fail_msg("%s", err.msg);
    free(res.ts);
    free(res.ns);
    free(res.warmup);
    free(r.arm_key);
}

static void add_check(store *s, int64_t engine, const char *device, const char *status, double ratio,
                      int64_t ran_at)
{
    lvd_check c = {0};
    strcpy(c.artifact, SHA_M);
    c.engine_id = engine;
    snprintf(c.device, sizeof c.device, "%s", device);
    c.host = "gpu-box";
    c.ran_at = ran_at;
    snprintf(c.status, sizeof c.status, "%s", status);
    c.mean_kld = 0.0012;
    c.same_top_p = 99.0;
    c.ppl = 100 * ratio;
    c.ppl_base = 100;
    c.ppl_ratio = ratio;
    lvd_err err = {0};
    if (store_check_put(s, &c, &err))
        fail_msg("%s", err.msg);
}

static const char PIN_TEXT[] = "# pinned for the catalogue; reviewed in diffs\n"
                               "build = b100\n"
                               "\n"
                               "# the Vulkan archive\n"
                               "flavour = " FLAVOUR "\n"
                               "sha256." FLAVOUR " = " DIGEST_OLD "\n";

static int setup(void **state)
{
    fx *f = lvd_xcalloc(1, sizeof *f);
    f->dir = tu_tmpdir();
    f->s = tu_store(f->dir);
    lvd_err err = {0};
    store_artifact a = {.sha256 = SHA_M, .size = 1};
    if (store_artifact_put(f->s, &a, &err))
        fail_msg("%s", err.msg);
    f->pinned = add_engine(f->s, "b100-vulkan", "b100", "fetched", FLAVOUR, DIGEST_OLD, 10);
    f->candidate = add_engine(f->s, "b101-vulkan", "b101", "fetched", FLAVOUR, DIGEST_NEW, 20);
    /* an older fetched build: never the candidate, it is not the newest */
    add_engine(f->s, "b99-vulkan", "b99", "fetched", FLAVOUR, DIGEST_OLD, 30);
    add_probe(f->s, f->pinned, "vulkan", "Vulkan0");
    add_probe(f->s, f->candidate, "vulkan", "Vulkan0");
    f->pin_path = lvd_xasprintf("%s/llama.pin", f->dir);
    tu_write_str(f->pin_path, PIN_TEXT);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    store_close(f->s);
    tu_tmpdir_free(f->dir);
    free(f->pin_path);
    free(f);
    return 0;
}

/* A night: pinned at 700, candidate at cand t/s, two rounds each. */
static void night(fx *f, const char *session, int64_t t0, double cand)
{
    add_run(f->s, f->pinned, "b100", session, "Vulkan0", t0, 700, (uint64_t)t0, "ok");
    add_run(f->s, f->candidate, "b101", session, "Vulkan0", t0 + 1, cand, (uint64_t)t0 + 1, "ok");
    add_run(f->s, f->candidate, "b101", session, "Vulkan0", t0 + 2, cand, (uint64_t)t0 + 2, "ok");
    add_run(f->s, f->pinned, "b100", session, "Vulkan0", t0 + 3, 700, (uint64_t)t0 + 3, "ok");
}

/* Gathers, judges and records (applying with promote); returns the verdict. */
static sel_pin_verdict decide(fx *f, int promote)
{
    builds_pin pin;
    lvd_err err = {0};
    if (builds_pin_load(f->pin_path, &pin, &err))
        fail_msg("%s", err.msg);
    sel_pin_opts o = {.host = "gpu-box"};
    sel_pin_eval e;
    if (sel_pin_gather(f->s, &pin, &o, &e, &err))
        fail_msg("%s", err.msg);
    sel_pin_verdict v;
    sel_pin_judge(&e, &v);
    int applied = 0;
    if (promote && v.promote) {
        if (sel_pin_apply(f->s, &pin, f->pin_path, &e, &err))
            fail_msg("%s", err.msg);
        applied = 1;
    }
    if (sel_pin_record(f->s, &e, &v, applied, NULL, &err))
        fail_msg("%s", err.msg);
    sel_pin_eval_free(&e);
    builds_pin_free(&pin);
    return v;
}

static void test_store_two_nights_promote(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    /* nothing measured yet: exit 1 territory */
    sel_pin_verdict v = decide(f, 1);
    assert_int_equal(v.hold, SEL_PIN_NO_CANDIDATE);
    assert_non_null(strstr(v.rule, "no test ran on both b100 and b101"));

    night(f, "night-1", 86400, 756); /* +8 % */
    v = decide(f, 1);
    if (v.hold != SEL_PIN_FIRST_NIGHT)
        fail_msg("%s", v.rule);
    assert_true(v.would_promote);
    /* asking again on the same numbers is not a second night */
    v = decide(f, 1);
    assert_non_null(strstr(v.rule, "saw the same measurements"));

    /* the pin file is still the old one, byte for byte */
    char *text = tu_read(f->pin_path, NULL);
    assert_string_equal(text, PIN_TEXT);
    free(text);
    struct stat before;
    assert_int_equal(stat(f->pin_path, &before), 0);
    int old_fd = open(f->pin_path, O_RDONLY);
    assert_true(old_fd >= 0);

    night(f, "night-2", 2 * 86400, 757);
    v = decide(f, 1);
    if (v.hold != SEL_PIN_PROMOTE)
        fail_msg("%s", v.rule);

    /* rewritten by rename: a reader of the old file still sees the old bytes */
    char old[sizeof PIN_TEXT] = {0};
    assert_int_equal(read(old_fd, old, sizeof old - 1), (ssize_t)(sizeof PIN_TEXT - 1));
    assert_string_equal(old, PIN_TEXT);
    close(old_fd);
    struct stat after;
    assert_int_equal(stat(f->pin_path, &after), 0);
    assert_true(after.st_ino != before.st_ino);
    text = tu_read(f->pin_path, NULL);
    assert_string_equal(text, "# pinned for the catalogue; reviewed in diffs\n"
                              "build = b101\n"
                              "\n"
                              "# the Vulkan archive\n"
                              "flavour = " FLAVOUR "\n"
                              "sha256." FLAVOUR " = " DIGEST_NEW "\n");
    free(text);

    /* four decisions recorded, newest first; the promotion says so */
    lvd_pin_decision *ds;
    size_t n;
    assert_int_equal(store_pin_decision_list(f->s, 0, &ds, &n, &err), 0);
    assert_int_equal(n, 4);
    assert_string_equal(ds[0].decision, "promote");
    assert_string_equal(ds[0].candidate_build, "b101");
    assert_non_null(strstr(ds[0].details_json, "\"applied\":true"));
    assert_non_null(strstr(ds[0].details_json, "\"sessions\":[\"night-2\"]"));
    assert_string_equal(ds[3].decision, "keep");
    assert_non_null(strstr(ds[3].rule, "no candidate measured"));
    /* the warm-up sample was dropped on both sides: 2 runs x 8 kept */
    sel_pin_row *rows;
    size_t nr, ni;
    char **issues;
    assert_int_equal(sel_pin_details_rows(ds[0].details_json, &rows, &nr, &issues, &ni, &err), 0);
    assert_int_equal(nr, 1);
    assert_int_equal(rows[0].candidate_n, 16);
    assert_int_equal(rows[0].pinned_n, 16);
    assert_true(rows[0].ratio > 1.07 && rows[0].ratio < 1.09);
    sel_pin_rows_free(rows, nr);
    lvd_strv_free(issues);
    store_pin_decision_list_free(ds, n);
}

static void test_store_failed_check_and_run(void **state)
{
    fx *f = *state;
    night(f, "night-1", 86400, 756);
    add_check(f->s, f->pinned, "Vulkan0", "pass", 1.0006, 2000);
    add_check(f->s, f->candidate, "Vulkan0", "fail", 1.31, 2000);
    sel_pin_verdict v = decide(f, 1);
    if (v.hold != SEL_PIN_CORRECTNESS)
        fail_msg("%s", v.rule);
    assert_non_null(strstr(v.rule, "candidate failed correctness on Vulkan0"));
    assert_non_null(strstr(v.rule, "PPL ratio 1.3100"));
    assert_false(v.would_promote);

    /* next night the check passes, but the candidate's runs all crash */
    add_check(f->s, f->candidate, "Vulkan0", "pass", 1.0007, 3000);
    add_run(f->s, f->pinned, "b100", "night-2", "Vulkan0", 2 * 86400, 700, 5, "ok");
    add_run(f->s, f->candidate, "b101", "night-2", "Vulkan0", 2 * 86400 + 1, 0, 0, "failed");
    v = decide(f, 1);
    if (v.hold != SEL_PIN_CANDIDATE_FAILED)
        fail_msg("%s", v.rule);
    assert_non_null(strstr(v.rule, "exit 139 (SIGSEGV)"));
    char *text = tu_read(f->pin_path, NULL);
    assert_string_equal(text, PIN_TEXT);
    free(text);
}

static void test_store_explicit_candidate_and_no_digest(void **state)
{
    fx *f = *state;
    /* a locally registered build has no release digest to record */
    int64_t local = add_engine(f->s, "b102-local", "b102", "registered", "local", NULL, 40);
    add_probe(f->s, local, "vulkan", "Vulkan0");
    for (int k = 1; k <= 2; k++) {
        char session[16];
        snprintf(session, sizeof session, "night-%d", k);
        add_run(f->s, f->pinned, "b100", session, "Vulkan0", k * 86400, 700, (uint64_t)k, "ok");
        add_run(f->s, local, "b102", session, "Vulkan0", k * 86400 + 1, 760, (uint64_t)k + 10, "ok");
    }
    builds_pin pin;
    lvd_err err = {0};
    assert_int_equal(builds_pin_load(f->pin_path, &pin, &err), 0);
    sel_pin_opts o = {.host = "gpu-box", .candidate = "b102"};
    sel_pin_eval e;
    assert_int_equal(sel_pin_gather(f->s, &pin, &o, &e, &err), 0);
    assert_string_equal(e.candidate_build, "b102");
    assert_null(e.candidate_digest);
    assert_int_equal(e.n_pairs, 1);
    e.has_prev = e.prev_would_promote = 1;
    expect_hold(&e, SEL_PIN_NO_DIGEST, "no digest recorded for b102");
    /* the registered engine is named, and what its user does instead */
    assert_string_equal(e.candidate_local, "b102-local");
    expect_hold(&e, SEL_PIN_NO_DIGEST, "it was measured as a local build (engine b102-local)");
    sel_pin_eval_free(&e);
    /* without --candidate the newest fetched build other than the pin is taken */
    o.candidate = NULL;
    assert_int_equal(sel_pin_gather(f->s, &pin, &o, &e, &err), 0);
    assert_string_equal(e.candidate_build, "b101");
    assert_string_equal(e.candidate_digest, DIGEST_NEW);
    assert_null(e.candidate_local); /* b101 is fetched only */
    sel_pin_eval_free(&e);
    builds_pin_free(&pin);
}

int main(void)
{
    setenv("LVD_HOST", "gpu-box", 1); /* the stores' runs are gpu-box's, and so are its engines */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regression_holds),
        cmocka_unit_test(test_regression_wins_elsewhere_still_holds),
        cmocka_unit_test(test_small_loss_inside_floor_is_no_regression),
        cmocka_unit_test(test_wide_ci_is_inconclusive_not_regression),
        cmocka_unit_test(test_shown_slower_is_regression),
        cmocka_unit_test(test_no_win_holds),
        cmocka_unit_test(test_failed_check_holds),
        cmocka_unit_test(test_failed_run_holds),
        cmocka_unit_test(test_few_samples_hold),
        cmocka_unit_test(test_no_candidate),
        cmocka_unit_test(test_first_night_then_second_promotes),
        cmocka_unit_test(test_sessions_sorted_distinct),
        cmocka_unit_test(test_details_roundtrip),
        cmocka_unit_test_setup_teardown(test_store_two_nights_promote, setup, teardown),
        cmocka_unit_test_setup_teardown(test_store_failed_check_and_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_store_explicit_candidate_and_no_digest, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
