/* test_plan.c: bench/plan.h on probes parsed from the real `--list-devices`
 * captures (H200 CUDA and Vulkan builds, the CPU-only build): which engines
 * get which arms, verbatim selectors, the CPU arm without GPU flags, skipped
 * engines with their reasons, the parameter lists, environment variants
 * scoped to their backend, placement on the real small model, and
 * ik_llama.cpp's knobs where the engine's llama-bench lists them. */
#include "tests/support/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/devices.h"
#include "engine/help.h"
#include "bench/plan.h"
#include "common/gguf.h"
#include "placement/placement.h"

#define H200 "llama.cpp/gpu-h200/"

typedef struct world {
    char *tmp;
    lvd_engine e[5];
    lvd_probe p[5];
} world;

/* A probe from a capture's stdout (and stderr). */
static void probe_from(lvd_probe *p, const char *rel_out, const char *rel_err)
{
    char *po = tu_fixture(rel_out);
    char *out = tu_read(po, NULL);
    char *errt = NULL;
    if (rel_err) {
        char *pe = tu_fixture(rel_err);
        errt = tu_read(pe, NULL);
        free(pe);
    }
    memset(p, 0, sizeof *p);
    lvd_err err = {0};
    if (engine_devices_parse(out, errt, &p->devices, &p->n_devices, &err))
        fail_msg("%s", err.msg);
    engine_devices_label(p->devices, p->n_devices, p->backend, sizeof p->backend);
    free(out);
    free(errt);
    free(po);
}

/* An engine directory, with an executable llama-bench unless bare. */
static void engine_at(world *w, int i, const char *name, int bare)
{
    memset(&w->e[i], 0, sizeof w->e[i]);
    w->e[i].id = i + 1;
    w->e[i].name = lvd_xstrdup(name);
    w->e[i].build = lvd_xstrdup("b9749");
    w->e[i].dir = lvd_xasprintf("%s/%s", w->tmp, name);
    mkdir(w->e[i].dir, 0755);
    if (!bare) {
        char *bin = lvd_xasprintf("%s/llama-bench", w->e[i].dir);
        tu_write_str(bin, "#!/bin/sh\nexit 0\n");
        chmod(bin, 0755);
        free(bin);
    }
}

static int setup(void **state)
{
    world *w = lvd_xcalloc(1, sizeof *w);
    w->tmp = tu_tmpdir();
    engine_at(w, 0, "cuda-local", 0);
    probe_from(&w->p[0], H200 "cuda-list-devices.stdout", H200 "cuda-list-devices.stderr");
    engine_at(w, 1, "b9749-vulkan", 0);
    probe_from(&w->p[1], H200 "vulkan-list-devices.stdout", NULL);
    engine_at(w, 2, "b9749-cpu", 0);
    probe_from(&w->p[2], "llama.cpp/cpu-build-b9749/list-devices.stdout", NULL);
    engine_at(w, 3, "broken", 0);
    memset(&w->p[3], 0, sizeof w->p[3]);
    snprintf(w->p[3].backend, sizeof w->p[3].backend, "%s", LVD_BACKEND_UNKNOWN);
    w->p[3].reason = lvd_xstrdup("killed by signal 11 (Segmentation fault)");
    engine_at(w, 4, "server-only", 1);
    probe_from(&w->p[4], H200 "cuda-list-devices.stdout", NULL);
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    world *w = *state;
    for (int i = 0; i < 5; i++) {
        lvd_engine_free(&w->e[i]);
        lvd_probe_free(&w->p[i]);
    }
    tu_tmpdir_free(w->tmp);
    free(w);
    return 0;
}

static void build_ok(world *w, size_t n, const bench_plan_opts *o, bench_plan *plan)
{
    lvd_err err = {0};
    if (bench_plan_build(w->e, w->p, n, o, plan, &err))
        fail_msg("%s", err.msg);
}

/* Defaults: ngl 99 with fa on and off per device, one bare CPU arm, the
 * unknown engine and the one without llama-bench skipped with reasons. */
static void test_defaults(void **state)
{
    world *w = *state;
    bench_plan_opts o = {0};
    bench_plan plan;
    build_ok(w, 5, &o, &plan);
    assert_int_equal(plan.n_arms, 5);
    const bench_arm *a = plan.arms;
    assert_string_equal(a[0].engine, "cuda-local");
    assert_string_equal(a[0].params.device, "CUDA0");
    assert_string_equal(a[0].backend, "cuda");
    assert_string_equal(a[0].device_name, "NVIDIA H200");
    assert_true(a[0].gpu);
    assert_int_equal(a[0].params.ngl, 99);
    assert_int_equal(a[0].params.fa, 1);
    assert_int_equal(a[1].params.fa, 0);
    assert_string_equal(a[0].label, "cuda-local CUDA0 ngl=99 fa=on");
    assert_string_equal(a[0].arm_key, "dev=CUDA0 ngl=99 fa=1 ub=- ctk=- ctv=- ncmoe=- t=- env=");
    assert_null(a[0].placement);
    assert_string_equal(a[2].params.device, "Vulkan0");
    assert_string_equal(a[2].backend, "vulkan");
    /* the CPU-only build: one arm, no GPU flag at all */
    assert_string_equal(a[4].engine, "b9749-cpu");
    assert_false(a[4].gpu);
    assert_string_equal(a[4].backend, "cpu");
    assert_string_equal(a[4].params.device, "");
    assert_int_equal(a[4].params.ngl, -1);
    assert_int_equal(a[4].params.fa, -1);
    assert_string_equal(a[4].label, "b9749-cpu cpu");
    assert_int_equal(bench_plan_cpu_arm(&plan), 4);
    assert_non_null(strstr(a[4].binary, "/b9749-cpu/llama-bench"));

    assert_int_equal(plan.n_skips, 2);
    assert_string_equal(plan.skips[0].engine, "broken");
    assert_string_equal(plan.skips[0].reason, "probe unknown: killed by signal 11 (Segmentation fault)");
    assert_string_equal(plan.skips[1].engine, "server-only");
    assert_non_null(strstr(plan.skips[1].reason, "no executable llama-bench in "));
    assert_non_null(strstr(plan.skips[1].binary, "server-only/llama-bench"));
    bench_plan_free(&plan);

    /* a probe that never ran (empty backend) is unknown too, never CPU */
    lvd_probe none = {0};
    lvd_err err = {0};
    assert_int_equal(bench_plan_build(&w->e[2], &none, 1, &o, &plan, &err), 0);
    assert_int_equal(plan.n_arms, 0);
    assert_int_equal(plan.n_skips, 1);
    assert_string_equal(plan.skips[0].reason, "probe unknown: never probed");
    assert_int_equal(bench_plan_cpu_arm(&plan), (size_t)-1);
    bench_plan_free(&plan);
}

/* The lists multiply in order; -t reaches every arm, the CPU arm included;
 * a lone -ctk list pairs V with the same type (bench/kvpair.h). */
static void test_lists(void **state)
{
    world *w = *state;
    int ngl[] = {99, 8}, fa[] = {1}, ub[] = {512, 256};
    const char *ctk[] = {"q8_0"};
    bench_plan_opts o = {.ngl = ngl, .n_ngl = 2, .fa = fa, .n_fa = 1, .ub = ub, .n_ub = 2,
                         .ctk = ctk, .n_ctk = 1, .threads = 16};
    bench_plan plan;
    build_ok(w, 3, &o, &plan);
    assert_int_equal(plan.n_arms, 4 + 4 + 1);
    assert_string_equal(plan.arms[0].label, "cuda-local CUDA0 ngl=99 fa=on ub=512 ctk=q8_0 ctv=q8_0 t=16");
    assert_string_equal(plan.arms[1].label, "cuda-local CUDA0 ngl=99 fa=on ub=256 ctk=q8_0 ctv=q8_0 t=16");
    assert_string_equal(plan.arms[2].label, "cuda-local CUDA0 ngl=8 fa=on ub=512 ctk=q8_0 ctv=q8_0 t=16");
    assert_string_equal(plan.arms[3].arm_key,
                        "dev=CUDA0 ngl=8 fa=1 ub=256 ctk=q8_0 ctv=q8_0 ncmoe=- t=16 env=");
    assert_string_equal(plan.arms[8].label, "b9749-cpu cpu t=16");
    assert_string_equal(plan.arms[8].params.type_k, "");
    bench_plan_free(&plan);
}

/* GGML_VK_* reaches Vulkan devices only; an unscoped variable every device. */
static void test_env_variants(void **state)
{
    world *w = *state;
    const char *env[] = {"GGML_VK_PREFER_HOST_MEMORY=1", "LLAMA_ARG_X=1 OTHER=2"};
    int fa[] = {1};
    bench_plan_opts o = {.fa = fa, .n_fa = 1, .env = env, .n_env = 2};
    bench_plan plan;
    build_ok(w, 3, &o, &plan);
    /* cuda: baseline + unscoped; vulkan: baseline + both; cpu: one */
    assert_int_equal(plan.n_arms, 2 + 3 + 1);
    assert_string_equal(plan.arms[0].params.env, "");
    assert_string_equal(plan.arms[1].params.env, "LLAMA_ARG_X=1 OTHER=2");
    assert_string_equal(plan.arms[3].params.env, "GGML_VK_PREFER_HOST_MEMORY=1");
    assert_string_equal(plan.arms[3].label, "b9749-vulkan Vulkan0 ngl=99 fa=on GGML_VK_PREFER_HOST_MEMORY=1");
    assert_string_equal(plan.arms[3].arm_key,
                        "dev=Vulkan0 ngl=99 fa=1 ub=- ctk=- ctv=- ncmoe=- t=- env=GGML_VK_PREFER_HOST_MEMORY=1");
    assert_string_equal(plan.arms[5].params.env, "");
    bench_plan_free(&plan);
}

/* Placement on the real small model: with the probe's free memory it fits
 * (defaults stand); shrunk to what only a smaller ubatch fits, the arms take
 * the rung's parameters and say why; shrunk below anything, the device is
 * skipped. The expectations come from placement_compute itself: this tests that the
 * plan applies placement, not placement's arithmetic. */
static void test_placement(void **state)
{
    world *w = *state;
    char *model = tu_model("small-llama-q8_0.gguf");
    gguf_shape shape;
    lvd_err err = {0};
    if (gguf_read_shape(model, &shape, &err))
        fail_msg("%s", err.msg);
    free(model);
    shape.graph = 0; /* the seed's compute constant: a smaller ubatch is a rung of its own */
    bench_plan_opts o = {.shape = &shape, .ctx = 640};
    bench_plan plan;
    build_ok(w, 1, &o, &plan);
    assert_int_equal(plan.n_arms, 2);
    assert_int_equal(plan.arms[0].params.ngl, 99);
    assert_null(plan.arms[0].placement);
    bench_plan_free(&plan);

    /* find a free size where only a reduced ubatch fits */
    placement_place_in in;
    placement_place_in_init(&in);
    in.shape = &shape;
    in.ctx = 640;
    placement_result pl = {0};
    int64_t mib;
    for (mib = 2000; mib > 0; mib--) {
        in.free_mib = mib;
        assert_int_equal(placement_compute(&in, &pl, &err), 0);
        if (pl.rung != PLACEMENT_RUNG_FULL)
            break;
    }
    assert_true(mib > 0);
    w->p[0].devices[0].free_mib = mib;
    build_ok(w, 1, &o, &plan);
    assert_int_equal(plan.n_arms, 2);
    lvd_params want;
    lvd_params_init(&want);
    placement_placement_apply(&pl, &shape, &want);
    assert_int_equal(plan.arms[0].params.ngl, want.ngl);
    assert_int_equal(plan.arms[0].params.ubatch, want.ubatch);
    assert_int_equal(plan.arms[0].params.n_cpu_moe, want.n_cpu_moe);
    assert_true(want.ubatch > 0 && want.ubatch < 512);
    /* the arm carries the placement's own reason, not just some text */
    assert_int_equal(pl.rung, PLACEMENT_RUNG_REDUCED_UBATCH);
    assert_non_null(plan.arms[0].placement);
    assert_string_equal(plan.arms[0].placement, pl.reason);
    assert_non_null(strstr(plan.arms[0].placement, "MiB free"));
    bench_plan_free(&plan);

    /* an explicit -ngl wins over placement */
    int ngl[] = {99};
    o.ngl = ngl;
    o.n_ngl = 1;
    build_ok(w, 1, &o, &plan);
    assert_int_equal(plan.arms[0].params.ngl, 99);
    assert_int_equal(plan.arms[0].params.ubatch, 0);
    bench_plan_free(&plan);
    o.ngl = NULL;
    o.n_ngl = 0;

    /* nothing fits: the device is skipped with the rung's reason */
    w->p[0].devices[0].free_mib = 1;
    build_ok(w, 1, &o, &plan);
    assert_int_equal(plan.n_arms, 0);
    assert_int_equal(plan.n_skips, 1);
    assert_string_equal(plan.skips[0].device, "CUDA0");
    assert_true(lvd_starts_with(plan.skips[0].reason, "placement: "));
    bench_plan_free(&plan);
    w->p[0].devices[0].free_mib = 142629;
}

static void test_bad_lists(void **state)
{
    world *w = *state;
    bench_plan plan;
    lvd_err err = {0};
    int fa[] = {2};
    bench_plan_opts o = {.fa = fa, .n_fa = 1};
    assert_int_equal(bench_plan_build(w->e, w->p, 3, &o, &plan, &err), -1);
    assert_non_null(strstr(err.msg, "-fa 2"));
    const char *env[] = {"NOEQUALS"};
    bench_plan_opts o2 = {.env = env, .n_env = 1};
    assert_int_equal(bench_plan_build(w->e, w->p, 3, &o2, &plan, &err), -1);
    assert_non_null(strstr(err.msg, "NOEQUALS"));
    int ngl[] = {-3};
    bench_plan_opts o3 = {.ngl = ngl, .n_ngl = 1};
    assert_int_equal(bench_plan_build(w->e, w->p, 3, &o3, &plan, &err), -1);
    int ub[] = {0};
    bench_plan_opts o4 = {.ub = ub, .n_ub = 1};
    assert_int_equal(bench_plan_build(w->e, w->p, 3, &o4, &plan, &err), -1);
    assert_int_equal(plan.n_arms, 0);
}

/* The record of a build's llama-bench --help, as its probe keeps it. */
static char *help_record(const char *rel)
{
    char *text = tu_capture_text(rel);
    engine_help h = {0};
    engine_help_parse(&h, ENGINE_TOOL_BENCH, text);
    char *rec = engine_help_record(&h);
    engine_help_free(&h);
    free(text);
    return rec;
}

/* -fmoe and -rtr multiply the arms of an engine whose llama-bench lists
 * them, each variant next to its arm; the others stay as they were, said. */
static void test_knobs(void **state)
{
    world *w = *state;
    w->p[0].flags = help_record("cpu-build-ik4840/bench-help.stdout"); /* ik's usage on the CUDA engine */
    w->p[2].flags = help_record("cpu-build-b9749/bench-help.stdout");
    int fmoe[] = {0, 1}, rtr[] = {1};
    bench_plan_opts o = {.fmoe = fmoe, .n_fmoe = 2, .rtr = rtr, .n_rtr = 1};
    bench_plan plan;
    build_ok(w, 3, &o, &plan);
    const char *want[] = {
        "cuda-local CUDA0 ngl=99 fa=on fmoe=0 rtr=1", "cuda-local CUDA0 ngl=99 fa=on fmoe=1 rtr=1",
        "cuda-local CUDA0 ngl=99 fa=off fmoe=0 rtr=1", "cuda-local CUDA0 ngl=99 fa=off fmoe=1 rtr=1",
        "b9749-vulkan Vulkan0 ngl=99 fa=on", "b9749-vulkan Vulkan0 ngl=99 fa=off", "b9749-cpu cpu",
    };
    assert_int_equal(plan.n_arms, LVD_ARRAY_LEN(want));
    for (size_t i = 0; i < plan.n_arms; i++)
        assert_string_equal(plan.arms[i].label, want[i]);
    assert_string_equal(plan.arms[1].arm_key, "dev=CUDA0 ngl=99 fa=1 ub=- ctk=- ctv=- ncmoe=- t=- fmoe=1 rtr=1 env=");
    assert_non_null(plan.arms[1].flags); /* what the invocation may pass, copied with the arm */
    assert_int_equal(plan.n_remarks, 4);
    assert_string_equal(plan.remarks[0],
                        "b9749-vulkan: its llama-bench --help was not read, so no -fmoe: its arms run without it");
    assert_string_equal(plan.remarks[2], "b9749-cpu: its llama-bench --help lists no -fmoe: its arms run without it");
    assert_string_equal(plan.remarks[3], "b9749-cpu: its llama-bench --help lists no -rtr: its arms run without it");
    bench_plan_free(&plan);
    /* a value that is not 0 or 1 */
    int two[] = {2};
    o.rtr = two;
    lvd_err err = {0};
    assert_int_equal(bench_plan_build(w->e, w->p, 3, &o, &plan, &err), -1);
    assert_string_equal(err.msg, "plan: -rtr takes 0 or 1");
    free(w->p[0].flags);
    free(w->p[2].flags);
    w->p[0].flags = w->p[2].flags = NULL;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_env_variants),
        cmocka_unit_test(test_placement),
        cmocka_unit_test(test_bad_lists),
        cmocka_unit_test(test_knobs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
