/* test_family.c: an engine's family from its own words (engine/family.c) on
 * the real captures: ik_llama.cpp's --help of llama-bench, llama-server and
 * llama-perplexity and its llama-bench JSON (cpu-build-ik4840/) against
 * mainline b10587's (cpu-build-b10587/) and b4547's; the build tag of each
 * family; and the pin's rule (builds/older.c), which compares build numbers
 * only within mainline llama.cpp. */
#include "tests/support/testutil.h"

#include "builds/older.h"
#include "engine/family.h"
#include "engine/help.h"
#include "engine/version.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>


/* The family of build folder dir's help of tool (file NAME.stdout) and
 * version line (server-version.stderr). */
static const char *family_of(const char *dir, const char *help_file, engine_tool tool)
{
    char *rel = lvd_xasprintf("%s/%s", dir, help_file), *help = tu_capture_text(rel);
    char *vrel = lvd_xasprintf("%s/server-version.stderr", dir), *vtext = tu_capture_text(vrel);
    engine_help h = {0};
    engine_help_parse(&h, tool, help);
    engine_version v;
    lvd_err err = {{0}};
    assert_int_equal(engine_version_parse(vtext, &v, &err), 0);
    const char *family = engine_family_detect(&h, &v);
    engine_help_free(&h);
    free(rel);
    free(help);
    free(vrel);
    free(vtext);
    return family;
}

static void test_help_tells_the_family(void **state)
{
    (void)state;
    const char *ik = "cpu-build-ik4840";
    assert_string_equal(family_of(ik, "bench-help.stdout", ENGINE_TOOL_BENCH), LVD_FAMILY_IK);
    assert_string_equal(family_of(ik, "server-help.stdout", ENGINE_TOOL_SERVER), LVD_FAMILY_IK);
    assert_string_equal(family_of(ik, "perplexity-help.stdout", ENGINE_TOOL_PERPLEXITY), LVD_FAMILY_IK);
    const char *main = "cpu-build-b10587";
    assert_string_equal(family_of(main, "bench-help.stdout", ENGINE_TOOL_BENCH), LVD_FAMILY_MAINLINE);
    assert_string_equal(family_of(main, "server-help.stdout", ENGINE_TOOL_SERVER), LVD_FAMILY_MAINLINE);
    assert_string_equal(family_of("cpu-build-b4547", "server-help.stdout", ENGINE_TOOL_SERVER),
                        LVD_FAMILY_MAINLINE);
    /* the same version line both ways: only the words tell them apart */
    engine_version v;
    lvd_err err = {{0}};
    assert_int_equal(engine_version_parse("version: 4840 (8337e4cd3)\n", &v, &err), 0);
    assert_string_equal(engine_family_detect(NULL, &v), LVD_FAMILY_MAINLINE);
    /* neither words nor a version line: a fork unknown here */
    assert_string_equal(engine_family_detect(NULL, NULL), LVD_FAMILY_UNKNOWN);
}

/* The first row of a llama-bench JSON (array) or JSONL capture. */
static int first_row_ik(const char *rel)
{
    char *text = tu_capture_text(rel);
    const char *start = strchr(text, '{');
    assert_non_null(start);
    cJSON *j = cJSON_Parse(text[strspn(text, " \n")] == '[' ? text : start);
    if (!j) { /* jsonl: the first line */
        char *line = lvd_xstrndup(start, strcspn(start, "\n"));
        j = cJSON_Parse(line);
        free(line);
    }
    assert_non_null(j);
    int ik = engine_family_bench_json_ik(cJSON_IsArray(j) ? cJSON_GetArrayItem(j, 0) : j);
    cJSON_Delete(j);
    free(text);
    return ik;
}

static void test_bench_json_tells_the_family(void **state)
{
    (void)state;
    assert_int_equal(first_row_ik("cpu-build-ik4840/bench-json-tiny.stdout"), 1);
    assert_int_equal(first_row_ik("cpu-build-b10587/bench-jsonl-tiny.stdout"), 0);
    assert_int_equal(first_row_ik("cpu-build-b9749/bench-json.stdout"), 0);
}

static void test_tags(void **state)
{
    (void)state;
    char buf[32];
    engine_family_tag(LVD_FAMILY_IK, 4840, buf, sizeof buf);
    assert_string_equal(buf, "ik4840");
    engine_family_tag(LVD_FAMILY_MAINLINE, 10587, buf, sizeof buf);
    assert_string_equal(buf, "b10587");
    engine_family_tag(LVD_FAMILY_UNKNOWN, 7, buf, sizeof buf);
    assert_string_equal(buf, "");
    engine_version v = {.number = 4840, .family = LVD_FAMILY_IK};
    engine_version_build(&v, buf, sizeof buf);
    assert_string_equal(buf, "ik4840");
    lvd_engine e = {.name = "ik", .build = "ik4840", .family = LVD_FAMILY_IK};
    char desc[64];
    engine_family_describe(&e, desc, sizeof desc);
    assert_string_equal(desc, "ik_llama.cpp build 4840");
}

/* ik_llama.cpp's build 4840 is never older than mainline's pin, whatever
 * tag it was registered under; mainline's b4840 is. */
static void test_never_older_than_another_familys_pin(void **state)
{
    (void)state;
    char msg[512];
    lvd_engine e = {.name = "ik", .dir = "/opt/ik/bin", .build = "b4840", .origin = "registered",
                    .family = LVD_FAMILY_IK};
    assert_int_equal(builds_local_older(&e, "b10715", msg, sizeof msg), 0);
    assert_string_equal(msg, "");
    e.build = "ik4840";
    assert_int_equal(builds_local_older(&e, "b10715", msg, sizeof msg), 0);
    lvd_engine m = {.name = "old", .dir = "/opt/old/bin", .build = "b4840", .origin = "registered"};
    assert_int_equal(builds_local_older(&m, "b10715", msg, sizeof msg), 1);
    m.family = LVD_FAMILY_MAINLINE;
    assert_int_equal(builds_local_older(&m, "b10715", msg, sizeof msg), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_tells_the_family),
        cmocka_unit_test(test_bench_json_tells_the_family),
        cmocka_unit_test(test_tags),
        cmocka_unit_test(test_never_older_than_another_familys_pin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
