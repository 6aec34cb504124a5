/* test_visibility.c: the device-visibility variables (engine/visibility.h):
 * the record of those in force (set, set and empty, unset), which of them
 * a device of each backend needs, applying assignments over a record, the
 * env-list merge bench arms use, and the display and JSON forms. */
#include "engine/visibility.h"
#include "tests/support/testutil.h"

#include <cjson/cJSON.h>

#include <stdlib.h>
#include <string.h>

static void clear_all(void)
{
    size_t n;
    const engine_visibility_var *v = engine_visibility_vars(&n);
    for (size_t i = 0; i < n; i++)
        unsetenv(v[i].name);
}

static void assert_current(const char *want)
{
    char *got = engine_visibility_current();
    assert_string_equal(got, want);
    free(got);
}

static void test_current(void **state)
{
    (void)state;
    clear_all();
    assert_current("");
    setenv("GGML_VK_VISIBLE_DEVICES", "0", 1);
    assert_current("GGML_VK_VISIBLE_DEVICES=0");
    /* table order, whatever the order they were set in; empty is not unset */
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    setenv("ZES_ENABLE_SYSMAN", "1", 1);
    assert_current("CUDA_VISIBLE_DEVICES= GGML_VK_VISIBLE_DEVICES=0 ZES_ENABLE_SYSMAN=1");
    /* variables outside the table are not part of the record */
    setenv("GGML_VK_PREFER_HOST_MEMORY", "1", 1);
    setenv("PATH_UNRELATED_VISIBLE", "x", 1);
    assert_current("CUDA_VISIBLE_DEVICES= GGML_VK_VISIBLE_DEVICES=0 ZES_ENABLE_SYSMAN=1");
    unsetenv("GGML_VK_PREFER_HOST_MEMORY");
    unsetenv("PATH_UNRELATED_VISIBLE");
    clear_all();
    assert_current("");
}

static void test_needs(void **state)
{
    (void)state;
    assert_true(engine_visibility_needs("GGML_VK_VISIBLE_DEVICES", "vulkan"));
    assert_false(engine_visibility_needs("GGML_VK_VISIBLE_DEVICES", "cuda"));
    assert_true(engine_visibility_needs("CUDA_VISIBLE_DEVICES", "cuda"));
    assert_true(engine_visibility_needs("CUDA_VISIBLE_DEVICES", "rocm")); /* HIP honours it */
    assert_true(engine_visibility_needs("CUDA_DEVICE_ORDER", "cuda"));
    assert_true(engine_visibility_needs("HIP_VISIBLE_DEVICES", "rocm"));
    assert_true(engine_visibility_needs("ROCR_VISIBLE_DEVICES", "rocm"));
    assert_false(engine_visibility_needs("ROCR_VISIBLE_DEVICES", "cuda"));
    assert_true(engine_visibility_needs("ONEAPI_DEVICE_SELECTOR", "sycl"));
    assert_false(engine_visibility_needs("ONEAPI_DEVICE_SELECTOR", "vulkan"));
    assert_false(engine_visibility_needs("GGML_VK_VISIBLE_DEVICES", "cpu"));
    assert_false(engine_visibility_needs("GGML_VK_VISIBLE_DEVICES", "metal"));
    assert_false(engine_visibility_needs("GGML_VK_VISIBLE_DEVICES", ""));
    assert_false(engine_visibility_needs("GGML_VK_PREFER_HOST_MEMORY", "vulkan"));
    assert_false(engine_visibility_needs("GGML_VK_VISIBLE", "vulkan"));
}

static void assert_for(const char *env, const char *backend, const char *want)
{
    char *got = engine_visibility_for_device(env, backend);
    assert_string_equal(got, want);
    free(got);
}

static void test_for_device(void **state)
{
    (void)state;
    const char *env = "CUDA_VISIBLE_DEVICES=1,0 CUDA_DEVICE_ORDER=PCI_BUS_ID ROCR_VISIBLE_DEVICES=0 "
                      "GGML_VK_VISIBLE_DEVICES=0";
    assert_for(env, "vulkan", "GGML_VK_VISIBLE_DEVICES=0");
    assert_for(env, "cuda", "CUDA_VISIBLE_DEVICES=1,0 CUDA_DEVICE_ORDER=PCI_BUS_ID");
    assert_for(env, "rocm", "CUDA_VISIBLE_DEVICES=1,0 ROCR_VISIBLE_DEVICES=0");
    assert_for(env, "sycl", "");
    assert_for(env, "cpu", "");
    assert_for("", "vulkan", "");
    assert_for(NULL, "vulkan", "");
    assert_for("GGML_VK_VISIBLE_DEVICES=", "vulkan", "GGML_VK_VISIBLE_DEVICES=");
    /* a prefix of a name is not that name */
    assert_for("GGML_VK_VISIBLE_DEVICES_X=1", "vulkan", "");
}

static void assert_apply(const char *env, const char *assign, const char *want)
{
    char *got = engine_visibility_apply(env, assign);
    assert_string_equal(got, want);
    free(got);
}

static void test_apply(void **state)
{
    (void)state;
    assert_apply("", "GGML_VK_VISIBLE_DEVICES=0", "GGML_VK_VISIBLE_DEVICES=0");
    assert_apply("GGML_VK_VISIBLE_DEVICES=1", "GGML_VK_VISIBLE_DEVICES=0", "GGML_VK_VISIBLE_DEVICES=0");
    assert_apply("GGML_VK_VISIBLE_DEVICES=1", NULL, "GGML_VK_VISIBLE_DEVICES=1");
    assert_apply(NULL, NULL, "");
    /* knobs are not visibility; the result is in table order */
    assert_apply("GGML_VK_VISIBLE_DEVICES=1", "GGML_VK_PREFER_HOST_MEMORY=1 CUDA_VISIBLE_DEVICES=2",
                 "CUDA_VISIBLE_DEVICES=2 GGML_VK_VISIBLE_DEVICES=1");
}

static void test_merge(void **state)
{
    (void)state;
    char buf[64];
    assert_int_equal(engine_env_merge("GGML_VK_VISIBLE_DEVICES=0", "GGML_VK_PREFER_HOST_MEMORY=1", buf, sizeof buf), 0);
    assert_string_equal(buf, "GGML_VK_VISIBLE_DEVICES=0 GGML_VK_PREFER_HOST_MEMORY=1");
    assert_int_equal(engine_env_merge("A=1 B=2", "B=3", buf, sizeof buf), 0);
    assert_string_equal(buf, "A=1 B=3");
    assert_int_equal(engine_env_merge("", "", buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    assert_int_equal(engine_env_merge(NULL, "A=1", buf, sizeof buf), 0);
    assert_string_equal(buf, "A=1");
    char small[8];
    assert_int_equal(engine_env_merge("A=1", "BB=22", small, sizeof small), -1);
    assert_string_equal(small, "");
}

static void test_describe_json(void **state)
{
    (void)state;
    char buf[128];
    engine_visibility_describe("GGML_VK_VISIBLE_DEVICES=0", buf, sizeof buf);
    assert_string_equal(buf, "GGML_VK_VISIBLE_DEVICES=0");
    engine_visibility_describe("", buf, sizeof buf);
    assert_string_equal(buf, "no device-visibility variable set");
    engine_visibility_describe(NULL, buf, sizeof buf);
    assert_non_null(strstr(buf, "not recorded"));
    cJSON *j = engine_visibility_json("CUDA_VISIBLE_DEVICES= GGML_VK_VISIBLE_DEVICES=0");
    char *s = cJSON_PrintUnformatted(j);
    assert_string_equal(s, "{\"CUDA_VISIBLE_DEVICES\":\"\",\"GGML_VK_VISIBLE_DEVICES\":\"0\"}");
    free(s);
    cJSON_Delete(j);
    j = engine_visibility_json(NULL);
    assert_true(cJSON_IsNull(j));
    cJSON_Delete(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_current),     cmocka_unit_test(test_needs),
        cmocka_unit_test(test_for_device),  cmocka_unit_test(test_apply),
        cmocka_unit_test(test_merge),       cmocka_unit_test(test_describe_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
