/* test_startup.c: devices from what a build's backends print as they start
 * (engine/startup.c): ik_llama.cpp's CUDA lines (the reconstructed
 * cuda-ik4840-reconstructed/), mainline's later "(Total VRAM: N MiB)" form
 * (gpu-h200/), an init failure, and a CPU build that announces nothing
 * (cpu-build-ik4840/). */
#include "tests/support/testutil.h"

#include "engine/startup.h"

#include <stdlib.h>
#include <string.h>


static void expect_h200(const char *rel, int64_t total)
{
    char *text = tu_capture_text(rel);
    lvd_device *d;
    size_t n;
    char note[200];
    assert_int_equal(engine_startup_devices(text, &d, &n, note, sizeof note), 1);
    assert_int_equal(n, 1);
    assert_string_equal(d[0].selector, "CUDA0");
    assert_string_equal(d[0].name, "NVIDIA H200");
    assert_string_equal(d[0].backend, "cuda");
    assert_string_equal(d[0].compute_cap, "9.0");
    assert_int_equal(d[0].total_mib, total);
    assert_int_equal(d[0].free_mib, -1);
    assert_string_equal(note, "");
    free(d);
    free(text);
}

static void test_cuda_devices(void **state)
{
    (void)state;
    expect_h200("cuda-ik4840-reconstructed/list-devices.stderr", 143156);
    expect_h200("cuda-ik4840-reconstructed/bench-help.stderr", 143156);
    expect_h200("gpu-h200/cuda-list-devices.stderr", 143155);
}

static void test_two_devices_and_rocm(void **state)
{
    (void)state;
    lvd_device *d;
    size_t n;
    const char *text = "ggml_cuda_init: found 2 ROCm devices:\n"
                       "  Device 0: AMD Radeon RX 7900 XTX, compute capability 11.0, VMM: no\n"
                       "  Device 1: AMD Radeon RX 7900 XTX, compute capability 11.0, VMM: no\n";
    assert_int_equal(engine_startup_devices(text, &d, &n, NULL, 0), 1);
    assert_int_equal(n, 2);
    assert_string_equal(d[1].selector, "ROCm1");
    assert_string_equal(d[1].backend, "rocm");
    assert_int_equal(d[1].total_mib, -1);
    free(d);
}

static void test_failed_and_silent(void **state)
{
    (void)state;
    lvd_device *d;
    size_t n;
    char note[200];
    char *text = tu_capture_text("cuda-ik4840-reconstructed/list-devices-no-gpu.stderr");
    assert_int_equal(engine_startup_devices(text, &d, &n, note, sizeof note), 1);
    assert_int_equal(n, 0);
    assert_null(d);
    assert_string_equal(note, "failed to initialize CUDA: no CUDA-capable device is detected");
    free(text);
    /* a CPU build says nothing of a backend; nor does a device line without its header */
    text = tu_capture_text("cpu-build-ik4840/bench-json-v-tiny.stderr");
    assert_int_equal(engine_startup_devices(text, &d, &n, note, sizeof note), 0);
    assert_int_equal(n, 0);
    free(text);
    assert_int_equal(engine_startup_devices("  Device 0: X, compute capability 9.0, VMM: yes\n", &d, &n, NULL, 0), 0);
    assert_int_equal(n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuda_devices),
        cmocka_unit_test(test_two_devices_and_rocm),
        cmocka_unit_test(test_failed_and_silent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
