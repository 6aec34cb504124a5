/* test_fit.c: lvd fit's library (fit/): the bisection's loads counted
 * against log2(range) + 2 and its 1 % bracket, over a simulated engine whose
 * allocation fails above a known context; the KV pairs; the margin of
 * --ctx max; the rule of staleness; the argv of one load; the store's
 * ceilings (latest, list, newest per key). */
#include "tests/support/testutil.h"

#include "builds/older.h"
#include "evidence/model.h"
#include "fit/ceiling.h"
#include "fit/fit.h"
#include "fit/load.h"
#include "fit/search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A simulated engine: loads up to limit fit. */
typedef struct sim {
    uint32_t limit;
    int loads;
    int fail_at;       /* the load that cannot be tried (-1 = none) */
} sim;

static int sim_load(void *arg, uint32_t n_ctx, int *fits, lvd_err *err)
{
    sim *s = arg;
    if (s->loads++ == s->fail_at)
        return lvd_errf(err, "cannot execute");
    *fits = n_ctx <= s->limit;
    return 0;
}

static void search_case(uint32_t start, uint32_t top, uint32_t limit)
{
    sim s = {.limit = limit, .fail_at = -1};
    fit_search_out o;
    lvd_err err = {{0}};
    assert_int_equal(fit_search(start, top, sim_load, &s, &o, &err), 0);
    assert_int_equal(o.probes, s.loads);
    uint32_t lo = start < top ? start : top, range = top > lo ? top - lo : 1;
    if (limit < lo)
        range = lo - FIT_MIN_CTX > 0 ? lo - FIT_MIN_CTX : 1;
    int bound = (int)floor(log2((double)range)) + 2;
    if (o.probes > bound)
        fail_msg("start %u top %u limit %u: %d loads, more than log2(%u) + 2 = %d", start, top, limit, o.probes,
                 range, bound);
    if (limit >= top) {
        assert_true(o.capped);
        assert_int_equal(o.ceiling, top);
        return;
    }
    if (limit < FIT_MIN_CTX) {
        assert_int_equal(o.ceiling, 0);
        return;
    }
    assert_false(o.capped);
    assert_true(o.ceiling <= limit);                          /* it loaded */
    if ((double)(limit - o.ceiling) > 0.01 * o.ceiling)      /* within 1 % */
        fail_msg("limit %u: ceiling %u is not within 1 %%", limit, o.ceiling);
    assert_true(o.above > limit);                             /* it did not */
}

static void test_search_counts_loads(void **state)
{
    (void)state;
    /* above the prediction, below it, at either end, beyond the top, nothing */
    search_case(4096, 131072, 50000);
    search_case(4096, 131072, 4096);
    search_case(4096, 131072, 4097);
    search_case(4096, 131072, 131071);
    search_case(4096, 131072, 131072);
    search_case(4096, 131072, 999999);
    search_case(180224, 262144, 176128);   /* a prediction too high: CUDA */
    search_case(180224, 262144, 204800);   /* and one too low: Vulkan */
    search_case(300000, 262144, 204800);   /* a prediction above the top */
    search_case(4096, 131072, 300);
    search_case(4096, 131072, 100);
    for (uint32_t limit = 257; limit < 1000000; limit = limit * 3 + 11)
        search_case(8192, 1048576, limit);
}

static void test_search_load_error(void **state)
{
    (void)state;
    sim s = {.limit = 50000, .fail_at = 2};
    fit_search_out o;
    lvd_err err = {{0}};
    assert_int_equal(fit_search(4096, 131072, sim_load, &s, &o, &err), -1);
    assert_string_equal(err.msg, "cannot execute");
}

static void test_pairs(void **state)
{
    (void)state;
    fit_pair *p;
    size_t n;
    lvd_err err = {{0}};
    assert_int_equal(fit_pairs_parse(NULL, NULL, &p, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(p[0].type_k, "f16");
    assert_string_equal(p[0].type_v, "f16");
    free(p);
    assert_int_equal(fit_pairs_parse("f16,q8_0", "f16,q8_0", &p, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(p[1].type_k, "q8_0");
    assert_string_equal(p[1].type_v, "q8_0");
    free(p);
    assert_int_equal(fit_pairs_parse("q8_0", "f16,q4_0", &p, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(p[1].type_k, "q8_0");
    assert_string_equal(p[1].type_v, "q4_0");
    free(p);
    assert_int_equal(fit_pairs_parse("f16,q8_0,q4_0", "f16,q8_0", &p, &n, &err), -1);
    assert_non_null(strstr(err.msg, "matched"));
    assert_int_equal(fit_pairs_parse("f16", "q9_9", &p, &n, &err), -1);
}

static void test_serve_margin(void **state)
{
    (void)state;
    store_ceiling c = {.ceiling = 176128};
    /* 176128 less 5 % = 167321.6, down to a multiple of 256 */
    assert_int_equal(fit_serve_ctx(&c), 167168);
    c.capped = 1;
    assert_int_equal(fit_serve_ctx(&c), 176128);
    c.capped = 0;
    c.ceiling = 200;
    assert_int_equal(fit_serve_ctx(&c), 200);
    c.ceiling = 0;
    assert_int_equal(fit_serve_ctx(&c), 0);
}

static void test_fresh(void **state)
{
    (void)state;
    lvd_engine e = {.name = "b9749-cuda", .build = "b9749"};
    lvd_probe p = {.files = "llama-bench:1:2:3"};
    store_ceiling c = {.engine_key = fit_engine_key(&e, &p), .placement = "ngl=33 ncmoe=0 ub=512"};
    char why[256];
    assert_int_equal(fit_ceiling_fresh(&c, &e, &p, "ngl=33 ncmoe=0 ub=512", why, sizeof why), 1);
    assert_int_equal(fit_ceiling_fresh(&c, &e, &p, "ngl=20 ncmoe=0 ub=512", why, sizeof why), 0);
    assert_non_null(strstr(why, "the placement is now ngl=20"));
    lvd_probe changed = {.files = "llama-bench:1:2:4"};
    assert_int_equal(fit_ceiling_fresh(&c, &e, &changed, "ngl=33 ncmoe=0 ub=512", why, sizeof why), 0);
    assert_non_null(strstr(why, "changed"));
    lvd_engine rebuilt = {.name = "b9749-cuda", .build = "b9800"};
    assert_int_equal(fit_ceiling_fresh(&c, &rebuilt, &p, "ngl=33 ncmoe=0 ub=512", why, sizeof why), 0);
    free(c.engine_key);
}

static void test_load_argv(void **state)
{
    (void)state;
    fit_target t = {.binary = "/e/llama-bench", .model = "m.gguf", .timeout_ms = 1000};
    lvd_params_init(&t.params);
    snprintf(t.params.device, sizeof t.params.device, "CUDA0");
    t.params.ngl = 33;
    t.params.ubatch = 256;
    snprintf(t.params.type_k, sizeof t.params.type_k, "q8_0");
    char **v = fit_load_argv(&t, 176128);
    lvd_sb sb = {0};
    for (size_t i = 0; v[i]; i++)
        lvd_sb_addf(&sb, "%s%s", i ? " " : "", v[i]);
    assert_string_equal(lvd_sb_str(&sb), "/e/llama-bench -m m.gguf -d 176127 -p 1 -n 1 -r 1 -o jsonl --no-warmup"
                                         " -dev CUDA0 -ngl 33 -ub 256 -ctk q8_0 -ctv f16");
    lvd_sb_free(&sb);
    lvd_strv_free(v);
}

static void put(store *s, const char *art, int64_t engine, const char *dev, const char *k, int64_t ceiling)
{
    store_ceiling c = {.engine_id = engine, .engine_key = "b|f", .placement = "cpu", .ceiling = ceiling,
                       .max_ctx = 262144, .predicted = -1, .free_mib = 1000, .probes = 9, .host = "h"};
    snprintf(c.artifact, sizeof c.artifact, "%s", art);
    snprintf(c.device, sizeof c.device, "%s", dev);
    snprintf(c.type_k, sizeof c.type_k, "%s", k);
    snprintf(c.type_v, sizeof c.type_v, "%s", k);
    lvd_err err = {{0}};
    assert_int_equal(store_ceiling_put(s, &c, &err), 0);
    assert_true(c.id > 0);
}

static void test_store_ceilings(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    store *s = tu_store(dir);
    lvd_err err = {{0}};
    char art[65];
    memset(art, 'a', 64);
    art[64] = '\0';
    store_artifact a = {.size = 1};
    memcpy(a.sha256, art, sizeof art);
    assert_int_equal(store_artifact_put(s, &a, &err), 0);
    lvd_engine e1 = {.name = "one", .dir = "/e1", .build = "b9749", .origin = "registered"};
    lvd_engine e2 = {.name = "two", .dir = "/e2", .build = "b9749", .origin = "registered"};
    assert_int_equal(store_engine_put(s, &e1, &err), 0);
    assert_int_equal(store_engine_put(s, &e2, &err), 0);
    put(s, art, e1.id, "CUDA0", "f16", 1000);
    put(s, art, e1.id, "CUDA0", "f16", 2000); /* newer */
    put(s, art, e1.id, "CUDA0", "q8_0", 3000);
    put(s, art, e2.id, "Vulkan0", "f16", 4000);
    store_ceiling c;
    assert_int_equal(store_ceiling_latest(s, art, "h", e1.id, "CUDA0", "f16", "f16", &c, &err), 0);
    assert_int_equal(c.ceiling, 2000);
    assert_int_equal(c.free_mib, 1000);
    assert_int_equal(c.predicted, -1);
    assert_string_equal(c.placement, "cpu");
    store_ceiling_free(&c);
    assert_int_equal(store_ceiling_latest(s, art, "other", e1.id, "CUDA0", "f16", "f16", &c, &err), 1);
    store_ceiling *v;
    size_t n;
    assert_int_equal(store_ceiling_list(s, art, "h", &v, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(v[0].ceiling, 2000);
    assert_int_equal(v[1].ceiling, 3000);
    assert_int_equal(v[2].ceiling, 4000);
    store_ceiling_list_free(v, n);
    store_close(s);
    tu_tmpdir_free(dir);
}

static void test_cost_in_window(void **state)
{
    (void)state;
    ev_ceiling c[4] = {
        {.engine = "cuda", .device = "CUDA0", .kv = "f16/f16", .ceiling = 176128},
        {.engine = "vulkan", .device = "Vulkan0", .kv = "f16/f16", .ceiling = 204800},
        {.engine = "cuda", .device = "CUDA0", .kv = "q8_0/q8_0", .ceiling = 300000}, /* alone in its pair */
        {.engine = "old", .device = "CUDA1", .kv = "f16/f16", .ceiling = 999999, .stale = "changed"},
    };
    ev_model m = {.ceilings = c, .n_ceilings = 4};
    ev_ceilings_cost(&m);
    assert_true(fabs(c[0].cost_pct - 14.0) < 0.01);
    assert_string_equal(c[0].best, "vulkan Vulkan0");
    assert_true(c[1].cost_pct == 0);
    assert_true(isnan(c[2].cost_pct));
    assert_true(isnan(c[3].cost_pct));
    for (int i = 0; i < 4; i++)
        free(c[i].best);
}

static void test_older_than_pin(void **state)
{
    (void)state;
    char msg[512];
    lvd_engine e = {.name = "b10500-cuda", .dir = "/src/llama.cpp/build/bin", .build = "b10500",
                    .origin = "registered"};
    assert_int_equal(builds_local_older(&e, "b10715", msg, sizeof msg), 1);
    assert_string_equal(msg, "b10500-cuda is older than the pin b10715: rebuild at b10715 (git checkout b10715,"
                             " build, then lvd fetch --register /src/llama.cpp/build/bin --build b10715)");
    assert_int_equal(builds_local_older(&e, "b10500", msg, sizeof msg), 0);
    assert_string_equal(msg, "");
    assert_int_equal(builds_local_older(&e, "b9999", msg, sizeof msg), 0);
    assert_int_equal(builds_local_older(&e, "latest", msg, sizeof msg), 0);
    e.origin = "fetched"; /* a release build older than the pin is a candidate or the old pin, not a local build */
    assert_int_equal(builds_local_older(&e, "b10715", msg, sizeof msg), 0);
    e.origin = "registered";
    e.build = "local";
    assert_int_equal(builds_local_older(&e, "b10715", msg, sizeof msg), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_search_counts_loads), cmocka_unit_test(test_search_load_error),
        cmocka_unit_test(test_pairs),               cmocka_unit_test(test_serve_margin),
        cmocka_unit_test(test_fresh),               cmocka_unit_test(test_load_argv),
        cmocka_unit_test(test_store_ceilings),      cmocka_unit_test(test_cost_in_window),
        cmocka_unit_test(test_older_than_pin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
