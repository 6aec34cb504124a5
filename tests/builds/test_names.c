/* test_names.c: the names a llama.cpp build goes by (builds/names.c): build
 * tags and SemVer release tags, which releases of the API's list are
 * builds (a prerelease counts from b10573 on, when llama.cpp began to
 * publish every build as one), what a SemVer name stands for among the
 * engines known, and the text of a SemVer release's nightly-tag.txt. */
#include "tests/support/testutil.h"

#include "builds/names.h"

#include <string.h>

static void test_numbers_and_names(void **state)
{
    (void)state;
    assert_int_equal(builds_number("b10715"), 10715);
    assert_int_equal(builds_number("b0"), 0);
    assert_int_equal(builds_number("v0.4.1"), -1);
    assert_int_equal(builds_number("b"), -1);
    assert_int_equal(builds_number(NULL), -1);
    const char *semver[] = {"v0.4.1", "v0.2.0", "v10.0.12", "v123456.0.0"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(semver); i++) {
        assert_true(builds_semver_valid(semver[i]));
        assert_true(builds_name_valid(semver[i]));
    }
    const char *not_semver[] = {"0.4.1", "v0.4", "v0.4.1-dev", "v0.4.1.2", "v.4.1", "v0..1", "V0.4.1",
                                "v1234567.0.0", "b10715", "", NULL};
    for (size_t i = 0; i < LVD_ARRAY_LEN(not_semver); i++)
        assert_false(builds_semver_valid(not_semver[i]));
    assert_true(builds_name_valid("b10715"));
    assert_false(builds_name_valid("latest"));
}

static void test_which_releases_are_builds(void **state)
{
    (void)state;
    assert_true(builds_release_is_build("b100", 0, 0));
    assert_false(builds_release_is_build("b100", 0, 1)); /* a prerelease before llama.cpp marked every build */
    assert_false(builds_release_is_build("b10572", 0, 1));
    assert_true(builds_release_is_build("b10573", 0, 1)); /* release.yml's prerelease: true from here on */
    assert_true(builds_release_is_build("b10991", 0, 1));
    assert_false(builds_release_is_build("b10991", 1, 1)); /* a draft never */
    assert_false(builds_release_is_build("v0.4.1", 0, 0)); /* a SemVer release names a build, is none */
}

static void test_resolve(void **state)
{
    (void)state;
    lvd_engine e[] = {
        {.id = 1, .build = "b10990", .release = "v0.4.0", .created_at = 10},
        {.id = 2, .build = "b10991", .created_at = 20},
        {.id = 3, .build = "b10995", .release = "v0.4.1", .created_at = 30},
        {.id = 4, .build = "b10996", .release = "v0.4.1", .created_at = 40}, /* fetched again later */
    };
    char buf[32];
    assert_true(builds_resolve("b10991", NULL, 0, buf, sizeof buf));
    assert_string_equal(buf, "b10991");
    assert_true(builds_resolve("v0.4.0", e, LVD_ARRAY_LEN(e), buf, sizeof buf));
    assert_string_equal(buf, "b10990");
    assert_true(builds_resolve("v0.4.1", e, LVD_ARRAY_LEN(e), buf, sizeof buf));
    assert_string_equal(buf, "b10996");
    assert_false(builds_resolve("v0.3.0", e, LVD_ARRAY_LEN(e), buf, sizeof buf));
    assert_string_equal(buf, "");
    assert_false(builds_resolve("latest", e, LVD_ARRAY_LEN(e), buf, sizeof buf));
}

static void expect_tag(const char *text, const char *want)
{
    char buf[32] = "unset";
    int rc = builds_nightly_tag_parse(text, strlen(text), buf, sizeof buf);
    if (want) {
        assert_int_equal(rc, 0);
        assert_string_equal(buf, want);
    } else {
        assert_int_equal(rc, -1);
    }
}

static void test_nightly_tag(void **state)
{
    (void)state;
    expect_tag("b10991\n", "b10991");
    expect_tag("b10991", "b10991");
    expect_tag("  b10991\r\n\n", "b10991");
    expect_tag("", NULL);
    expect_tag("\n", NULL);
    expect_tag("b10991 b10992\n", NULL);
    expect_tag("v0.4.1\n", NULL);
    expect_tag("<html>not found</html>", NULL);
    expect_tag("b123456789012345678901234567890\n", NULL);
    char nul[] = "b10\0991";
    char buf[32];
    assert_int_equal(builds_nightly_tag_parse(nul, sizeof nul - 1, buf, sizeof buf), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_and_names),
        cmocka_unit_test(test_which_releases_are_builds),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_nightly_tag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
