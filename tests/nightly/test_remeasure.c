/* test_remeasure.c: the nightly spends the bench budget it has left on the
 * comparisons the newest pin decision called inconclusive (nightly/
 * remeasure.h): the arm's parameters on the pinned and the candidate engine,
 * that test, twice the samples, in the night's "-more" session, the budget
 * shared; nothing for a decision that is not inconclusive (a regression is
 * the hunt's: nightly/hunt.h, which never hunts on "inconclusive") or when
 * under a minute is left. */
#include "tests/support/testutil.h"

#include "nightly/hunt.h"
#include "nightly/remeasure.h"
#include "store/identify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMP(verdict, test, n)                                                                           \
    "{\"artifact\": \"%s\", \"backend\": \"cpu\", \"arm_key\": \"dev=- ngl=99 fa=1 ub=- ctk=- ctv=- "   \
    "ncmoe=- t=4 env=GGML_X=1\", \"params\": \"ngl 99, fa 1, t 4, GGML_X=1\", \"test\": \"" test "\", " \
    "\"pinned_engine\": 1, \"candidate_engine\": 2, \"pinned\": {\"n\": " #n "}, \"candidate\": {\"n\": 5}, " \
    "\"verdict\": \"" verdict "\"}"

typedef struct fx {
    char *dir, *db, *model;
    char sha[65];
    night_config c;
} fx;

static int setup(void **state)
{
    fx *f = lvd_xcalloc(1, sizeof *f);
    f->dir = tu_tmpdir();
    store *s = tu_store(f->dir);
    f->db = lvd_xasprintf("%s/store.db", f->dir);
    f->model = tu_model("tiny-llama-q4_0.gguf");
    store_artifact a;
    lvd_err err = {{0}};
    assert_int_equal(store_identify(s, f->model, 0, &a, NULL, &err), 0);
    snprintf(f->sha, sizeof f->sha, "%s", a.sha256);
    store_artifact_free(&a);
    store_close(s);
    f->c.models = &f->model;
    f->c.n_models = 1;
    f->c.ctx = -1;
    f->c.max_samples = 30;
    f->c.objective = "tg";
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    tu_tmpdir_free(f->dir);
    free(f->db);
    free(f->model);
    free(f);
    return 0;
}

static void decide(fx *f, const char *rule, const char *details)
{
    store *s;
    lvd_err err = {{0}};
    assert_int_equal(store_open(f->db, 0, &s, &err), 0);
    lvd_pin_decision d = {.decided_at = lvd_now(), .pinned_build = "b100", .candidate_build = "b101",
                          .decision = "keep", .rule = (char *)rule, .details_json = (char *)details};
    assert_int_equal(store_pin_decision_put(s, &d, &err), 0);
    store_close(s);
}

/* argv joined by spaces, for needles. */
static char *joined(const night_remeasure *r)
{
    lvd_sb sb = {0};
    for (size_t i = 0; i < r->n; i++)
        lvd_sb_addf(&sb, "%s%s", i ? " " : "", r->argv[i]);
    return lvd_sb_detach(&sb);
}

static void inconclusive_arms_are_measured_again(void **state)
{
    fx *f = *state;
    char details[2048];
    snprintf(details, sizeof details, "{\"comparisons\": [" CMP("inconclusive", "tg128", 6) ", " CMP("", "pp512", 6)
             ", " CMP("inconclusive", "pp512", 20) "]}", f->sha, f->sha, f->sha);
    decide(f, "inconclusive: tg128 on cpu -2.3 % [CI -6.1 %, +0.8 %]: CI reaches -6.1 %, needs more samples", details);
    night_remeasure *v;
    size_t n = night_remeasures(&f->c, "/tools", f->db, "night-7", 600, &v);
    assert_int_equal(n, 2); /* the two inconclusive comparisons, not the one free of regression */
    char *a = joined(&v[0]);
    char *want = lvd_xasprintf("/tools/lvd-bench --store %s --model %s --session night-7-more --tests tg128 "
                               "--budget 300s --max-samples 30 --min-samples 12 --objective tg --engines 1,2 "
                               "-ngl 99 -fa 1 -t 4 --env GGML_X=1", f->db, f->model);
    assert_string_equal(a, want);
    assert_int_equal(v[0].timeout_s, 300 + 600);
    assert_string_equal(v[0].what, "tg128 on cpu, ngl 99, fa 1, t 4, GGML_X=1");
    free(a);
    free(want);
    a = joined(&v[1]);
    assert_non_null(strstr(a, " --tests pp512 "));
    assert_non_null(strstr(a, " --min-samples 30 ")); /* twice 20, at most max_samples */
    free(a);
    night_remeasures_free(v, n);
    /* under a minute left: nothing */
    assert_int_equal(night_remeasures(&f->c, "/tools", f->db, "night-7", 59, &v), 0);
    night_remeasures_free(v, 0);
    /* an inconclusive decision is no regression: the hunt does not start */
    char test[48], backend[32];
    assert_int_equal(night_regression_of("inconclusive: tg128 on cpu -2.3 %", test, sizeof test, backend,
                                         sizeof backend),
                     -1);
    assert_int_equal(night_regression_of("regression: tg128 on cpu -4.3 %", test, sizeof test, backend,
                                         sizeof backend),
                     0);
    assert_string_equal(test, "tg128");
}

/* The arm key is read by its codec (benchio/arm.h): a split arm's -sm and
 * -ts, a llama.cpp fit arm's fitt/fitc read (no lvd bench flag: the bench
 * adds its fit arm itself), a key that is no arm key measures nothing. */
static void every_key_field_is_read(void **state)
{
    fx *f = *state;
    char details[2048];
    snprintf(details, sizeof details,
             "{\"comparisons\": [{\"artifact\": \"%s\", \"backend\": \"cuda\", \"arm_key\": \"dev=CUDA0/CUDA1"
             " sm=row ts=0.60/0.40 ngl=99 fa=1 ub=- ctk=q8_0 ctv=q8_0 ncmoe=- t=- fitt=1024 fitc=4096 env=\","
             " \"params\": \"p\", \"test\": \"tg128\", \"pinned_engine\": 1, \"candidate_engine\": 2,"
             " \"pinned\": {\"n\": 5}, \"candidate\": {\"n\": 5}, \"verdict\": \"inconclusive\"},"
             " {\"artifact\": \"%s\", \"backend\": \"cuda\", \"arm_key\": \"dev=- ngl=lots env=\","
             " \"params\": \"p\", \"test\": \"tg128\", \"pinned_engine\": 1, \"candidate_engine\": 2,"
             " \"pinned\": {\"n\": 5}, \"candidate\": {\"n\": 5}, \"verdict\": \"inconclusive\"}]}",
             f->sha, f->sha);
    decide(f, "inconclusive: tg128 on cuda -2.3 % [CI -6.1 %, +0.8 %]: CI reaches -6.1 %, needs more samples", details);
    night_remeasure *v;
    size_t n = night_remeasures(&f->c, "/tools", f->db, "night-8", 600, &v);
    assert_int_equal(n, 1);
    char *a = joined(&v[0]);
    const char *tail = " --engines 1,2 -sm row -ts 0.60/0.40 -ngl 99 -fa 1 -ctk q8_0 -ctv q8_0";
    assert_string_equal(a + strlen(a) - strlen(tail), tail);
    free(a);
    night_remeasures_free(v, n);
}

static void other_decisions_ask_for_nothing(void **state)
{
    fx *f = *state;
    char details[1024];
    snprintf(details, sizeof details, "{\"comparisons\": [" CMP("inconclusive", "tg128", 6) "]}", f->sha);
    decide(f, "regression: pp512 on cpu -4.1 % [CI -4.5 %, -3.0 %]", details);
    night_remeasure *v;
    assert_int_equal(night_remeasures(&f->c, "/tools", f->db, "night-7", 600, &v), 0);
    night_remeasures_free(v, 0);
    /* a model the config does not measure is not re-measured either */
    decide(f, "inconclusive: tg128 on cpu", "{\"comparisons\": [" CMP("inconclusive", "tg128", 6) "]}");
    assert_int_equal(night_remeasures(&f->c, "/tools", f->db, "night-7", 600, &v), 0);
    night_remeasures_free(v, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(inconclusive_arms_are_measured_again, setup, teardown),
        cmocka_unit_test_setup_teardown(every_key_field_is_read, setup, teardown),
        cmocka_unit_test_setup_teardown(other_decisions_ask_for_nothing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
