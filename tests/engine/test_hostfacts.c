/* test_hostfacts.c: engine/hostfacts.h on a faked host ($LVD_PROC_ROOT,
 * $LVD_SYSFS_ROOT): the NVIDIA driver, kernel, CPU model and governor, the
 * amdgpu power cap, nothing guessed when a file is missing, the Vulkan
 * driver from a real llama.cpp log line; and the facts round-trip through
 * the store (store/factsdb.h). */
#include "tests/support/testutil.h"

#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "engine/hostfacts.h"
#include "store/factsdb.h"

static void put(const char *root, const char *rel, const char *text)
{
    char *path = lvd_xasprintf("%s/%s", root, rel);
    char *dir = lvd_xstrdup(path);
    *strrchr(dir, '/') = '\0';
    lvd_err err = {0};
    assert_int_equal(lvd_mkdir_p(dir, &err), 0);
    tu_write_str(path, text);
    free(dir);
    free(path);
}

static void test_faked_host(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *proc = lvd_xasprintf("%s/proc", dir), *sys = lvd_xasprintf("%s/sys", dir);
    put(proc, "driver/nvidia/version",
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  565.57.01  Thu Oct 10 12:29:05 UTC 2024\n"
        "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
    put(proc, "sys/kernel/osrelease", "6.1.0-28-amd64\n");
    put(proc, "cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD Ryzen 9 7950X 16-Core Processor\n");
    put(sys, "devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n");
    put(sys, "class/drm/card0/device/hwmon/hwmon0/power1_cap", "220000000\n");
    setenv("LVD_PROC_ROOT", proc, 1);
    setenv("LVD_SYSFS_ROOT", sys, 1);
    engine_facts f = {0};
    engine_host_facts(&f);
    assert_string_equal(engine_facts_get(&f, "driver"), "565.57.01");
    assert_string_equal(engine_facts_get(&f, "kernel"), "6.1.0-28-amd64");
    assert_string_equal(engine_facts_get(&f, "cpu"), "AMD Ryzen 9 7950X 16-Core Processor");
    assert_string_equal(engine_facts_get(&f, "governor"), "powersave");
    assert_string_equal(engine_facts_get(&f, "gpu_power_cap"), "220000000");
    assert_null(engine_facts_get(&f, "amdgpu")); /* no file: left out */
    engine_facts_from_log(&f, "ggml_vulkan: Found 1 Vulkan devices:\n"
                              "ggml_vulkan: 0 = NVIDIA H200 (NVIDIA) | uma: 0 | fp16: 1 | warp size: 32\n");
    assert_string_equal(engine_facts_get(&f, "vulkan_driver"), "NVIDIA");

    store *s = tu_store(dir);
    lvd_err err = {0};
    assert_int_equal(store_facts_put(s, "night-1", "box", f.names, f.values, f.n, &err), 0);
    engine_facts_set(&f, "driver", "560.35.03");
    assert_int_equal(store_facts_put(s, "night-2", "box", f.names, f.values, f.n, &err), 0);
    store_fact *v;
    size_t n;
    assert_int_equal(store_facts_list(s, "box", &v, &n, &err), 0);
    assert_int_equal(n, 2 * f.n);
    size_t drivers = 0;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].name, "driver"))
            drivers += !strcmp(v[i].value, !strcmp(v[i].session, "night-1") ? "565.57.01" : "560.35.03");
    assert_int_equal(drivers, 2);
    store_facts_free(v, n);
    store_close(s);
    engine_facts_free(&f);
    unsetenv("LVD_PROC_ROOT");
    unsetenv("LVD_SYSFS_ROOT");
    free(proc);
    free(sys);
    tu_tmpdir_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_faked_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
