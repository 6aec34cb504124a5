/* test_bisect.c: bisect/search.h: the open interval, the next build (the
 * middle, around skipped builds, none when only skips remain), the step
 * bound, and the midpoint rule on comparisons made from synthetic samples. */
#include "tests/support/testutil.h"

#include <math.h>

#include "bisect/search.h"
#include "stats/stats.h"

static void test_search_finds_boundary(void **state)
{
    (void)state;
    for (size_t bad = 1; bad < 32; bad++) { /* the first bad build at every index */
        bisect_mark m[32] = {0};
        size_t steps = 0, k;
        while ((k = bisect_next(m, 32)) != BISECT_NONE) {
            m[k] = k >= bad ? BISECT_BAD : BISECT_GOOD;
            steps++;
        }
        size_t lo, hi;
        bisect_interval(m, 32, &lo, &hi);
        assert_int_equal(hi, bad);
        assert_int_equal(lo, bad - 1);
        assert_true(steps <= bisect_max_steps(32));
    }
    assert_int_equal(bisect_max_steps(32), 5);
    assert_int_equal(bisect_max_steps(2), 0);
    assert_int_equal(bisect_max_steps(3), 1);
}

static void test_skip(void **state)
{
    (void)state;
    bisect_mark m[9] = {0};
    assert_int_equal(bisect_next(m, 9), 4);
    m[4] = BISECT_SKIP;
    assert_int_equal(bisect_next(m, 9), 3); /* nearest the middle, the older first */
    m[3] = BISECT_SKIP;
    assert_int_equal(bisect_next(m, 9), 5);
    m[5] = BISECT_BAD;
    assert_int_equal(bisect_next(m, 9), 2);
    m[2] = BISECT_GOOD;
    assert_int_equal(bisect_next(m, 9), BISECT_NONE); /* only skipped 3, 4 between 2 and 5 */
    size_t lo, hi;
    bisect_interval(m, 9, &lo, &hi);
    assert_int_equal(lo, 2);
    assert_int_equal(hi, 5);
}

static void compare(double a, double b, stats_comparison *c)
{
    double x[10], y[10];
    stats_rng rng;
    stats_rng_seed(&rng, 7);
    for (int i = 0; i < 10; i++) {
        x[i] = a * exp(0.002 * stats_rng_normal(&rng));
        y[i] = b * exp(0.002 * stats_rng_normal(&rng));
    }
    stats_rule r;
    stats_rule_pin(&r);
    r.m = 2;
    assert_int_equal(stats_compare(x, 10, y, 10, &r, c), 0);
}

static void test_classify(void **state)
{
    (void)state;
    stats_comparison g, b;
    const char *why;
    compare(500, 500, &g); /* a midpoint as fast as good, 10 % over bad */
    compare(500, 450, &b);
    assert_int_equal(bisect_classify(&g, &b, &why), BISECT_GOOD);
    compare(450, 500, &g);
    compare(450, 450, &b);
    assert_int_equal(bisect_classify(&g, &b, &why), BISECT_BAD);
    compare(475, 500, &g); /* between */
    compare(475, 450, &b);
    assert_int_equal(bisect_classify(&g, &b, &why), BISECT_SKIP);
    assert_string_equal(why, "between: slower than the good build and faster than the bad one");
    stats_comparison_clear(&g);
    stats_comparison_clear(&b);
    assert_int_equal(bisect_classify(&g, &b, &why), BISECT_SKIP);
    assert_string_equal(why, "undecided within the step's budget");
    assert_int_equal(bisect_mark_parse("bad"), BISECT_BAD);
    assert_string_equal(bisect_mark_name(BISECT_SKIP), "skip");
    assert_int_equal(bisect_mark_parse("nonsense"), BISECT_UNTESTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_search_finds_boundary),
        cmocka_unit_test(test_skip),
        cmocka_unit_test(test_classify),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
