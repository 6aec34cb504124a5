/* test_fitprint.c: reading llama-fit-params --fit-print (engine/fitprint.h):
 * the lines the real b10587 CPU build printed (captured in
 * tests/fixtures/llama.cpp/cpu-build-b10587/), a device row beside the host's
 * as the Vulkan build prints them, and every line that is not one. */
#include "engine/fitprint.h"
#include "tests/support/testutil.h"

#include <stdlib.h>
#include <string.h>

static void test_captured(void **state)
{
    (void)state;
    char *path = tu_fixture("llama.cpp/cpu-build-b10587/fit-print-small-llama.stdout");
    size_t len;
    char *text = tu_read(path, &len);
    free(path);
    engine_fitprint fp;
    lvd_err err = {{0}};
    assert_int_equal(engine_fitprint_parse(text, &fp, &err), 0);
    assert_int_equal(fp.n, 1);
    const engine_fitprint_row *h = engine_fitprint_row_of(&fp, "Host");
    assert_non_null(h);
    /* "Host 8 8 63 ": ctx 4096 f16 KV of 4 blocks is 8 MiB; the host's model
     * figure counts what it repacks (AMX here), not what it maps */
    assert_int_equal(h->model_mib, 8);
    assert_int_equal(h->context_mib, 8);
    assert_int_equal(h->compute_mib, 63);
    assert_null(engine_fitprint_row_of(&fp, "CUDA0"));
    free(text);
}

static void test_device_row(void **state)
{
    (void)state;
    engine_fitprint fp;
    lvd_err err = {{0}};
    assert_int_equal(engine_fitprint_parse("Vulkan0 11 8 63\nHost 8 0 5\n", &fp, &err), 0);
    assert_int_equal(fp.n, 2);
    const engine_fitprint_row *d = engine_fitprint_row_of(&fp, "Vulkan0");
    assert_non_null(d);
    assert_int_equal(d->model_mib, 11);
    assert_int_equal(d->context_mib, 8);
    assert_int_equal(d->compute_mib, 63);
    assert_int_equal(engine_fitprint_row_of(&fp, "Host")->compute_mib, 5);
    /* a last line of blanks without a newline ends the text (the fuzzer's hang) */
    assert_int_equal(engine_fitprint_parse("Host 8 0 5\n \r ", &fp, &err), 0);
    assert_int_equal(fp.n, 1);
}

static void test_not_figures(void **state)
{
    (void)state;
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"", "no Host line"},
        {"Vulkan0 11 8 63\n", "no Host line"},
        {"Host 8 0 5\nVulkan0 11 8 63\n", "no Host line"},
        {"Host 8 0\n", "'Host 8 0'"},
        {"Host 8 0 5 1\n", "'Host 8 0 5 1'"},
        {"Host 8 -1 5\n", "'Host 8 -1 5'"},
        {"-c 4096 -ngl 99\n", "'-c 4096 -ngl 99'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        engine_fitprint fp;
        lvd_err err = {{0}};
        assert_int_equal(engine_fitprint_parse(bad[i].text, &fp, &err), -1);
        assert_non_null(strstr(err.msg, bad[i].needle));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_captured),
        cmocka_unit_test(test_device_row),
        cmocka_unit_test(test_not_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
