/* test_kv.c: the key = value format (common/kv.h): sections, comments,
 * last-wins lookup, line-numbered errors, and write/read round trips. */
#include "tests/testutil.h"

#include "common/kv.h"

#include <stdlib.h>
#include <string.h>

static void parses_sections_comments_and_last_wins(void **state)
{
    (void)state;
    const char *text = "# pin\nbuild = b10715\n\n[sha256]\nbin-ubuntu-x64 = abc\n"
                       "  spaced.key   =   value with spaces  \nbuild=b1\n";
    lvd_kvfile kv;
    lvd_err err = {{0}};
    assert_int_equal(lvd_kv_parse(text, strlen(text), "pin", &kv, &err), 0);
    assert_int_equal(kv.n, 4);
    assert_string_equal(lvd_kv_get(&kv, "sha256.bin-ubuntu-x64"), "abc");
    assert_string_equal(lvd_kv_get(&kv, "sha256.spaced.key"), "value with spaces");
    assert_string_equal(lvd_kv_get(&kv, "sha256.build"), "b1");
    assert_string_equal(lvd_kv_get(&kv, "build"), "b10715");
    assert_null(lvd_kv_get(&kv, "missing"));
    assert_int_equal(lvd_kv_find(&kv, "build")->line, 2);
    lvd_kv_free(&kv);
}

static void errors_name_file_and_line(void **state)
{
    (void)state;
    struct { const char *text; const char *msg; } cases[] = {
        {"a = 1\nnot a pair\n", "f.conf:2: expected 'key = value'"},
        {"\n\n[bad\n", "f.conf:3: malformed section header"},
        {"sp ace = 1\n", "f.conf:1: invalid key 'sp ace'"},
        {" = 1\n", "f.conf:1: invalid key ''"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(cases); i++) {
        lvd_kvfile kv;
        lvd_err err = {{0}};
        assert_int_equal(lvd_kv_parse(cases[i].text, strlen(cases[i].text), "f.conf", &kv, &err), -1);
        assert_string_equal(err.msg, cases[i].msg);
        assert_null(kv.v);
    }
    lvd_kvfile kv;
    lvd_err err = {{0}};
    assert_int_equal(lvd_kv_parse("a = 1\0b", 7, "bin", &kv, &err), -1);
    assert_non_null(strstr(err.msg, "NUL"));
}

static void format_round_trips_and_refuses_unwritable(void **state)
{
    (void)state;
    lvd_sb sb = {0};
    lvd_err err = {{0}};
    assert_int_equal(lvd_kv_format(&sb, "build", "b10715", &err), 0);
    assert_int_equal(lvd_kv_format(&sb, "note", "a = b # not a comment", &err), 0);
    assert_int_equal(lvd_kv_format(&sb, "x", "two\nlines", &err), -1);
    assert_int_equal(lvd_kv_format(&sb, "x", " lead", &err), -1);
    assert_int_equal(lvd_kv_format(&sb, "bad key", "v", &err), -1);
    lvd_kvfile kv;
    assert_int_equal(lvd_kv_parse(sb.buf, sb.len, "rt", &kv, &err), 0);
    assert_string_equal(lvd_kv_get(&kv, "note"), "a = b # not a comment");
    assert_string_equal(lvd_kv_get(&kv, "build"), "b10715");
    lvd_kv_free(&kv);
    lvd_sb_free(&sb);
}

static void condition_keys_hold_equals(void **state)
{
    (void)state;
    const char *text = "dev.CUDA0.tg.fa=1 = 1.25\ntg.env.GGML_X=1 =0.5\nnoise= 0\n"
                       "tg.ncmoe=4=0.5\nlog = a = b\n[dev.Vulkan0]\ntg = 700\n";
    lvd_kvfile kv;
    lvd_err err = {{0}};
    assert_int_equal(lvd_kv_parse_cond(text, strlen(text), "scn", &kv, &err), 0);
    assert_int_equal(kv.n, 6);
    assert_string_equal(lvd_kv_get(&kv, "dev.CUDA0.tg.fa=1"), "1.25");
    assert_string_equal(lvd_kv_get(&kv, "tg.env.GGML_X=1"), "0.5");
    assert_string_equal(lvd_kv_get(&kv, "noise"), "0");
    assert_string_equal(lvd_kv_get(&kv, "tg.ncmoe=4"), "0.5");
    assert_string_equal(lvd_kv_get(&kv, "log"), "a = b");
    assert_string_equal(lvd_kv_get(&kv, "dev.Vulkan0.tg"), "700");
    /* The same text read with plain keys splits at the first '='. */
    lvd_kvfile plain;
    assert_int_equal(lvd_kv_parse("tg.fa=1 = 2\n", 12, "p", &plain, &err), 0);
    assert_string_equal(lvd_kv_get(&plain, "tg.fa"), "1 = 2");
    lvd_kv_free(&plain);
    lvd_kv_free(&kv);
    struct { const char *text; const char *msg; } bad[] = {
        {"a = 1\nkey=a b\n", "scn:2: expected 'key = value'"},
        {"novalue\n", "scn:1: expected 'key = value'"},
        {"= 1\n", "scn:1: expected 'key = value'"},
        {"=1\n", "scn:1: invalid key ''"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(bad); i++) {
        assert_int_equal(lvd_kv_parse_cond(bad[i].text, strlen(bad[i].text), "scn", &kv, &err), -1);
        assert_string_equal(err.msg, bad[i].msg);
        assert_null(kv.v);
    }
}

static void load_reports_missing_file(void **state)
{
    (void)state;
    lvd_kvfile kv;
    lvd_err err = {{0}};
    assert_int_equal(lvd_kv_load("/nonexistent/pin.conf", &kv, &err), -1);
    assert_string_equal(err.msg, "/nonexistent/pin.conf: No such file or directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_sections_comments_and_last_wins),
        cmocka_unit_test(errors_name_file_and_line),
        cmocka_unit_test(format_round_trips_and_refuses_unwritable),
        cmocka_unit_test(condition_keys_hold_equals),
        cmocka_unit_test(load_reports_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
