/* test_util.c: common/util.h: strings, number and duration parsing, splitting,
 * atomic writes, directory helpers and string vectors; common/json.h. */
#include "tests/support/testutil.h"

#include "common/json.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void string_buffer_grows_and_detaches(void **state)
{
    (void)state;
    lvd_sb sb = {0};
    assert_string_equal(lvd_sb_str(&sb), "");
    for (int i = 0; i < 1000; i++)
        lvd_sb_addf(&sb, "%d,", i % 10);
    assert_int_equal(sb.len, 2000);
    lvd_sb_reset(&sb);
    lvd_sb_adds(&sb, "ab");
    lvd_sb_addc(&sb, 'c');
    char *s = lvd_sb_detach(&sb);
    assert_string_equal(s, "abc");
    assert_null(sb.buf);
    free(s);
}

static void parses_numbers_and_durations_strictly(void **state)
{
    (void)state;
    int64_t v;
    double d;
    assert_int_equal(lvd_parse_i64("42", &v), 0);
    assert_int_equal(v, 42);
    assert_int_equal(lvd_parse_i64("42x", &v), -1);
    assert_int_equal(lvd_parse_i64("", &v), -1);
    assert_int_equal(lvd_parse_i64("99999999999999999999", &v), -1);
    assert_int_equal(lvd_parse_double("1.5e3", &d), 0);
    assert_true(d == 1500.0);
    assert_int_equal(lvd_parse_double("nan", &d), -1);
    assert_int_equal(lvd_parse_duration("90", &v), 0);
    assert_int_equal(v, 90);
    assert_int_equal(lvd_parse_duration("15m", &v), 0);
    assert_int_equal(v, 900);
    assert_int_equal(lvd_parse_duration("6h", &v), 0);
    assert_int_equal(v, 21600);
    assert_int_equal(lvd_parse_duration("2d", &v), 0);
    assert_int_equal(v, 172800);
    assert_int_equal(lvd_parse_duration("5w", &v), -1);
    assert_int_equal(lvd_parse_duration("m", &v), -1);
    assert_int_equal(lvd_parse_duration("-5m", &v), -1);
    assert_int_equal(lvd_parse_duration("5mm", &v), -1);
}

/* ISO-8601 UTC time text, read and written by the one pair every module
 * uses: what llama-bench's test_time, the release API and the nightly write. */
static void reads_and_writes_utc_time(void **state)
{
    (void)state;
    int64_t t;
    assert_int_equal(lvd_parse_utc("2026-11-30T14:38:55Z", &t), 0);
    assert_int_equal(t, 1796049535);
    assert_int_equal(lvd_parse_utc("2026-11-30T14:38:55", &t), 0);
    assert_int_equal(t, 1796049535);
    assert_int_equal(lvd_parse_utc("1970-01-01T00:00:00Z", &t), 0);
    assert_int_equal(t, 0);
    assert_int_equal(lvd_parse_utc("2028-02-29", &t), 0); /* a date alone: its midnight */
    assert_int_equal(t, 1835395200);
    assert_int_equal(lvd_parse_utc("1969-12-31", &t), 0);
    assert_int_equal(t, -86400);
    static const char *const bad[] = {"", "2026-11-30T14:38:55Zx", "2026-11-30T14:38", "2026-11-30Z", "30/11/2026",
                                      "2026-11-30 14:38:55", "2026-13-01"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(bad); i++)
        if (lvd_parse_utc(bad[i], &t) == 0)
            fail_msg("'%s' was read as a time", bad[i]);
    assert_int_equal(lvd_parse_utc(NULL, &t), -1);
    char buf[32];
    lvd_format_utc(1796049535, buf, sizeof buf);
    assert_string_equal(buf, "2026-11-30T14:38:55Z");
    assert_int_equal(lvd_parse_utc(buf, &t), 0);
    assert_int_equal(t, 1796049535);
    lvd_format_utc(0, buf, 8); /* too small: nothing half-written */
    assert_string_equal(buf, "");
}

static void splits_and_drops_empty_items(void **state)
{
    (void)state;
    size_t n;
    char **v = lvd_split("pp512,,tg128,", ',', &n);
    assert_int_equal(n, 2);
    assert_string_equal(v[0], "pp512");
    assert_string_equal(v[1], "tg128");
    assert_null(v[2]);
    lvd_strv_free(v);
    v = lvd_split("", ',', &n);
    assert_int_equal(n, 0);
    lvd_strv_free(v);
}

static void atomic_write_replaces_whole_file(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *sub = lvd_xasprintf("%s/a/b/c", dir);
    lvd_err err = {{0}};
    assert_int_equal(lvd_mkdir_p(sub, &err), 0);
    char *path = lvd_xasprintf("%s/pin", sub);
    assert_int_equal(lvd_write_file_atomic(path, "one\n", 4, &err), 0);
    assert_int_equal(lvd_write_file_atomic(path, "two!\n", 5, &err), 0);
    char *got = tu_read(path, NULL);
    assert_string_equal(got, "two!\n");
    free(got);
    /* no temporary file is left beside it */
    char *tmp = lvd_xasprintf("%s.tmp.%ld", path, (long)getpid());
    assert_int_not_equal(access(tmp, F_OK), 0);
    assert_int_equal(lvd_write_file_atomic("/nonexistent-dir/x", "a", 1, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent-dir/x"));
    lvd_sb sb = {0};
    assert_int_equal(lvd_read_file(path, 3, &sb, &err), -1);
    assert_non_null(strstr(err.msg, "larger than 3 bytes"));
    lvd_sb_free(&sb);
    assert_int_equal(lvd_rm_rf(sub), 0);
    struct stat st;
    assert_int_not_equal(stat(sub, &st), 0);
    free(tmp);
    free(path);
    free(sub);
    tu_tmpdir_free(dir);
}

static void error_messages_are_one_line(void **state)
{
    (void)state;
    lvd_err err;
    assert_int_equal(lvd_errf(&err, "%s: bad\nthing", "f"), -1);
    assert_string_equal(err.msg, "f: bad thing");
}

static void string_vectors_stay_null_terminated(void **state)
{
    (void)state;
    char **v = NULL;
    size_t n = 0;
    assert_null(v);
    char **empty = lvd_strv_finish(&v); /* handed on: never NULL */
    assert_non_null(empty);
    assert_null(empty[0]);
    assert_ptr_equal(lvd_strv_finish(&v), empty);
    lvd_strv_push(&v, &n, lvd_xstrdup("-m"));
    lvd_strv_pushf(&v, &n, "%s/%d", "x", 42);
    assert_int_equal(n, 2);
    assert_string_equal(v[0], "-m");
    assert_string_equal(v[1], "x/42");
    assert_null(v[2]);
    assert_ptr_equal(lvd_strv_finish(&v), v);
    lvd_strv_free(v);
}

/* The value as compact JSON text. */
static void json_is(cJSON *v, const char *want)
{
    assert_non_null(v);
    char *s = cJSON_PrintUnformatted(v);
    assert_string_equal(s, want);
    free(s);
    cJSON_Delete(v);
}

static void json_values_are_null_when_unknown(void **state)
{
    (void)state;
    json_is(lvd_json_num(1.5), "1.5");
    json_is(lvd_json_num(0), "0");
    json_is(lvd_json_num(NAN), "null");
    json_is(lvd_json_num(INFINITY), "null");
    json_is(lvd_json_num_if(1, 99), "99");
    json_is(lvd_json_num_if(1, -1), "-1");
    json_is(lvd_json_num_if(0, 99), "null");
    json_is(lvd_json_str("a\"b"), "\"a\\\"b\"");
    json_is(lvd_json_str(""), "\"\"");
    json_is(lvd_json_str(NULL), "null");
    json_is(lvd_json_text("CUDA0"), "\"CUDA0\"");
    json_is(lvd_json_text(""), "null");
    json_is(lvd_json_text(NULL), "null");
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "a", lvd_json_num(NAN));
    cJSON_AddItemToObject(o, "b", lvd_json_str("x y"));
    char *text = lvd_json_compact(o); /* deletes o */
    assert_string_equal(text, "{\"a\":null,\"b\":\"x y\"}");
    free(text);
}

/* A list of strings is an array, never null or absent: [] for none. */
static void json_string_lists_are_arrays(void **state)
{
    (void)state;
    char *v[] = {"a", "b\"c", NULL};
    json_is(lvd_json_strings(v, 2), "[\"a\",\"b\\\"c\"]");
    json_is(lvd_json_strings(v, 1), "[\"a\"]");
    json_is(lvd_json_strings(NULL, 0), "[]");
    json_is(lvd_json_strings(v, 0), "[]");
    json_is(lvd_json_strv(v), "[\"a\",\"b\\\"c\"]");
    json_is(lvd_json_strv(v + 2), "[]");
    json_is(lvd_json_strv(NULL), "[]");
}

/* The small rules every module shares (util.h, json.h). */
static void shared_small_rules(void **state)
{
    (void)state;
    static const char *const on[] = {"on", "1", "yes", "true"}, *const off[] = {"off", "0", "no", "false"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(on); i++) {
        int v = -1;
        assert_int_equal(lvd_parse_onoff(on[i], &v), 0);
        assert_int_equal(v, 1);
        assert_int_equal(lvd_parse_onoff(off[i], &v), 0);
        assert_int_equal(v, 0);
    }
    static const char *const bad[] = {"auto", "", "ON", "2", " on", "onn"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(bad); i++) {
        int v = 7;
        assert_int_equal(lvd_parse_onoff(bad[i], &v), -1);
        assert_int_equal(v, 7);
    }
    assert_string_equal(lvd_base_name("/a/b/m.gguf"), "m.gguf");
    assert_string_equal(lvd_base_name("m.gguf"), "m.gguf");
    assert_string_equal(lvd_base_name("dir/"), "");
    double d[] = {3, -1, 2, 2};
    qsort(d, 4, sizeof *d, lvd_cmp_double);
    assert_true(d[0] == -1 && d[1] == 2 && d[2] == 2 && d[3] == 3);
    lvd_sb sb = {0};
    lvd_shell_quote(&sb, "a_b./=:,+-9");
    lvd_sb_addc(&sb, ' ');
    lvd_shell_quote(&sb, "");
    lvd_sb_addc(&sb, ' ');
    lvd_shell_quote(&sb, "it's");
    lvd_sb_addc(&sb, ' ');
    lvd_shell_quote_always(&sb, "A=b");
    assert_string_equal(lvd_sb_str(&sb), "a_b./=:,+-9 '' 'it'\\''s' 'A=b'");
    lvd_sb_free(&sb);
    cJSON *o = cJSON_Parse("{\"s\": \"x\", \"n\": 1, \"S\": \"y\"}");
    assert_string_equal(lvd_json_string(o, "s"), "x");
    assert_string_equal(lvd_json_string(o, "n"), "");
    assert_string_equal(lvd_json_string(o, "missing"), "");
    assert_string_equal(lvd_json_string(NULL, "s"), "");
    cJSON_Delete(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(string_buffer_grows_and_detaches),
        cmocka_unit_test(parses_numbers_and_durations_strictly),
        cmocka_unit_test(reads_and_writes_utc_time),
        cmocka_unit_test(splits_and_drops_empty_items),
        cmocka_unit_test(atomic_write_replaces_whole_file),
        cmocka_unit_test(error_messages_are_one_line),
        cmocka_unit_test(string_vectors_stay_null_terminated),
        cmocka_unit_test(json_values_are_null_when_unknown),
        cmocka_unit_test(json_string_lists_are_arrays),
        cmocka_unit_test(shared_small_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
