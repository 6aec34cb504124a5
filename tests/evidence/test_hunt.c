/* test_hunt.c: the evidence page's regression hunting (evidence/hunt.h) from
 * a store: twenty nights of one arm where the speed drops 8 % on night 11
 * under the same build while the driver changes (the Drift section names
 * the step, its CI and the driver change), the newest pin decision made on
 * sessions after it (said so), and a finished bisect (the culprit with its
 * compare link under the pin decision); a hunt's session is in no run list
 * but its own. */
#include "tests/support/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "evidence/model.h"
#include "evidence/render.h"
#include "stats/stats.h"
#include "store/bisectdb.h"
#include "store/factsdb.h"
#include "store/identify.h"

#define NIGHTS 20
#define DAY 86400
#define T0 1793491200 /* 2026-11-01 00:00 UTC */

static void night_as(store *s, const char *sha, int64_t engine, size_t i, stats_rng *rng, const char *name);

static void night(store *s, const char *sha, int64_t engine, size_t i, stats_rng *rng)
{
    night_as(s, sha, engine, i, rng, NULL);
}

static void night_as(store *s, const char *sha, int64_t engine, size_t i, stats_rng *rng, const char *name)
{
    lvd_run r = {0};
    snprintf(r.artifact, sizeof r.artifact, "%s", sha);
    r.engine_id = engine;
    r.binary = "/x/llama-bench";
    r.build = "b200";
    r.host = "box";
    char session[32];
    snprintf(session, sizeof session, "%s", name ? name : "");
    if (!name)
        snprintf(session, sizeof session, "night-%02zu", i);
    r.session = session;
    snprintf(r.params.device, sizeof r.params.device, "Vulkan0");
    r.params.ngl = 99, r.params.fa = 1;
    r.arm_key = "dev=Vulkan0 ngl=99 fa=1";
    snprintf(r.status, sizeof r.status, "ok");
    snprintf(r.source, sizeof r.source, "bench");
    r.started_at = T0 + (int64_t)i * DAY + 3 * 3600;
    lvd_result res = {0};
    snprintf(res.test, sizeof res.test, "tg128");
    res.n_gen = 128;
    res.n = 5;
    int64_t ns[5];
    double ts[5];
    for (size_t k = 0; k < 5; k++) {
        ts[k] = 500 * (i >= 11 ? 0.92 : 1.0) * exp(0.005 * stats_rng_normal(rng));
        ns[k] = (int64_t)(128e9 / ts[k]);
    }
    res.ns = ns, res.ts = ts;
    r.results = &res, r.n_results = 1;
    lvd_err err = {0};
    assert_int_equal(store_run_put(s, &r, &err), 0);
    char *names[] = {"driver", "kernel"};
    char *values[] = {i >= 11 ? "565.57" : "560.35", "6.1.0"};
    assert_int_equal(store_facts_put(s, session, "box", names, values, 2, &err), 0);
}

static void test_page(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    store *s = tu_store(dir);
    lvd_err err = {0};
    char *model = tu_model("tiny-llama-q4_0.gguf");
    store_artifact art;
    assert_int_equal(store_identify(s, model, 0, &art, NULL, &err), 0);
    lvd_engine e = {.name = "b200-vulkan", .dir = "/x", .build = "b200", .flavour = "bin-ubuntu-vulkan-x64",
                    .origin = "fetched"};
    assert_int_equal(store_engine_put(s, &e, &err), 0);
    stats_rng rng;
    stats_rng_seed(&rng, 9);
    for (size_t i = 0; i < NIGHTS; i++)
        night(s, art.sha256, e.id, i, &rng);
    lvd_pin_decision d = {.decided_at = T0 + 19 * DAY + 4 * 3600, .pinned_build = "b200", .candidate_build = "b208",
                          .decision = "keep", .rule = "regression: tg128 on vulkan -10.1 %",
                          .details_json = "{\"sessions\": [\"night-18\", \"night-19\"]}"};
    assert_int_equal(store_pin_decision_put(s, &d, &err), 0);
    store_bisect b = {.key = "k", .host = "box", .artifact = art.sha256, .flavour = "bin-ubuntu-vulkan-x64",
                      .test = "tg128", .arm = "vulkan", .good = "b200", .bad = "b208"};
    int resumed;
    assert_int_equal(store_bisect_open(s, &b, &resumed, &err), 0);
    assert_int_equal(store_bisect_finish(s, b.id, "b203", "b204",
                                         "{\"first_bad\": \"b204\", \"last_good\": \"b203\", \"bad_commit\": \"c0ffee204\","
                                         " \"good_commit\": \"c0ffee203\", \"ratio\": 0.9, \"ci\": [0.89, 0.91],"
                                         " \"compare\": \"https://github.com/ggml-org/llama.cpp/compare/b203...b204\","
                                         " \"steps\": [{}, {}, {}], \"skipped\": []}",
                                         &err),
                     0);
    /* a hunt's session: left out of every list but its own */
    night_as(s, art.sha256, e.id, 19, &rng, STORE_HUNT_SESSION_PREFIX "1-b204");
    lvd_run *runs;
    size_t nr;
    store_run_filter all = {.host = "box"}, hunt_only = {.host = "box", .session = STORE_HUNT_SESSION_PREFIX "1-b204"};
    assert_int_equal(store_run_list(s, &all, &runs, &nr, &err), 0);
    assert_int_equal(nr, NIGHTS);
    store_run_list_free(runs, nr);
    assert_int_equal(store_run_list(s, &hunt_only, &runs, &nr, &err), 0);
    assert_int_equal(nr, 1);
    store_run_list_free(runs, nr);
    ev_opts o = {.host = "box"};
    ev_page p;
    assert_int_equal(ev_page_load(s, &o, &p, &err), 0);
    lvd_sb md = {0};
    ev_render_markdown(&p, "page.md", &md);
    const char *t = lvd_sb_str(&md);
    const char *drift = strstr(t, "## Drift");
    assert_non_null(drift);
    const char *flag = strstr(drift, "- **drift**: tg128 on Vulkan0 fa on -");
    assert_non_null(flag);
    assert_non_null(strstr(flag, " since 2026-11-12; engine unchanged (b200); driver 560.35 -> 565.57\n"));
    assert_null(strstr(flag, "kernel")); /* unchanged facts are not named */
    const char *pin = strstr(t, "Newest decision");
    const char *hunt = strstr(t, "Regression hunt (`lvd bisect --good b200 --bad b208 --test tg128`");
    assert_non_null(pin);
    assert_non_null(hunt);
    assert_true(hunt > pin && hunt < drift);
    assert_non_null(strstr(hunt, "first bad build **b204** (c0ffee204), last good b203 (c0ffee203); tg128 "));
    assert_non_null(strstr(hunt, "[b203...b204](https://github.com/ggml-org/llama.cpp/compare/b203...b204)"));
    assert_non_null(strstr(t, "the newest pin decision compares only sessions after it."));
    lvd_sb_free(&md);
    ev_page_free(&p);
    store_bisect_free(&(store_bisect){0});
    store_artifact_free(&art);
    free(model);
    store_close(s);
    tu_tmpdir_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
