/* test_kv.c: the key = value format (common/kv.h): sections, comments,
 * last-wins lookup, line-numbered errors, write/read round trips, and the
 * edge cases of the one reader (CRLF, blanks, '=' and '#' in values,
 * control bytes, the line-by-line API the pin file uses). */
#include "tests/support/testutil.h"

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

/* The rules of kv.h that every file shares (pin files read them line by line). */
static void edge_cases_of_the_one_reader(void **state)
{
    (void)state;
    const char *text = "# comment\r\n; also a comment\r\n\r\n  \t \n"
                       "a=1\r\n"
                       "b\t=\t two  words \t\n"
                       "c = x = y # not a comment\n"
                       "d =\n"
                       "a = 2\n"
                       "[s]\r\n"
                       "  e = 3"; /* no final newline */
    lvd_kvfile kv;
    lvd_err err = {{0}};
    assert_int_equal(lvd_kv_parse(text, strlen(text), "e.conf", &kv, &err), 0);
    assert_int_equal(kv.n, 6);
    assert_string_equal(lvd_kv_get(&kv, "a"), "2"); /* a duplicate: the last wins */
    assert_int_equal(kv.v[0].line, 5);
    assert_string_equal(kv.v[0].value, "1");        /* CRLF: no '\r' in the value */
    assert_string_equal(lvd_kv_get(&kv, "b"), "two  words");
    assert_string_equal(lvd_kv_get(&kv, "c"), "x = y # not a comment");
    assert_string_equal(lvd_kv_get(&kv, "d"), "");
    assert_string_equal(lvd_kv_get(&kv, "s.e"), "3");
    assert_int_equal(lvd_kv_find(&kv, "s.e")->line, 11);
    lvd_kv_free(&kv);

    struct { const char *text; const char *msg; } bad[] = {
        {"a = 1\nb = x\ry\n", "e.conf:2: control character 0x0d in the line"},
        {"\f\n", "e.conf:1: control character 0x0c in the line"},
        {"a = \v1\n", "e.conf:1: control character 0x0b in the line"},
        {"[s] x\n", "e.conf:1: malformed section header"},
        {"[]\n", "e.conf:1: malformed section header"},
        {"[a b]\n", "e.conf:1: malformed section header"},
        {"a.b c = 1\n", "e.conf:1: invalid key 'a.b c'"},
        {"k\n", "e.conf:1: expected 'key = value'"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(bad); i++) {
        assert_int_equal(lvd_kv_parse(bad[i].text, strlen(bad[i].text), "e.conf", &kv, &err), -1);
        assert_string_equal(err.msg, bad[i].msg);
        assert_null(kv.v);
    }
    assert_int_equal(lvd_kv_parse("a = 1\0", 6, "e.conf", &kv, &err), -1);
    assert_string_equal(err.msg, "e.conf: not a text file (NUL byte)");
    /* what the writer refuses is what the reader would refuse or change */
    lvd_sb sb = {0};
    assert_int_equal(lvd_kv_format(&sb, "x", "a\fb", &err), -1);
    assert_int_equal(lvd_kv_format(&sb, "x", "tab\t", &err), -1);
    assert_int_equal(lvd_kv_format(&sb, "x", "in\tside", &err), 0);
    lvd_sb_free(&sb);
}

/* The line reader keeps what a rewrite needs: the kind, the text of comments
 * (indentation kept, trailing blanks and CR dropped), keys as written. */
static void line_reader_keeps_layout(void **state)
{
    (void)state;
    const char *text = "  # indented \r\n\n[sec]\nk = v = w\n";
    lvd_kvreader r;
    lvd_kvline l;
    lvd_err err = {{0}};
    assert_int_equal(lvd_kv_reader_init(&r, text, strlen(text), "l", &err), 0);
    assert_int_equal(lvd_kv_reader_next(&r, &l, &err), 1);
    assert_int_equal(l.kind, LVD_KVLINE_COMMENT);
    assert_int_equal(l.line, 1);
    assert_int_equal(l.text_len, strlen("  # indented"));
    assert_memory_equal(l.text, "  # indented", l.text_len);
    assert_int_equal(lvd_kv_reader_next(&r, &l, &err), 1);
    assert_int_equal(l.kind, LVD_KVLINE_COMMENT);
    assert_int_equal(l.text_len, 0);
    assert_int_equal(lvd_kv_reader_next(&r, &l, &err), 1);
    assert_int_equal(l.kind, LVD_KVLINE_SECTION);
    assert_int_equal(l.key_len, 3);
    assert_memory_equal(l.key, "sec", 3);
    assert_int_equal(lvd_kv_reader_next(&r, &l, &err), 1);
    assert_int_equal(l.kind, LVD_KVLINE_SETTING);
    assert_int_equal(l.line, 4);
    assert_int_equal(l.key_len, 1);
    assert_memory_equal(l.key, "k", 1);
    assert_int_equal(l.value_len, 5);
    assert_memory_equal(l.value, "v = w", 5);
    assert_int_equal(lvd_kv_reader_next(&r, &l, &err), 0);
    assert_int_equal(lvd_kv_reader_init(&r, "a\0", 2, "l", &err), -1);
    assert_string_equal(err.msg, "l: not a text file (NUL byte)");
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
        cmocka_unit_test(edge_cases_of_the_one_reader),
        cmocka_unit_test(line_reader_keeps_layout),
        cmocka_unit_test(load_reports_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
