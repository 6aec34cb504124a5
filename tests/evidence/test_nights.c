/* test_nights.c: `lvd evidence --nights N` counts nights (distinct UTC
 * dates), never decisions or sessions, in every part of the page it limits:
 * the pin decisions shown and the history's dates. A store with runs on 20
 * nights (four sessions on the last one) and pin decisions on 13 earlier
 * nights plus six on the last day: --nights 14 shows all 19 decisions of
 * those 14 nights (counting decisions would show 14: six of today and 8
 * nights), --nights 9 the 14 of 9 nights, --nights 1 today's six. */
#include "tests/support/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "evidence/model.h"
#include "evidence/render.h"
#include "store/identify.h"

#define DAY 86400
#define T0 1793491200 /* 2026-11-01 00:00 UTC */
#define LAST 19       /* the last night: day 19, 2026-11-20 */

/* One tg128 run of 5 samples in session at time t. */
static void run_at(store *s, const char *sha, int64_t engine, int64_t t, const char *session)
{
    double ts[5] = {50.0, 50.1, 50.2, 50.3, 50.4};
    int64_t ns[5];
    for (size_t k = 0; k < 5; k++)
        ns[k] = (int64_t)(128e9 / ts[k]);
    lvd_result res = {.test = "tg128", .n_gen = 128, .n = 5, .ns = ns, .ts = ts};
    lvd_run r = {.engine_id = engine, .binary = "/x/llama-bench", .build = "b200", .host = "box",
                 .session = (char *)session, .arm_key = "cpu", .status = "ok", .source = "bench",
                 .started_at = t, .results = &res, .n_results = 1};
    snprintf(r.artifact, sizeof r.artifact, "%s", sha);
    lvd_params_init(&r.params);
    lvd_err err = {0};
    assert_int_equal(store_run_put(s, &r, &err), 0);
}

static void decision_at(store *s, int64_t t, int k)
{
    char rule[64];
    snprintf(rule, sizeof rule, "no significant win (decision %d)", k); /* all distinct: nothing folds */
    lvd_pin_decision d = {.decided_at = t, .pinned_build = "b200", .candidate_build = "b201",
                          .decision = "keep", .rule = rule, .details_json = "{}"};
    lvd_err err = {0};
    assert_int_equal(store_pin_decision_put(s, &d, &err), 0);
}

/* The page of the newest `nights` nights: decisions and history dates. */
static void expect_nights(store *s, size_t nights, size_t decisions, const char *first_date)
{
    ev_opts o = {.host = "box", .nights = nights};
    ev_page p;
    lvd_err err = {0};
    assert_int_equal(ev_page_load(s, &o, &p, &err), 0);
    if (p.pin.n_hist != decisions)
        fail_msg("--nights %zu: %zu pin decisions shown, expected %zu", nights, p.pin.n_hist, decisions);
    assert_int_equal(p.n_models, 1);
    if (p.models[0].n_dates != nights)
        fail_msg("--nights %zu: %zu history dates", nights, p.models[0].n_dates);
    assert_string_equal(p.models[0].dates[0], first_date);
    assert_string_equal(p.models[0].dates[nights - 1], "2026-11-20");
    /* the oldest decision shown is of the first night shown */
    assert_non_null(strstr(p.pin.hist[p.pin.n_hist - 1].date, first_date));
    ev_page_free(&p);
}

static void test_nights_count_dates(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    store *s = tu_store(dir);
    lvd_err err = {0};
    char *model = tu_model("tiny-llama-q4_0.gguf");
    store_artifact art;
    assert_int_equal(store_identify(s, model, 0, &art, NULL, &err), 0);
    lvd_engine e = {.name = "b200-cpu", .dir = "/x", .build = "b200", .origin = "registered"};
    assert_int_equal(store_engine_put(s, &e, &err), 0);
    char session[32];
    for (int i = 0; i <= LAST; i++) {
        snprintf(session, sizeof session, "night-%02d", i);
        run_at(s, art.sha256, e.id, T0 + (int64_t)i * DAY + 3 * 3600, session);
    }
    for (int k = 0; k < 3; k++) { /* three more sessions on the last night */
        snprintf(session, sizeof session, "again-%d", k);
        run_at(s, art.sha256, e.id, T0 + LAST * DAY + (5 + 4 * k) * 3600, session);
    }
    for (int i = LAST - 13; i < LAST; i++) /* 13 earlier nights, one decision each */
        decision_at(s, T0 + (int64_t)i * DAY + 4 * 3600, i);
    for (int k = 0; k < 6; k++) /* six decisions on the last day */
        decision_at(s, T0 + LAST * DAY + (1 + 3 * k) * 3600, 100 + k);
    expect_nights(s, 14, 6 + 13, "2026-11-07");
    expect_nights(s, 9, 6 + 8, "2026-11-12");
    expect_nights(s, 1, 6, "2026-11-20");
    store_artifact_free(&art);
    free(model);
    store_close(s);
    tu_tmpdir_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nights_count_dates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
