/* test_devices.c: the --list-devices parser (engine/devices.c) on every real
 * capture in tests/fixtures/llama.cpp/ and on synthetic variants of them:
 * noise lines, a missing header, several devices of several backends, CRLF,
 * garbage, and CUDA's compute capability from the init log. */
#include "tests/support/testutil.h"

#include "engine/devices.h"

#include <stdlib.h>
#include <string.h>

static char *fixture(const char *rel)
{
    char *path = lvd_xasprintf("%s/%s", "llama.cpp", rel);
    char *full = tu_fixture(path);
    char *text = tu_read(full, NULL);
    free(path);
    free(full);
    return text;
}

/* Parses out/err (fixture paths or NULL) and checks the label. */
static lvd_device *parse_fixtures(const char *out_rel, const char *err_rel, size_t *n,
                                  const char *want_label)
{
    char *out = fixture(out_rel);
    char *errt = err_rel ? fixture(err_rel) : NULL;
    lvd_device *d = NULL;
    lvd_err err = {{0}};
    if (engine_devices_parse(out, errt, &d, n, &err) != 0)
        fail_msg("%s: %s", out_rel, err.msg);
    char label[16];
    engine_devices_label(d, *n, label, sizeof label);
    assert_string_equal(label, want_label);
    free(out);
    free(errt);
    return d;
}

static lvd_device *parse_ok(const char *out, const char *errt, size_t *n)
{
    lvd_device *d = NULL;
    lvd_err err = {{0}};
    if (engine_devices_parse(out, errt, &d, n, &err) != 0)
        fail_msg("%s", err.msg);
    return d;
}

static void assert_device(const lvd_device *d, const char *sel, const char *name, int64_t total,
                          int64_t free_mib, const char *backend, const char *cc)
{
    assert_string_equal(d->selector, sel);
    assert_string_equal(d->name, name);
    assert_int_equal(d->total_mib, total);
    assert_int_equal(d->free_mib, free_mib);
    assert_string_equal(d->backend, backend);
    assert_string_equal(d->compute_cap, cc);
}

static void test_fixture_cpu_builds(void **state)
{
    (void)state;
    static const char *const outs[] = {
        "cpu-build-b4547/server-list-devices.stdout", /* the header alone: before "(none)" */
        "cpu-build-b9749/list-devices.stdout",
        "cpu-build-b9749/server-list-devices.stdout",
        "cpu-build-b10587/list-devices.stdout",
        "cpu-build-b10587/server-list-devices.stdout",
        "vulkan-build-b10587/list-devices.stdout", /* lavapipe hidden: no device */
        "gpu-h200/cpu-list-devices.stdout",
        "gpu-h200/vulkan-build-no-driver/list-devices.stdout",
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(outs); i++) {
        size_t n = 99;
        lvd_device *d = parse_fixtures(outs[i], NULL, &n, "cpu");
        assert_int_equal(n, 0);
        assert_null(d);
    }
    size_t n;
    lvd_device *d = parse_fixtures("cpu-build-b9749/list-devices.stdout",
                                   "cpu-build-b9749/list-devices.stderr", &n, "cpu");
    assert_int_equal(n, 0);
    assert_null(d);
}

static void test_fixture_cuda(void **state)
{
    (void)state;
    size_t n;
    lvd_device *d = parse_fixtures("gpu-h200/cuda-list-devices.stdout",
                                   "gpu-h200/cuda-list-devices.stderr", &n, "cuda");
    assert_int_equal(n, 1);
    assert_device(&d[0], "CUDA0", "NVIDIA H200", 143155, 142629, "cuda", "9.0");
    free(d);
    /* Without the log there is no compute capability to report. */
    d = parse_fixtures("gpu-h200/cuda-list-devices.stdout", NULL, &n, "cuda");
    assert_int_equal(n, 1);
    assert_device(&d[0], "CUDA0", "NVIDIA H200", 143155, 142629, "cuda", "");
    free(d);
}

static void test_fixture_vulkan(void **state)
{
    (void)state;
    size_t n;
    lvd_device *lp = parse_fixtures("vulkan-build-b10587/list-devices-vk0.stdout",
                                    "vulkan-build-b10587/list-devices-vk0.stderr", &n, "vulkan");
    assert_int_equal(n, 1);
    assert_device(&lp[0], "Vulkan0", "llvmpipe (LLVM 15.0.6, 256 bits)", 2048, 2048, "vulkan", "");
    free(lp);
    lvd_device *d = parse_fixtures("gpu-h200/vulkan-list-devices.stdout",
                                   "gpu-h200/vulkan-list-devices.stderr", &n, "vulkan");
    assert_int_equal(n, 1);
    /* Vulkan's log names the GPU but no compute capability. */
    assert_device(&d[0], "Vulkan0", "NVIDIA H200", 143771, 143139, "vulkan", "");
    free(d);
}

static void test_noise_lines(void **state)
{
    (void)state;
    const char *out =
        "load_backend: loaded CUDA backend from /opt/llama/libggml-cuda.so\n"
        "ggml_cuda_init: found 1 CUDA devices (Total VRAM: 143155 MiB):\n"
        "warning: no usable GPU found, --gpu-layers option will be ignored\n"
        "Available devices:\n"
        "  CUDA0: NVIDIA H200 (143155 MiB, 142629 MiB free)\n"
        "main: exiting\n";
    const char *errt =
        "ggml_cuda_init: found 1 CUDA devices (Total VRAM: 143155 MiB):\n"
        "  Device 0: NVIDIA H200, compute capability 9.0, VMM: yes, VRAM: 143155 MiB\n"
        "  Device 7: Ghost, compute capability 1.0, VMM: no\n";
    size_t n;
    lvd_device *d = parse_ok(out, errt, &n);
    assert_int_equal(n, 1);
    assert_device(&d[0], "CUDA0", "NVIDIA H200", 143155, 142629, "cuda", "9.0");
    free(d);
}

static void test_missing_header(void **state)
{
    (void)state;
    size_t n;
    lvd_device *d = parse_ok("  Vulkan0: AMD Radeon RX 7900 XTX (RADV NAVI31) (24560 MiB, 23000 MiB free)\n",
                             NULL, &n);
    assert_int_equal(n, 1);
    assert_device(&d[0], "Vulkan0", "AMD Radeon RX 7900 XTX (RADV NAVI31)", 24560, 23000, "vulkan", "");
    free(d);
    d = parse_ok("  (none)\n", NULL, &n);
    assert_int_equal(n, 0);
    assert_null(d);
}

static void test_several_devices_and_backends(void **state)
{
    (void)state;
    const char *out =
        "Available devices:\r\n"
        "  CUDA0: NVIDIA GeForce GTX 1080 Ti (11169 MiB, 10900 MiB free)\r\n"
        "  CUDA1: NVIDIA GeForce RTX 3090 (24135 MiB, 23800 MiB free)\r\n"
        "  Vulkan0: NVIDIA GeForce GTX 1080 Ti (11264 MiB, 11000 MiB free)\r\n"
        "  Vulkan1: NVIDIA GeForce RTX 3090 (24576 MiB, 24000 MiB free)\r\n"
        "  CUDA1: NVIDIA GeForce RTX 3090 (24135 MiB, 23800 MiB free)\r\n"; /* repeated */
    const char *errt =
        "ggml_cuda_init: found 2 CUDA devices:\n"
        "  Device 0: NVIDIA GeForce GTX 1080 Ti, compute capability 6.1, VMM: yes\n"
        "  Device 1: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n"
        "ggml_vulkan: 0 = NVIDIA GeForce GTX 1080 Ti (NVIDIA) | uma: 0 | fp16: 0\n";
    size_t n;
    lvd_device *d = parse_ok(out, errt, &n);
    assert_int_equal(n, 4);
    assert_device(&d[0], "CUDA0", "NVIDIA GeForce GTX 1080 Ti", 11169, 10900, "cuda", "6.1");
    assert_device(&d[1], "CUDA1", "NVIDIA GeForce RTX 3090", 24135, 23800, "cuda", "8.6");
    assert_device(&d[2], "Vulkan0", "NVIDIA GeForce GTX 1080 Ti", 11264, 11000, "vulkan", "");
    assert_device(&d[3], "Vulkan1", "NVIDIA GeForce RTX 3090", 24576, 24000, "vulkan", "");
    char label[16];
    engine_devices_label(d, n, label, sizeof label);
    assert_string_equal(label, "cuda+vulkan");
    engine_devices_label(d, n, label, 8); /* "cuda+vulkan" does not fit: vulkan is left out whole */
    assert_string_equal(label, "cuda");
    free(d);
}

static void test_device_without_memory(void **state)
{
    (void)state;
    const char *out = "Available devices:\n"
                      "  MTL0: Apple M2 Max (49152 MiB, 49151 MiB free)\n"
                      "  RPC[10.0.0.2:50052]: remote\n"
                      "RPC0: not indented, not in the list format\n";
    size_t n;
    lvd_device *d = parse_ok(out, NULL, &n);
    assert_int_equal(n, 2);
    assert_device(&d[0], "MTL0", "Apple M2 Max", 49152, 49151, "metal", "");
    assert_device(&d[1], "RPC[10.0.0.2:50052]", "remote", -1, -1, "rpc", "");
    free(d);
}

/* Parses out and checks it lists no device: a CPU engine. */
static void expect_no_device(const char *out, const char *errt)
{
    size_t n = 99;
    lvd_device *d = parse_ok(out, errt, &n);
    assert_int_equal(n, 0);
    assert_null(d);
    char label[16];
    engine_devices_label(d, n, label, sizeof label);
    assert_string_equal(label, "cpu");
}

/* llama-server before "(none)" (b10156) printed the header and nothing for a
 * build that sees no accelerator: b4547, b5970, b7839 in the wild, and a
 * Windows CUDA build whose backend libraries failed to load. */
static void test_empty_list(void **state)
{
    (void)state;
    expect_no_device("Available devices:\n", NULL);
    expect_no_device("Available devices:\n\n", NULL);
    expect_no_device("Available devices:", NULL);
    expect_no_device("Available devices:\r\n\r\n", NULL);
    expect_no_device("load_backend: failed to load C:\\llama\\ggml-cuda.dll\r\nAvailable devices:\r\n",
                     "ggml_cuda_init: failed to initialize CUDA: no CUDA-capable device is detected\n");
}

/* Host accelerators are not devices to offload to: a Mac's CPU build lists
 * BLAS (Accelerate) with no memory, a Metal build lists it beside its GPU. */
static void test_host_accelerators(void **state)
{
    (void)state;
    expect_no_device("Available devices:\n  BLAS: Accelerate (0 MiB, 0 MiB free)\n", NULL);
    expect_no_device("Available devices:\n  BLAS: OpenBLAS\n", NULL);
    expect_no_device("Available devices:\n  ZenDNN: ZenDNN: AMD optimized primitives backend (0 MiB, 0 MiB free)\n",
                     NULL);
    expect_no_device("  BLAS: Accelerate (0 MiB, 0 MiB free)\n", NULL); /* no header: its memory line says it */
    size_t n;
    lvd_device *d = parse_ok("Available devices:\n"
                             "  MTL0: Apple M4 Max (98304 MiB, 98303 MiB free)\n"
                             "  BLAS: Accelerate (0 MiB, 0 MiB free)\n",
                             NULL, &n);
    assert_int_equal(n, 1);
    assert_device(&d[0], "MTL0", "Apple M4 Max", 98304, 98303, "metal", "");
    char label[16];
    engine_devices_label(d, n, label, sizeof label);
    assert_string_equal(label, "metal");
    free(d);
}

/* Metal's device was "Metal" before ggml named it MTL0. */
static void test_metal_names(void **state)
{
    (void)state;
    size_t n;
    lvd_device *d = parse_ok("Available devices:\n  Metal: Apple M1 Pro (10922 MiB, 10922 MiB free)\n", NULL, &n);
    assert_int_equal(n, 1);
    assert_device(&d[0], "Metal", "Apple M1 Pro", 10922, 10922, "metal", "");
    free(d);
}

/* llama.cpp's log prefix (--log-prefix, --log-timestamps, colours) and a
 * capture of both streams in one file (2>&1), CUDA's init lines among them. */
static void test_prefixes_and_one_stream(void **state)
{
    (void)state;
    size_t n;
    lvd_device *d = parse_ok("0.00.126.784 I Available devices:\n"
                             "0.00.126.790 I   CUDA0: NVIDIA GeForce RTX 4090 (24080 MiB, 23600 MiB free)\n",
                             NULL, &n);
    assert_int_equal(n, 1);
    assert_device(&d[0], "CUDA0", "NVIDIA GeForce RTX 4090", 24080, 23600, "cuda", "");
    free(d);
    d = parse_ok("\033[34m0.00.126.784\033[0m \033[32mI \033[0mAvailable devices:\n"
                 "\033[34m0.00.126.785\033[0m \033[32mI \033[0m  (none)\n",
                 NULL, &n);
    assert_int_equal(n, 0);
    const char *both = "ggml_cuda_init: found 1 CUDA devices (Total VRAM: 24080 MiB):\r\n"
                       "Available devices:\r\n"
                       "  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes, VRAM: 24080 MiB\r\n"
                       "  CUDA0: NVIDIA GeForce RTX 4090 (24080 MiB, 23600 MiB free)\r\n"
                       "load_backend: loaded CPU backend from ./libggml-cpu.so\r\n";
    d = parse_ok(both, NULL, &n);
    assert_int_equal(n, 1);
    assert_device(&d[0], "CUDA0", "NVIDIA GeForce RTX 4090", 24080, 23600, "cuda", "8.9");
    free(d);
}

static void expect_error(const char *out, const char *want)
{
    lvd_device *d = (lvd_device *)1;
    size_t n = 7;
    lvd_err err = {{0}};
    assert_int_equal(engine_devices_parse(out, NULL, &d, &n, &err), -1);
    assert_null(d);
    assert_int_equal(n, 0);
    if (!strstr(err.msg, want))
        fail_msg("error '%s' lacks '%s'", err.msg, want);
}

static void test_unrecognised_output(void **state)
{
    (void)state;
    expect_error("", "no device list");
    expect_error("Segmentation fault\n\x01\xff garbage (12 MiB)\n", "no device list");
    expect_error("Segmentation fault\n", "no device list");
    expect_error("ggml_vulkan: No devices found.\n", "no device list"); /* stderr alone says no list */
    expect_error("usage: llama-bench [options]\n", "no device list");
    char *long_sel = lvd_xasprintf("  CUDA%0100d: X (1 MiB, 1 MiB free)\n", 0);
    expect_error(long_sel, "selector longer");
    free(long_sel);
}

static void expect_backend(const char *selector, const char *want)
{
    char buf[16];
    engine_backend_of_selector(selector, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static void test_backend_of_selector(void **state)
{
    (void)state;
    expect_backend("CUDA0", "cuda");
    expect_backend("CUDA12", "cuda");
    expect_backend("Vulkan1", "vulkan");
    expect_backend("ROCm0", "rocm");
    expect_backend("HIP0", "rocm");
    expect_backend("MTL0", "metal");
    expect_backend("Metal", "metal");
    expect_backend("SYCL0", "sycl");
    expect_backend("BLAS", "blas");
    expect_backend("OpenCL0", "opencl");
    expect_backend("RPC[10.0.0.2:50052]", "rpc");
    expect_backend("Averyveryverylongbackendname0", "averyveryverylo");
}

static void test_label_cpu(void **state)
{
    (void)state;
    char label[16];
    engine_devices_label(NULL, 0, label, sizeof label);
    assert_string_equal(label, LVD_BACKEND_CPU);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_cpu_builds),
        cmocka_unit_test(test_fixture_cuda),
        cmocka_unit_test(test_fixture_vulkan),
        cmocka_unit_test(test_noise_lines),
        cmocka_unit_test(test_missing_header),
        cmocka_unit_test(test_several_devices_and_backends),
        cmocka_unit_test(test_device_without_memory),
        cmocka_unit_test(test_empty_list),
        cmocka_unit_test(test_host_accelerators),
        cmocka_unit_test(test_metal_names),
        cmocka_unit_test(test_prefixes_and_one_stream),
        cmocka_unit_test(test_unrecognised_output),
        cmocka_unit_test(test_backend_of_selector),
        cmocka_unit_test(test_label_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
