/* test_alloclog.c: the allocation-line parser (engine/alloclog.c) on the real
 * captures in tests/fixtures/llama.cpp/alloc-b9749/ (exact values), the host
 * folding, several loads, and garbage (ignored, never a crash). */
#include "tests/support/testutil.h"

#include "engine/alloclog.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIBB(x) ((int64_t)llround((x) * 1048576.0))

static lvd_alloc *parse_text(const char *text, size_t *n)
{
    lvd_alloc *a = NULL;
    lvd_err err = {{0}};
    if (engine_alloc_parse(text, strlen(text), &a, n, &err) != 0)
        fail_msg("%s", err.msg);
    return a;
}

static lvd_alloc *parse_fixture_in(const char *dir, const char *name, size_t *n)
{
    char *rel = lvd_xasprintf("llama.cpp/%s/%s", dir, name);
    char *full = tu_fixture(rel);
    char *text = tu_read(full, NULL);
    lvd_alloc *a = parse_text(text, n);
    free(rel);
    free(full);
    free(text);
    return a;
}

static lvd_alloc *parse_fixture(const char *name, size_t *n)
{
    return parse_fixture_in("alloc-b9749", name, n);
}

static const lvd_alloc *dev(const lvd_alloc *a, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(a[i].device, name))
            return &a[i];
    fail_msg("no device %s", name);
    return NULL;
}

static void expect(const lvd_alloc *a, int64_t model, int64_t kv, int64_t compute)
{
    assert_int_equal(a->model, model);
    assert_int_equal(a->kv, kv);
    assert_int_equal(a->compute, compute);
    assert_int_equal(a->pred_model, -1);
}

static void test_vulkan_bench_v(void **state)
{
    (void)state;
    size_t n;
    lvd_alloc *a = parse_fixture("vk-bench-v.stderr", &n);
    assert_int_equal(n, 2);
    /* the token embeddings stay on the host; two contexts (pp16, tg4): the larger */
    expect(dev(a, n, "CPU"), MIBB(8.30), -1, MIBB(0.04));
    expect(dev(a, n, "Vulkan0"), MIBB(11.30), MIBB(0.50), MIBB(1.97));
    free(a);
}

static void test_vulkan_server(void **state)
{
    (void)state;
    size_t n;
    lvd_alloc *a = parse_fixture("vk-server.stderr", &n);
    assert_int_equal(n, 2);
    expect(dev(a, n, "Vulkan0"), MIBB(11.30), MIBB(8.00), MIBB(9.13));
    expect(dev(a, n, "CPU"), MIBB(8.30), -1, MIBB(5.01));
    free(a);
}

static void test_cpu_bench_v(void **state)
{
    (void)state;
    size_t n;
    lvd_alloc *a = parse_fixture("cpu-bench-v.stderr", &n);
    assert_int_equal(n, 1);
    expect(dev(a, n, "CPU"), MIBB(19.60), MIBB(0.50), MIBB(1.98));
    free(a);
}

/* The same llama-bench -v on the small llama of every era: b4547's
 * llama_kv_cache_init and llama_init_from_model lines, b10587's as b9749's. */
static void test_cpu_bench_v_eras(void **state)
{
    (void)state;
    size_t n;
    lvd_alloc *a = parse_fixture_in("cpu-build-b4547", "cpu-bench-v.stderr", &n);
    assert_int_equal(n, 1);
    expect(dev(a, n, "CPU"), MIBB(19.60), MIBB(0.06), MIBB(3.94));
    free(a);
    a = parse_fixture_in("cpu-build-b10587", "cpu-bench-v.stderr", &n);
    assert_int_equal(n, 1);
    expect(dev(a, n, "CPU"), MIBB(19.60), MIBB(0.50), MIBB(1.98));
    free(a);
}

static void test_without_v_nothing(void **state)
{
    (void)state;
    size_t n;
    lvd_alloc *a = parse_fixture("vk-bench.stderr", &n);
    assert_int_equal(n, 0);
    assert_null(a);
}

/* Buffers of one load add up on the host (CPU_Mapped + CPU_REPACK); a second
 * load smaller than the first does not replace it; CUDA names; CRLF. */
static void test_sum_and_max(void **state)
{
    (void)state;
    size_t n;
    lvd_alloc *a = parse_text("load_tensors:   CPU_Mapped model buffer size =   100.00 MiB\r\n"
                              "load_tensors:   CPU_REPACK model buffer size =    50.50 MiB\n"
                              "load_tensors:        CUDA0 model buffer size =  4000.00 MiB\n"
                              "llama_kv_cache:      CUDA0 KV buffer size =   256.00 MiB\n"
                              "sched_reserve:       CUDA0 compute buffer size =   300.25 MiB\n"
                              "sched_reserve:   CUDA_Host compute buffer size =    12.00 MiB\n"
                              "load_tensors:        CUDA0 model buffer size =  1000.00 MiB\n",
                              &n);
    assert_int_equal(n, 2);
    expect(dev(a, n, "CPU"), MIBB(150.50), -1, MIBB(12.00));
    expect(dev(a, n, "CUDA0"), MIBB(4000.00), MIBB(256.00), MIBB(300.25));
    free(a);
}

/* A hybrid's memory on a host with AMX: its attention blocks' KV and its
 * recurrent blocks' state (llama_memory_recurrent's "RS buffer") are one
 * load's cache; the weights ggml-cpu repacked for AMX are host memory. */
static void test_recurrent_state(void **state)
{
    (void)state;
    size_t n;
    lvd_alloc *a = parse_text("0.00.100.000 I load_tensors:          AMX model buffer size =   159.50 MiB\n"
                              "0.00.100.100 I load_tensors:   CPU_Mapped model buffer size =   158.45 MiB\n"
                              "0.00.201.100 I llama_kv_cache:        CPU KV buffer size =     4.00 MiB\n"
                              "0.00.201.300 I llama_memory_recurrent:        CPU RS buffer size =     2.50 MiB\n"
                              "0.00.260.000 I sched_reserve:        CPU compute buffer size =    10.14 MiB\n",
                              &n);
    assert_int_equal(n, 1);
    expect(dev(a, n, "CPU"), MIBB(317.95), MIBB(6.50), MIBB(10.14)); /* AMX's repacked weights are the host's */
    free(a);
}

static void test_garbage_ignored(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "load_tensors: model buffer size = 1.00 MiB\n",
        "load_tensors:  CUDA0 model buffer size = -1.00 MiB\n",
        "load_tensors:  CUDA0 model buffer size = 1e400 MiB\n",
        "load_tensors:  CUDA0 model buffer size = 99999999999.00 MiB\n",
        "~llama_context:  CUDA0 compute buffer size is   1.9688 MiB, matches expectation\n",
        "llama_kv_cache: size =    0.50 MiB (   256 cells,   4 layers,  1/1 seqs)\n",
        "load_tensors:  CUDA0 model buffer size = 1.00 GiB\n",
        "\x01\xff\xfe load_tensors: \n\n\n",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        size_t n = 7;
        lvd_alloc *a = parse_text(bad[i], &n);
        assert_int_equal(n, 0);
        free(a);
    }
    /* pseudo-random bytes: no crash, at most the device bound */
    char *buf = lvd_xcalloc(1, 65537);
    uint32_t x = 12345;
    for (int round = 0; round < 50; round++) {
        for (size_t i = 0; i < 65536; i++) {
            x = x * 1103515245u + 12345u;
            buf[i] = (char)(x >> 24);
        }
        size_t n;
        lvd_alloc *a = NULL;
        lvd_err err = {{0}};
        assert_int_equal(engine_alloc_parse(buf, 65536, &a, &n, &err), 0);
        assert_true(n <= ENGINE_ALLOC_MAX_DEVICES);
        free(a);
    }
    /* more devices than the bound: capped */
    lvd_sb sb = {0};
    for (int i = 0; i < 200; i++)
        lvd_sb_addf(&sb, "load_tensors: CUDA%d model buffer size = 1.00 MiB\n", i);
    size_t n;
    lvd_alloc *a = parse_text(lvd_sb_str(&sb), &n);
    assert_int_equal(n, ENGINE_ALLOC_MAX_DEVICES);
    free(a);
    lvd_sb_free(&sb);
    free(buf);
}

static void test_oom_line(void **state)
{
    (void)state;
    const char *t = "llama_model_load: loading\n"
                    "ggml_vulkan: Device memory allocation of size 1 failed: ErrorOutOfDeviceMemory\r\n"
                    "more\n";
    char *line = engine_alloc_oom_line(t, strlen(t));
    assert_non_null(line);
    assert_string_equal(line, "ggml_vulkan: Device memory allocation of size 1 failed: "
                              "ErrorOutOfDeviceMemory");
    free(line);
    const char *u = "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 5.00 MiB on device 0: "
                    "cudaMalloc failed: out of memory";
    line = engine_alloc_oom_line(u, strlen(u));
    assert_string_equal(line, u);
    free(line);
    const char *v = "llama_init_from_model: FAILED TO ALLOCATE buffer\n";
    line = engine_alloc_oom_line(v, strlen(v));
    assert_non_null(line);
    free(line);
    const char *ok = "load_tensors: Vulkan0 model buffer size = 11.30 MiB\n";
    assert_null(engine_alloc_oom_line(ok, strlen(ok)));
    char *cap = tu_fixture("llama.cpp/alloc-b9749/vk-bench-overcommit.stderr");
    char *text = tu_read(cap, NULL);
    assert_null(engine_alloc_oom_line(text, strlen(text)));
    free(cap);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vulkan_bench_v), cmocka_unit_test(test_vulkan_server),
        cmocka_unit_test(test_cpu_bench_v),
        cmocka_unit_test(test_cpu_bench_v_eras),    cmocka_unit_test(test_without_v_nothing),
        cmocka_unit_test(test_sum_and_max),    cmocka_unit_test(test_garbage_ignored),
        cmocka_unit_test(test_recurrent_state),
        cmocka_unit_test(test_oom_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
