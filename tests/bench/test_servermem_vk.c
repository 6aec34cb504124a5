/* test_servermem_vk.c: the servermem verdicts (bench/servermem.h) of
 * b10587's Vulkan build on Mesa's software device, lavapipe
 * (tests/fixtures/llama.cpp/arch-sweep-b10587-vulkan, each model's shape
 * from its header in tests/fixtures/models/arch-heads): every llama-server
 * load judged on Vulkan0's own buffers (model, KV and recurrent state,
 * compute) and on the host's compute buffer beside it, from the shape alone
 * and with llama-fit-params' figures. A regression guard, not a goal: per
 * architecture, the lowest and highest ratio of each figure are held to
 * what build/perf/perf_server_memory --summary printed for the fixture
 * when it was captured (docs/compatibility.md), to its three decimals; a
 * change to the estimator that moves them must update this table and the
 * docs together. */
#include "bench/servermem.h"
#include "placement/cbuf.h"
#include "tests/support/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP "llama.cpp/arch-sweep-b10587-vulkan/"

enum { F_KV, F_COMPUTE, F_MODEL, F_HOST, N_FIGURES };
static const char *const figure_name[N_FIGURES] = {"KV+state", "compute", "model", "host compute"};

typedef struct held {
    const char *arch;
    size_t n;                       /* loads */
    double lo[N_FIGURES][2], hi[N_FIGURES][2]; /* [figure][0 shape, 1 with llama-fit-params] */
} held;

/* build/perf/perf_server_memory --summary of the fixture, the day it was
 * captured, since the estimator follows the delta-net and short-convolution
 * graphs, offloads the logits' matmul only at 32 output rows, runs the
 * last block's feed-forward on the output rows and keeps MLA's
 * stream-broadcast matmul off ggml-vulkan and sizes the cache's views
 * over every stream: per architecture, loads, then the lowest and the highest ratio
 * of KV+state, compute, model and host compute, each {shape, with
 * llama-fit-params}; -1: not priced (the seed's constant prices the
 * device's compute buffer alone) */
static const held want[] = {
    {"deepseek2 without MLA", 36,
     {{1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}, {0.999, 0.999}},
     {{1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}}},
    {"deepseek2", 36,
     {{1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}},
     {{1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}}},
    {"gemma3", 36,
     {{1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}, {0.999, 0.999}},
     {{1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}}},
    {"gemma4", 36,
     {{1.000, 1.000}, {7.043, 0.292}, {1.000, 1.000}, {-1, 1.293}},
     {{1.000, 1.000}, {106.099, 3.299}, {1.000, 1.000}, {-1, 172.268}}},
    {"glm4moe", 36,
     {{1.000, 1.000}, {0.990, 0.990}, {1.324, 0.983}, {0.999, 0.999}},
     {{1.000, 1.000}, {1.000, 1.000}, {1.324, 0.983}, {1.000, 1.000}}},
    {"gpt-oss", 36,
     {{1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}},
     {{1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}, {1.014, 1.014}}},
    {"granitehybrid", 36,
     {{1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}, {0.999, 0.999}},
     {{1.001, 1.001}, {1.064, 1.064}, {1.000, 1.000}, {1.000, 1.000}}},
    {"lfm2", 36,
     {{0.999, 0.999}, {0.999, 0.999}, {1.000, 1.000}, {0.999, 0.999}},
     {{1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}, {1.001, 1.001}}},
    {"llama4", 36,
     {{1.000, 1.000}, {0.899, 0.899}, {1.000, 1.000}, {0.999, 0.999}},
     {{1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}}},
    {"nemotron_h", 36,
     {{1.000, 1.000}, {1.003, 1.003}, {1.000, 1.000}, {0.998, 0.998}},
     {{1.000, 1.000}, {1.050, 1.050}, {1.000, 1.000}, {1.000, 1.000}}},
    {"nemotron_h_moe", 36,
     {{0.999, 0.999}, {1.012, 1.012}, {1.000, 1.000}, {0.998, 0.998}},
     {{1.000, 1.000}, {1.267, 1.267}, {1.000, 1.000}, {1.000, 1.000}}},
    {"qwen35", 36,
     {{1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}, {0.997, 0.997}},
     {{1.000, 1.000}, {1.128, 1.128}, {1.000, 1.000}, {1.001, 1.001}}},
    {"qwen35moe", 36,
     {{1.000, 1.000}, {1.000, 1.000}, {1.126, 1.002}, {0.997, 0.997}},
     {{1.000, 1.000}, {1.128, 1.128}, {1.126, 1.002}, {1.001, 1.001}}},
    {"qwen3moe", 36,
     {{1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}, {0.999, 0.999}},
     {{1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}, {1.001, 1.001}}},
    {"qwen3next", 36,
     {{1.000, 1.000}, {0.985, 0.985}, {1.000, 1.000}, {0.999, 0.999}},
     {{1.000, 1.000}, {1.091, 1.091}, {1.000, 1.000}, {1.001, 1.001}}},
    {"seed_oss", 36,
     {{1.000, 1.000}, {0.999, 0.999}, {1.000, 1.000}, {0.999, 0.999}},
     {{1.000, 1.000}, {1.000, 1.000}, {1.000, 1.000}, {1.001, 1.001}}},

};

typedef struct seen {
    char arch[64];
    size_t n;
    double lo[N_FIGURES][2], hi[N_FIGURES][2];
    size_t count[N_FIGURES][2];
} seen;

static seen *seen_of(seen *v, size_t *n, const char *arch)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(v[i].arch, arch))
            return &v[i];
    assert_true(*n < 64);
    seen *s = &v[(*n)++];
    memset(s, 0, sizeof *s);
    snprintf(s->arch, sizeof s->arch, "%s", arch);
    return s;
}

static void note(seen *s, int f, int k, double r)
{
    if (r < 0)
        return;
    if (!s->count[f][k] || r < s->lo[f][k])
        s->lo[f][k] = r;
    if (!s->count[f][k] || r > s->hi[f][k])
        s->hi[f][k] = r;
    s->count[f][k]++;
}

/* Every llama-server load of the fixture's file, judged; per architecture
 * (per graph rule: deepseek2 with and without MLA apart) into v. */
static void judge_file(const char *file, seen *v, size_t *n_seen)
{
    size_t len, n;
    char *heads = tu_fixture("models/arch-heads");
    char *path = tu_fixture(file), *text = tu_read(path, &len);
    bench_cbuf_case *cs;
    lvd_err err = {{0}};
    assert_int_equal(bench_cbuf_cases_parse(text, len, path, &cs, &n, &err), 0);
    for (size_t i = 0; i < n; i++) {
        const bench_cbuf_case *c = &cs[i];
        if (strcmp(c->tool, "llama-server") || !c->n_alloc)
            continue;
        assert_true(c->gpu);                /* Vulkan0's buffers were read */
        assert_int_not_equal(c->dev.max_tensor, 0); /* lavapipe's limits, from its "using device" line */
        gguf_shape s;
        if (bench_cbuf_head_shape(heads, c->model, &s, &err) != 0)
            fail_msg("%s", err.msg);
        const bench_cbuf_case *fit = bench_server_fitprint_of(cs, n, c);
        assert_non_null(fit);
        seen *a = seen_of(v, n_seen, placement_cbuf_rule(&s));
        for (int k = 0; k < 2; k++) {
            bench_server_verdict vd;
            bench_server_judge(c, k ? fit : NULL, &s, &vd);
            if (!vd.priced || !vd.device)
                fail_msg("%s -c %u: not priced on the device: %s", s.arch, c->ctx, vd.why);
            const double r[N_FIGURES] = {vd.ratio_kv, vd.ratio_compute, vd.ratio_model, vd.ratio_host};
            for (int f = 0; f < N_FIGURES; f++)
                note(a, f, k, r[f]);
        }
        a->n++;
    }
    bench_cbuf_cases_free(cs, n);
    free(text);
    free(path);
    free(heads);
}

static void check_arch(const held *w, const seen *s)
{
    if (s->n != w->n)
        fail_msg("%s: %zu loads, the fixture held %zu", w->arch, s->n, w->n);
    for (int f = 0; f < N_FIGURES; f++)
        for (int k = 0; k < 2; k++) {
            const char *how = k ? "with llama-fit-params" : "shape";
            if (w->lo[f][k] < 0 && !s->count[f][k])
                continue;
            if (!s->count[f][k])
                fail_msg("%s: %s, %s: no ratio, %.3f-%.3f held", w->arch, figure_name[f], how, w->lo[f][k],
                         w->hi[f][k]);
            if (fabs(s->lo[f][k] - w->lo[f][k]) > 0.0005 || fabs(s->hi[f][k] - w->hi[f][k]) > 0.0005)
                fail_msg("%s: %s, %s: %.3f-%.3f, %.3f-%.3f held", w->arch, figure_name[f], how, s->lo[f][k],
                         s->hi[f][k], w->lo[f][k], w->hi[f][k]);
        }
}

static void test_ranges_held(void **state)
{
    (void)state;
    seen *v = calloc(64, sizeof *v);
    size_t n = 0;
    assert_non_null(v);
    judge_file(SWEEP "cases.txt", v, &n);
    judge_file(SWEEP "cases-deepseek2-legacy.txt", v, &n);
    assert_int_equal(n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const seen *s = NULL;
        for (size_t j = 0; j < n; j++)
            if (!strcmp(v[j].arch, want[i].arch))
                s = &v[j];
        if (!s)
            fail_msg("%s: no loads in the fixture", want[i].arch);
        check_arch(&want[i], s);
    }
    free(v);
}

/* deepseek2's MLA decompresses V with a weight [kv_lora_rank, hd_v,
 * n_head] over the attention's output, whose fourth dimension is the
 * cache's streams: with -np 4 and no -kvu, ggml broadcasts the weight,
 * which ggml-vulkan refuses (supports_op: a->ne[3] != b->ne[3]). The
 * host runs that matmul, its inputs copied into the host's buffer; a CUDA
 * device runs it itself. Same model, same setting, the device's name the
 * same: only the backend differs. */
static void test_mla_streams_leave_vulkan(void **state)
{
    (void)state;
    char *heads = tu_fixture("models/arch-heads");
    gguf_shape s;
    lvd_err err = {{0}};
    if (bench_cbuf_head_shape(heads, "arch-deepseek2.gguf", &s, &err) != 0)
        fail_msg("%s", err.msg);
    placement_cbuf_in in = {.shape = &s, .ctx = 4096, .ubatch = 512, .flash_attn = 1, .gpu = 1,
                            .n_gpu_layers = -1, .n_outputs = 4, .n_seq = 4};
    placement_cbuf vk, cuda, one;
    in.dev = placement_cbuf_dev_of("vulkan", "NVIDIA H100 80GB HBM3");
    placement_cbuf_predict(&in, &vk);
    in.dev = placement_cbuf_dev_of("cuda", "NVIDIA H100 80GB HBM3");
    placement_cbuf_predict(&in, &cuda);
    assert_true(vk.predicted && cuda.predicted);
    /* each block's copied input alone: the attention's output, 512 tokens x
     * kv_lora_rank x n_head f32 */
    uint64_t kqv = 512ull * s.kv_lora_rank * s.n_head * 4;
    assert_true(vk.host_bytes >= cuda.host_bytes + kqv);
    in.n_seq = 1; /* one stream: nothing to broadcast, both alike */
    in.n_outputs = 1;
    placement_cbuf_predict(&in, &one);
    in.dev = placement_cbuf_dev_of("vulkan", "NVIDIA H100 80GB HBM3");
    placement_cbuf_predict(&in, &vk);
    assert_int_equal(vk.host_bytes, one.host_bytes);
    free(heads);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges_held),
        cmocka_unit_test(test_mla_streams_leave_vulkan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
