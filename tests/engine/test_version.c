/* test_version.c: the version-line parser (engine/version.c) on the real
 * captures of every era in tests/fixtures/llama.cpp/ (`--version` of b4547,
 * b9749 and the SemVer build b10587, b4547's start-up log, the -lv log of
 * b9749, llama-bench's markdown footer) and on the older forms of llama.cpp's history, with log
 * prefixes and CRLF; a line that fits no form is an error quoting it. */
#include "tests/support/testutil.h"

#include "engine/version.h"

#include <stdlib.h>
#include <string.h>


/* Parses text and checks every field. */
static void expect(const char *text, int64_t number, const char *commit, const char *semver, const char *form)
{
    engine_version v;
    lvd_err err = {{0}};
    if (engine_version_parse(text, &v, &err) != 0)
        fail_msg("%.60s: %s", text, err.msg);
    assert_int_equal(v.number, number);
    assert_string_equal(v.commit, commit);
    assert_string_equal(v.semver, semver);
    assert_string_equal(v.form, form);
}

static void expect_fixture(const char *rel, int64_t number, const char *commit, const char *semver,
                           const char *form)
{
    char *text = tu_capture_text(rel);
    expect(text, number, commit, semver, form);
    free(text);
}

static void test_fixtures_of_each_era(void **state)
{
    (void)state;
    /* --version, before the SemVer releases and after them */
    expect_fixture("cpu-build-b4547/server-version.stderr", 4547, "c5d9effb4", "", "version");
    expect_fixture("cpu-build-b9749/server-version.stderr", 9749, "d32676d77", "", "version");
    expect_fixture("cpu-build-b10587/server-version.stderr", 10587, "3f545becc", "0.2.0-dev", "semver");
    expect_fixture("vulkan-build-b10587/server-version.stderr", 10587, "3f545becc", "0.2.0-dev", "semver");
    /* common_init's start-up line of 2024-2025 (b4547's llama-perplexity) */
    expect_fixture("cpu-build-b4547/perplexity-kld.stderr", 4547, "c5d9effb4", "", "build-log");
    /* the -lv log's start-up line, behind its log prefix and module tag */
    expect_fixture("alloc-b9749/vk-server.stderr", 9749, "d32676d77", "", "build-log");
    /* llama-bench's markdown footer */
    expect_fixture("cpu-build-b9749/bench-md.stdout", 9749, "d32676d77", "", "bench-footer");
}

static void test_forms_of_history(void **state)
{
    (void)state;
    /* common_init's start-up line (2024-2025: llama-server, llama-cli) */
    expect("build: 4547 (6171c9d2) with cc (Debian 12.2.0-14) 12.2.0 for x86_64-linux-gnu\n", 4547, "6171c9d2", "",
           "build-log");
    /* print_build_info of the older tools */
    expect("main: build = 1953 (9b3a3d8)\nmain: built with cc (GCC) 13.2 for x86_64-linux-gnu\n", 1953, "9b3a3d8",
           "", "build-info");
    /* a SemVer release itself, and a pre-release tag */
    expect("version: 0.4.1 (build 10991, commit 930e2fa59)\n", 10991, "930e2fa59", "0.4.1", "semver");
    expect("version: 1.0.0-rc.1 (build 12000, commit abcdef012)\n", 12000, "abcdef012", "1.0.0-rc.1", "semver");
    /* a build made without git history */
    expect("ggml_cuda_init: found 1 CUDA devices\nversion: 0 (unknown)\n", 0, "", "", "version");
    expect("version: 0.4.1-dev (build 0, commit unknown)\n", 0, "", "0.4.1-dev", "semver");
}

static void test_prefixes_and_line_ends(void **state)
{
    (void)state;
    expect("version: 0.4.1-dev (build 10991, commit 930e2fa59)\r\nbuilt with GNU 12.2.0 for Linux x86_64\r\n",
           10991, "930e2fa59", "0.4.1-dev", "semver");
    expect("0.00.126.784 I version: 9749 (d32676d77)\n", 9749, "d32676d77", "", "version");
    expect("\033[34m0.00.126.784\033[0m \033[32mI \033[0mversion: 9749 (d32676d77)\n", 9749, "d32676d77", "",
           "version");
    /* no final line end */
    expect("version: 9749 (d32676d77)", 9749, "d32676d77", "", "version");
}

static void test_the_version_line_wins(void **state)
{
    (void)state;
    /* a start-up log before the version line: --version's own line counts */
    expect("build: 4547 (6171c9d2) with cc for x86_64-linux-gnu\nversion: 4548 (0123abcd)\n", 4548, "0123abcd", "",
           "version");
    /* of two lines of one form, the first */
    expect("version: 1 (aaaaaaa)\nversion: 2 (bbbbbbb)\n", 1, "aaaaaaa", "", "version");
}

static void expect_error(const char *text, const char *want)
{
    engine_version v;
    lvd_err err = {{0}};
    int rc = engine_version_parse(text, &v, &err);
    assert_int_equal(rc, strstr(want, "unrecognised") ? ENGINE_VERSION_UNRECOGNISED : -1);
    assert_string_equal(err.msg, want);
    assert_int_equal(v.number, 0);
    assert_null(strchr(err.msg, '\n'));
}

static void test_unrecognised(void **state)
{
    (void)state;
    expect_error("version: 0.4.1-dev build 10991\n", "unrecognised version line 'version: 0.4.1-dev build 10991'");
    expect_error("version: 12a (d32676d77)\r\n", "unrecognised version line 'version: 12a (d32676d77)'");
    expect_error("error: invalid parameter for argument: --version\n", "no version line");
    expect_error("", "no version line");
    expect_error(NULL, "no version line");
    /* a long line is quoted in part */
    char long_line[400];
    memset(long_line, 'x', sizeof long_line - 1);
    long_line[sizeof long_line - 1] = '\0';
    memcpy(long_line, "version: ", 9);
    engine_version v;
    lvd_err err = {{0}};
    assert_int_equal(engine_version_parse(long_line, &v, &err), ENGINE_VERSION_UNRECOGNISED);
    assert_true(strlen(err.msg) < 160);
}

static void test_build_tag(void **state)
{
    (void)state;
    engine_version v = {.number = 10991};
    char buf[32];
    engine_version_build(&v, buf, sizeof buf);
    assert_string_equal(buf, "b10991");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures_of_each_era),
        cmocka_unit_test(test_forms_of_history),
        cmocka_unit_test(test_prefixes_and_line_ends),
        cmocka_unit_test(test_the_version_line_wins),
        cmocka_unit_test(test_unrecognised),
        cmocka_unit_test(test_build_tag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
