/* test_fleet.c: the fleet views on known truth: the order-
 * statistic interval of a median (coverage by the binomial, the range below
 * six values, none for one); the backend map from hand-built hosts (each
 * backend against the best other one on a card, per host the median over
 * models, across hosts the median with n hosts; a card with one backend has
 * no cell); pin --fleet's rule over hand-built host evaluations (a host's
 * regression holds and is named, correctness outranks it, no host measured,
 * no win anywhere, a win on one host with none elsewhere reaches the fleet's
 * first-night rule); and the store side: the hosts of a store, and the
 * fallback copy (this host's verdicts, ids kept, the old copy kept when a
 * refresh fails). */
#include "tests/support/testutil.h"

#include "common/util.h"
#include "evidence/fleet.h"
#include "select/pin_fleet.h"
#include "stats/median_ci.h"
#include "stats/stats.h"
#include "store/fleetdb.h"
#include "store/store.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHA_M "973978067daa0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_N "1111111111111111111111111111111111111111111111111111111111111111"
#define GTX "NVIDIA GeForce GTX 1060 6GB"

/* n throughputs around mean, spread by relative sd on a fixed pattern that
 * seed shifts (deterministic). */
static double *samples(uint64_t seed, double mean, double sd, size_t n)
{
    double *v = lvd_xmalloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = mean * (1.0 + sd * sin((double)(i + 1) * 1.7 + (double)seed));
    return v;
}

/* --- the interval of a median ---------------------------------------------- */

static void test_median_ci(void **state)
{
    (void)state;
    stats_median_ci c;
    stats_median_ci_exact(NULL, 0, 0.95, &c);
    assert_true(isnan(c.median) && c.n == 0);
    double one[] = {1.4};
    stats_median_ci_exact(one, 1, 0.95, &c);
    assert_true(c.median == 1.4 && isnan(c.lo) && isnan(c.hi) && isnan(c.coverage));
    /* three hosts: the range, coverage 1 - 2/8 */
    double three[] = {1.5, 1.3, 1.4};
    stats_median_ci_exact(three, 3, 0.95, &c);
    assert_true(c.median == 1.4 && c.lo == 1.3 && c.hi == 1.5);
    assert_true(fabs(c.coverage - 0.75) < 1e-12 && c.short_of_level);
    /* six: the range reaches 1 - 2/64 = 96.9 % */
    double six[] = {6, 1, 5, 2, 4, 3};
    stats_median_ci_exact(six, 6, 0.95, &c);
    assert_true(c.lo == 1 && c.hi == 6 && !c.short_of_level);
    assert_true(fabs(c.coverage - (1.0 - 2.0 / 64.0)) < 1e-12);
    /* ten: [x_2, x_9], coverage 1 - 2 * 11/1024 */
    double ten[10];
    for (int i = 0; i < 10; i++)
        ten[i] = 10 - i;
    stats_median_ci_exact(ten, 10, 0.95, &c);
    assert_true(c.lo == 2 && c.hi == 9);
    assert_true(fabs(c.coverage - (1.0 - 22.0 / 1024.0)) < 1e-12);
    /* twenty: the textbook [x_6, x_15], 95.9 % */
    double twenty[20];
    for (int i = 0; i < 20; i++)
        twenty[i] = i + 1;
    stats_median_ci_exact(twenty, 20, 0.95, &c);
    assert_true(c.lo == 6 && c.hi == 15 && !c.short_of_level);
    assert_true(fabs(c.coverage - 0.9586) < 1e-4);
}

/* --- the backend map ------------------------------------------------------- */

/* Adds an arm of 10 samples around mean (0.3 % noise). */
static void arm(ev_fleet_host *h, const char *sha, const char *card, const char *backend, const char *test,
                double mean, uint64_t seed)
{
    double *v = samples(seed, mean, 0.003, 10);
    ev_fleet_add_arm(h, sha, card, backend, test, test[0] == 't', v, 10);
    free(v);
}

static ev_fleet_host *add_host(ev_fleet *f, const char *name)
{
    f->hosts = lvd_xrealloc(f->hosts, (f->n_hosts + 1) * sizeof *f->hosts);
    ev_fleet_host *h = &f->hosts[f->n_hosts++];
    memset(h, 0, sizeof *h);
    h->host = lvd_xstrdup(name);
    return h;
}

static void test_backend_map(void **state)
{
    (void)state;
    ev_fleet f = {0};
    lvd_err err = {0};
    /* box-1: Vulkan +40 % on the GTX; a slower Vulkan arm never counts */
    ev_fleet_host *h = add_host(&f, "box-1");
    arm(h, SHA_M, GTX, "cuda", "tg128", 500, 1);
    arm(h, SHA_M, GTX, "vulkan", "tg128", 700, 2);
    arm(h, SHA_M, GTX, "vulkan", "tg128", 300, 3);
    /* box-2: two models, +50 % and +30 %: the host's figure is their median */
    h = add_host(&f, "box-2");
    arm(h, SHA_M, GTX, "cuda", "tg128", 500, 4);
    arm(h, SHA_M, GTX, "vulkan", "tg128", 750, 5);
    arm(h, SHA_N, GTX, "cuda", "tg128", 500, 6);
    arm(h, SHA_N, GTX, "vulkan", "tg128", 650, 7);
    /* box-3: three backends on an AMD card; ROCm against the best other (Vulkan) */
    h = add_host(&f, "box-3");
    arm(h, SHA_M, "AMD Radeon RX 7900 XTX", "rocm", "tg128", 900, 8);
    arm(h, SHA_M, "AMD Radeon RX 7900 XTX", "vulkan", "tg128", 1000, 9);
    arm(h, SHA_M, "AMD Radeon RX 7900 XTX", "cpu", "tg128", 50, 10);
    /* box-4: one backend only on its card: nothing to compare */
    h = add_host(&f, "box-4");
    arm(h, SHA_M, "NVIDIA H200", "cuda", "tg128", 900, 11);
    arm(h, SHA_M, "NVIDIA H200", "cuda", "pp512", 9000, 12);
    for (size_t i = 0; i < f.n_hosts; i++)
        assert_int_equal(ev_fleet_host_ratios(&f.hosts[i], &err), 0);
    assert_int_equal(f.hosts[3].n_ratios, 0);
    ev_fleet_map(&f);

    const ev_fleet_cell *c = ev_fleet_cell_of(&f, GTX, "vulkan", 1);
    assert_non_null(c);
    assert_int_equal(c->ci.n, 2);
    assert_true(fabs(c->ci.median - 1.4) < 0.01); /* median of 1.4 and median(1.5, 1.3) */
    assert_string_equal(c->hosts[0], "box-1");
    assert_string_equal(c->hosts[1], "box-2");
    c = ev_fleet_cell_of(&f, GTX, "cuda", 1);
    assert_true(c && fabs(c->ci.median - (1 / 1.4 + (1 / 1.5 + 1 / 1.3) / 2) / 2) < 0.01);
    c = ev_fleet_cell_of(&f, "AMD Radeon RX 7900 XTX", "rocm", 1);
    assert_true(c && c->ci.n == 1 && fabs(c->ci.median - 0.9) < 0.01 && isnan(c->ci.lo));
    c = ev_fleet_cell_of(&f, "AMD Radeon RX 7900 XTX", "vulkan", 1);
    assert_true(c && fabs(c->ci.median - 1000.0 / 900.0) < 0.01);
    assert_null(ev_fleet_cell_of(&f, "NVIDIA H200", "cuda", 1));
    assert_null(ev_fleet_cell_of(&f, GTX, "vulkan", 0)); /* no pp measured there */
    assert_int_equal(f.n_cards, 2);
    assert_string_equal(f.backends[0], "cpu");
    assert_int_equal(f.n_backends, 4);

    lvd_sb sb = {0};
    ev_fleet_render_markdown(&f, &sb);
    const char *md = lvd_sb_str(&sb);
    assert_non_null(strstr(md, "4 hosts write this store"));
    assert_non_null(strstr(md, "| AMD Radeon RX 7900 XTX | -95.0 % n = 1 | -"));
    assert_non_null(strstr(md, "range, 50.0 % coverage n = 2"));
    assert_null(strstr(md, "### Backend map: pp"));
    lvd_sb_free(&sb);
    ev_fleet_free(&f);
}

/* --- pin --fleet ----------------------------------------------------------- */

/* A host's evaluation: one tg128 pair, candidate at cand against 700 t/s
 * (n 0: the host did not measure both builds). */
static void pin_host(sel_pin_fleet *f, const char *host, double cand, size_t n, uint64_t seed)
{
    sel_pin_eval e;
    sel_pin_eval_init(&e, "b100", "b101", "bin-ubuntu-vulkan-x64");
    e.candidate_digest = lvd_xstrdup(SHA_N);
    if (n) {
        double *c = samples(seed, cand, 0.003, n), *p = samples(seed + 100, 700.0, 0.003, n);
        lvd_err err = {0};
        assert_int_equal(sel_pin_add_pair(&e, SHA_M, "vulkan", "dev=Vulkan0", NULL, "tg128", 1, 2, c, n, p, n, &err),
                         0);
        free(c);
        free(p);
        char session[64];
        snprintf(session, sizeof session, "%s-night", host);
        sel_pin_add_session(&e, session);
    }
    sel_pin_fleet_add(f, host, &e);
}

static void expect_fleet(sel_pin_fleet *f, sel_pin_hold hold, const char *rule, const char *held_by)
{
    sel_pin_fleet_judge(f);
    if (f->v.hold != hold || !strstr(f->v.rule, rule))
        fail_msg("hold %s (%s), expected %s with '%s'", sel_pin_hold_name(f->v.hold), f->v.rule,
                 sel_pin_hold_name(hold), rule);
    if (held_by)
        assert_string_equal(f->held_by, held_by);
    else
        assert_null(f->held_by);
    sel_pin_fleet_free(f);
}

static void test_pin_fleet(void **state)
{
    (void)state;
    sel_pin_fleet f = {0};
    /* two wins and a -4 % host: held, that host named */
    pin_host(&f, "gpu-box-1", 770, 10, 1);
    pin_host(&f, "gpu-box-2", 770, 10, 2);
    pin_host(&f, "gpu-box-3", 672, 10, 3);
    assert_int_equal(f.all.n_pairs, 3);
    assert_int_equal(f.all.n_sessions, 3);
    expect_fleet(&f, SEL_PIN_REGRESSION, "regression on gpu-box-3: tg128 on vulkan -4.", "gpu-box-3");

    /* two regressing hosts: the first named, the other counted */
    memset(&f, 0, sizeof f);
    pin_host(&f, "a", 672, 10, 1);
    pin_host(&f, "b", 672, 10, 2);
    pin_host(&f, "c", 770, 10, 3);
    expect_fleet(&f, SEL_PIN_REGRESSION, "regression on a: tg128 on vulkan -4.", "a");
    memset(&f, 0, sizeof f);
    pin_host(&f, "a", 672, 10, 1);
    pin_host(&f, "b", 672, 10, 2);
    sel_pin_fleet_judge(&f);
    assert_non_null(strstr(f.v.rule, "(and 1 other host)"));
    sel_pin_fleet_free(&f);

    /* a failed check on one host outranks another host's regression */
    memset(&f, 0, sizeof f);
    pin_host(&f, "a", 672, 10, 1);
    pin_host(&f, "b", 770, 10, 2);
    sel_pin_add_issue(&f.hosts[1].e, SHA_M, "vulkan", "Vulkan0", "check", "fail", "KLD 0.5");
    expect_fleet(&f, SEL_PIN_CORRECTNESS, "correctness on b: candidate failed correctness on Vulkan0", "b");

    /* a host that did not measure both builds is not counted */
    memset(&f, 0, sizeof f);
    pin_host(&f, "a", 0, 0, 1);
    pin_host(&f, "b", 0, 0, 2);
    expect_fleet(&f, SEL_PIN_NO_CANDIDATE, "none of the 2 hosts measured both b100 and b101", NULL);
    memset(&f, 0, sizeof f);
    pin_host(&f, "a", 0, 0, 1);
    pin_host(&f, "b", 700, 10, 2);
    expect_fleet(&f, SEL_PIN_NO_WIN, "no significant win on any of the 1 hosts", NULL);

    /* a win on one host, neutral elsewhere: the fleet's own rule 7 */
    memset(&f, 0, sizeof f);
    pin_host(&f, "a", 770, 10, 1);
    pin_host(&f, "b", 700, 10, 2);
    pin_host(&f, "c", 0, 0, 3);
    expect_fleet(&f, SEL_PIN_FIRST_NIGHT, "first night: needs a second consecutive night; 2 hosts measured", NULL);
    /* ... and with a previous would-promote decision on other sessions: promote */
    memset(&f, 0, sizeof f);
    pin_host(&f, "a", 770, 10, 1);
    pin_host(&f, "b", 700, 10, 2);
    f.all.has_prev = f.all.prev_would_promote = 1;
    expect_fleet(&f, SEL_PIN_PROMOTE, "promote b101: no regression in 2 comparisons, 1 significant win", NULL);
}

/* --- the store: hosts and the fallback copy -------------------------------- */


static void run(store *s, int64_t eid, const char *host)
{
    lvd_run r;
    memset(&r, 0, sizeof r);
    strcpy(r.artifact, SHA_M);
    r.engine_id = eid;
    r.binary = lvd_xstrdup("/e/llama-bench");
    r.build = lvd_xstrdup("b9749");
    r.host = lvd_xstrdup(host);
    lvd_params_init(&r.params);
    r.arm_key = lvd_xstrdup("k");
    strcpy(r.status, "ok");
    r.started_at = 1000;
    strcpy(r.source, "bench");
    lvd_err err = {0};
    if (store_run_put(s, &r, &err))
        fail_msg("%s", err.msg);
    lvd_run_free(&r);
}

static void verdict(store *s, int64_t eid, const char *host)
{
    lvd_verdict v = {0};
    strcpy(v.artifact, SHA_M);
    v.host = (char *)host;
    v.objective = "tg";
    v.engine_id = eid;
    lvd_params_init(&v.params);
    v.arm_key = "k";
    v.rule = "win";
    v.fingerprint = "[]";
    lvd_err err = {0};
    if (store_verdict_put(s, &v, &err))
        fail_msg("%s", err.msg);
}

static void test_store_fleet(void **state)
{
    tu_storefx *f = *state;
    lvd_err err = {0};
    store_artifact a = {.sha256 = SHA_M, .size = 1};
    assert_int_equal(store_artifact_put(f->s, &a, &err), 0);
    char **hosts;
    size_t n;
    assert_int_equal(store_fleet_hosts(f->s, &hosts, &n, &err), 0);
    assert_true(n == 0 && hosts == NULL);
    int64_t e1 = tu_engine_put(f->s, "one", NULL), e2 = tu_engine_put(f->s, "two", NULL);
    int64_t e3 = tu_engine_put(f->s, "three", NULL);
    run(f->s, e1, "gpu-box-2");
    run(f->s, e2, "gpu-box-1");
    run(f->s, e3, "gpu-box-2");
    assert_int_equal(store_fleet_hosts(f->s, &hosts, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(hosts[0], "gpu-box-1");
    assert_string_equal(hosts[1], "gpu-box-2");
    assert_null(hosts[2]);
    lvd_strv_free(hosts);

    /* the copy: box-2's verdict names engine three by its id */
    verdict(f->s, e2, "gpu-box-1");
    verdict(f->s, e3, "gpu-box-2");
    char *fb = lvd_xasprintf("%s/fallback.db", f->dir);
    assert_int_equal(store_fallback_refresh(f->s, fb, "gpu-box-2", &err), 0);
    store *c;
    assert_int_equal(store_open(fb, STORE_OPEN_READONLY, &c, &err), 0);
    lvd_verdict v;
    assert_int_equal(store_verdict_latest(c, SHA_M, "gpu-box-2", "tg", &v, &err), 0);
    assert_int_equal(v.engine_id, e3);
    lvd_verdict_free(&v);
    assert_int_equal(store_verdict_latest(c, SHA_M, "gpu-box-1", "tg", &v, &err), 1);
    lvd_engine e;
    assert_int_equal(store_engine_get(c, e3, &e, &err), 0);
    assert_string_equal(e.name, "three");
    lvd_engine_free(&e);
    store_counts k;
    assert_int_equal(store_counts_get(c, &k, &err), 0);
    assert_true(k.runs == 0 && k.engines == 3 && k.artifacts == 1 && k.verdicts == 1);
    store_close(c);

    /* the store itself is never its own copy */
    assert_int_equal(store_fallback_refresh(f->s, f->path, "gpu-box-2", &err), -1);
    assert_non_null(strstr(err.msg, "would replace the store itself"));
    char *alias = lvd_xasprintf("%s/./store.db", f->dir);
    assert_int_equal(store_fallback_refresh(f->s, alias, "gpu-box-2", &err), -1);
    free(alias);
    assert_int_equal(store_counts_get(f->s, &k, &err), 0);
    assert_int_equal(k.runs, 3);

    /* a refresh that fails leaves the copy as it was */
    size_t len0, len1;
    char *before = tu_read(fb, &len0);
    char *tmp = lvd_xasprintf("%s.tmp", fb);
    assert_int_equal(mkdir(tmp, 0700), 0); /* the temporary file cannot be created */
    verdict(f->s, e1, "gpu-box-2");
    assert_int_equal(store_fallback_refresh(f->s, fb, "gpu-box-2", &err), -1);
    char *after = tu_read(fb, &len1);
    assert_true(len0 == len1 && !memcmp(before, after, len0));
    rmdir(tmp);
    assert_int_equal(store_fallback_refresh(f->s, fb, "gpu-box-2", &err), 0);
    assert_int_equal(store_open(fb, STORE_OPEN_READONLY, &c, &err), 0);
    assert_int_equal(store_verdict_latest(c, SHA_M, "gpu-box-2", "tg", &v, &err), 0);
    assert_int_equal(v.engine_id, e1); /* the newer verdict */
    lvd_verdict_free(&v);
    store_close(c);
    free(before);
    free(after);
    free(tmp);
    free(fb);
}

/* A fleet decision recorded (sel_pin_record with the fleet) keeps every
 * host's outcome and each comparison's host in its document, as `lvd pin
 * --fleet --json` prints them: the next night and the page read the record. */
static void test_pin_fleet_record(void **state)
{
    tu_storefx *fx = *state;
    sel_pin_fleet f = {0};
    pin_host(&f, "gpu-box-1", 770, 10, 1);
    pin_host(&f, "gpu-box-2", 672, 10, 2);
    pin_host(&f, "gpu-box-3", 770, 0, 3); /* measured one build only */
    sel_pin_fleet_judge(&f);
    lvd_err err = {0};
    if (sel_pin_record(fx->s, &f.all, &f.v, 0, &f, &err))
        fail_msg("%s", err.msg);
    lvd_pin_decision d;
    assert_int_equal(store_pin_decision_latest(fx->s, "b100", "b101", &d, &err), 0);
    cJSON *j = cJSON_Parse(d.details_json);
    assert_non_null(j);
    const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(j, "hosts");
    assert_int_equal(cJSON_GetArraySize(hosts), 3);
    static const char *const want[][3] = {{"gpu-box-1", "true", "false"}, {"gpu-box-2", "true", "true"},
                                          {"gpu-box-3", "false", "false"}};
    for (int i = 0; i < 3; i++) {
        const cJSON *h = cJSON_GetArrayItem(hosts, i);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(h, "host")), want[i][0]);
        assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(h, "measured")), !strcmp(want[i][1], "true"));
        assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(h, "held_the_fleet")), !strcmp(want[i][2], "true"));
    }
    const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "comparisons"), 1);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(c, "host")), "gpu-box-2");
    cJSON_Delete(j);
    lvd_pin_decision_free(&d);
    sel_pin_fleet_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median_ci),
        cmocka_unit_test(test_backend_map),
        cmocka_unit_test(test_pin_fleet),
        cmocka_unit_test_setup_teardown(test_store_fleet, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_pin_fleet_record, tu_store_setup, tu_store_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
