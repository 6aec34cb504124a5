/* test_multigpu.c: several GPUs, unit by unit: one card seen by
 * two backends is one card (engine/cards.h, on the real H200 CUDA and Vulkan
 * listings), the split modes a build accepts from its real --help
 * (engine/splitmodes.h), the spread of a model over two devices
 * (placement/spread.h), the split arms of a plan (bench/plan.h), the arm key
 * and reported parameters of a split (benchio/arm.h), and the launch line's
 * llama-server spelling (select/launch.h). End to end: e2e_multigpu.sh. */
#include "tests/support/testutil.h"

#include "benchio/arm.h"
#include "bench/plan.h"
#include "engine/cards.h"
#include "engine/devices.h"
#include "engine/splitmodes.h"
#include "placement/spread.h"
#include "select/launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MIB (1024ull * 1024ull)

static char *fixture(const char *rel)
{
    char *path = tu_fixture(rel);
    char *text = tu_read(path, NULL);
    free(path);
    return text;
}

static lvd_device *parse(const char *text, size_t *n)
{
    lvd_device *d = NULL;
    lvd_err err = {{0}};
    if (engine_devices_parse(text, NULL, &d, n, &err) != 0)
        fail_msg("%s", err.msg);
    return d;
}

/* The real CUDA and Vulkan listings of one H200 (gpu-h200/), as one binary
 * carrying both backends lists them: one card. */
static void test_one_card_two_backends(void **state)
{
    (void)state;
    char *cuda = fixture("llama.cpp/gpu-h200/cuda-list-devices.stdout");
    char *vk = fixture("llama.cpp/gpu-h200/vulkan-list-devices.stdout");
    const char *vk_line = strstr(vk, "  Vulkan0");
    assert_non_null(vk_line);
    char *both = lvd_xasprintf("%s%s", cuda, vk_line);
    size_t n, card[2];
    lvd_device *d = parse(both, &n);
    assert_int_equal(n, 2);
    assert_int_equal(d[0].total_mib, 143155); /* the totals differ: 143155 and 143771 */
    assert_int_equal(d[1].total_mib, 143771);
    engine_cards(d, n, NULL, card);
    assert_int_equal(card[0], 0);
    assert_int_equal(card[1], 0);
    assert_int_equal(engine_cards_count(d, n), 1);
    /* PCI bus ids, where a listing gives them, decide over names */
    const char *bus_diff[] = {"0000:01:00.0", "0000:41:00.0"};
    engine_cards(d, n, bus_diff, card);
    assert_int_equal(card[1], 1);
    const char *bus_same[] = {"0000:01:00.0", "0000:01:00.0"};
    d[1].total_mib = 80000; /* a bus id match needs no memory match */
    engine_cards(d, n, bus_same, card);
    assert_int_equal(card[1], 0);
    engine_cards(d, n, NULL, card); /* the only H200 of each backend: one card, whatever the totals */
    assert_int_equal(card[1], 0);
    snprintf(d[1].name, sizeof d[1].name, "NVIDIA A100-SXM4-80GB"); /* another name: another card */
    engine_cards(d, n, NULL, card);
    assert_int_equal(card[1], 1);
    free(d);
    free(both);
    free(cuda);
    free(vk);
}

/* Two identical cards are two cards on one backend; seen by two backends,
 * each pairs with its own listing in order. */
static void test_identical_cards(void **state)
{
    (void)state;
    size_t n, card[5];
    lvd_device *d = parse("Available devices:\n"
                          "  CUDA0: NVIDIA H200 (143155 MiB, 142629 MiB free)\n"
                          "  CUDA1: NVIDIA H200 (143155 MiB, 142629 MiB free)\n"
                          "  Vulkan0: NVIDIA H200 (143771 MiB, 143139 MiB free)\n"
                          "  Vulkan1: NVIDIA H200 (143771 MiB, 143139 MiB free)\n"
                          "  Vulkan2: AMD Radeon RX 7900 XTX (24560 MiB, 24000 MiB free)\n",
                          &n);
    engine_cards(d, n, NULL, card);
    assert_int_equal(card[0], 0);
    assert_int_equal(card[1], 1);
    assert_int_equal(card[2], 0);
    assert_int_equal(card[3], 1);
    assert_int_equal(card[4], 4);
    assert_int_equal(engine_cards_count(d, n), 3);
    free(d);
}

/* One chip of unified memory seen by ROCm and by Vulkan (Mesa's RADV tags the
 * name): two backends to compare, one device for a split; and two cards of
 * one name but other memory pair by their totals first. */
static void test_one_chip_two_pools(void **state)
{
    (void)state;
    size_t n, card[4];
    lvd_device *d = parse("Available devices:\n"
                          "  ROCm0: Radeon 8060S Graphics (98304 MiB, 97876 MiB free)\n"
                          "  Vulkan0: Radeon 8060S Graphics (RADV STRIX_HALO) (114163 MiB, 113421 MiB free)\n",
                          &n);
    assert_int_equal(n, 2);
    char label[32];
    engine_devices_label(d, n, label, sizeof label);
    assert_string_equal(label, "rocm+vulkan");
    engine_cards(d, n, NULL, card);
    assert_int_equal(card[1], 0);
    assert_int_equal(engine_cards_count(d, n), 1);
    free(d);
    d = parse("Available devices:\n"
              "  CUDA0: NVIDIA GeForce RTX 3060 (12288 MiB, 12000 MiB free)\n"
              "  CUDA1: NVIDIA GeForce RTX 3060 (8192 MiB, 8000 MiB free)\n"
              "  Vulkan0: NVIDIA GeForce RTX 3060 (8192 MiB, 8100 MiB free)\n"
              "  Vulkan1: NVIDIA GeForce RTX 3060 (12288 MiB, 12100 MiB free)\n",
              &n);
    engine_cards(d, n, NULL, card);
    assert_int_equal(card[2], 1); /* the 8 GiB card */
    assert_int_equal(card[3], 0); /* the 12 GiB card */
    assert_int_equal(engine_cards_count(d, n), 2);
    free(d);
}

/* The split modes of a --help text read as llama-bench's. */
static int modes_of(const char *text)
{
    engine_help h = {.opts = NULL};
    engine_help_parse(&h, ENGINE_TOOL_BENCH, text);
    int bits = engine_split_modes_of(&h);
    engine_help_free(&h);
    return bits;
}

/* The real b9749 help texts list none, layer, row and tensor (llama-server's
 * spelt {none,layer,row,tensor}); an older build's line without tensor says
 * so; a text without the line, or no help, is the assumed none, layer, row. */
static void test_split_modes_from_help(void **state)
{
    (void)state;
    const int all = ENGINE_SM_NONE | ENGINE_SM_LAYER | ENGINE_SM_ROW | ENGINE_SM_TENSOR;
    char *bench = fixture("llama.cpp/cpu-build-b9749/bench-help.stdout");
    char *server = fixture("llama.cpp/cpu-build-b9749/server-help.stdout");
    assert_int_equal(modes_of(bench), all);
    assert_int_equal(modes_of(server), all);
    assert_int_equal(modes_of("  -sm, --split-mode <none|layer|row>   (default: layer)\n"),
                     ENGINE_SM_NONE | ENGINE_SM_LAYER | ENGINE_SM_ROW);
    assert_int_equal(modes_of("  -sm, --split-mode <tensor>   (default: layer)\n"), ENGINE_SM_TENSOR);
    assert_int_equal(modes_of("usage: llama-bench [options]\n"), ENGINE_SM_ASSUMED);
    assert_int_equal(engine_split_modes_of(NULL), ENGINE_SM_ASSUMED);
    assert_string_equal(engine_split_mode_name(ENGINE_SM_TENSOR), "tensor");
    free(bench);
    free(server);
}

/* A 70B-like dense model: 80 blocks of 500 MiB, 2 GiB outside them (1 GiB of
 * token embeddings), 8 KV heads of 128. */
static gguf_shape big_shape(void)
{
    gguf_shape s = {.known = 1, .arch = "llama", .n_block = 80, .n_embd = 8192, .n_head = 64,
                    .n_head_kv = 8, .head_dim_k = 128, .head_dim_v = 128, .n_ctx_train = 8192,
                    .block_bytes = 500 * MIB, .non_block_bytes = 2048 * MIB, .embd_bytes = 1024 * MIB};
    s.tensor_bytes = s.block_bytes * s.n_block + s.non_block_bytes;
    return s;
}

/* Weights 41024 MiB and KV 1280 MiB on the devices at ctx 4096; headroom
 * 512 MiB reserve each plus the share of 710 MiB compute excess. */
static void test_spread(void **state)
{
    (void)state;
    gguf_shape s = big_shape();
    placement_place_in in = {.shape = &s, .ctx = 4096, .free_mib = -1,
                             .reserve_mib = PLACEMENT_RESERVE_MIB_DEFAULT,
                             .compute_mib_at_ref = PLACEMENT_COMPUTE_MIB_AT_REF};
    placement_spread_result r;
    lvd_err err = {{0}};
    const int64_t even[] = {24000, 24000};
    assert_int_equal(placement_spread(&in, even, 2, &r, &err), 0);
    assert_true(r.fits);
    assert_string_equal(r.tensor_split, "0.50/0.50");
    assert_int_equal(r.ubatch, 512);
    assert_int_equal(r.weight_bytes[0], 20512 * MIB);
    assert_int_equal(r.kv_bytes[1], 640 * MIB);
    assert_int_equal(r.headroom_bytes[0], 512 * MIB + 355 * MIB);
    assert_int_equal(r.margin_bytes[0], (int64_t)((24000 - 20512 - 640 - 867) * MIB));
    const int64_t uneven[] = {32000, 16000};
    assert_int_equal(placement_spread(&in, uneven, 2, &r, &err), 0);
    assert_true(r.fits);
    assert_string_equal(r.tensor_split, "0.67/0.33");
    assert_true(r.weight_bytes[0] > 2 * r.weight_bytes[1] - MIB);
    /* one card of 24000 MiB holds no full residency; two of 20000 do not either */
    placement_result one;
    in.free_mib = 24000;
    assert_int_equal(placement_compute(&in, &one, &err), 0);
    assert_int_equal(one.rung, PLACEMENT_RUNG_PARTIAL);
    const int64_t small[] = {20000, 20000};
    assert_int_equal(placement_spread(&in, small, 2, &r, &err), 0);
    assert_false(r.fits);
    assert_int_equal(r.ubatch, 128); /* the ladder was spent */
    assert_non_null(strstr(r.reason, "does not fit split 0.50/0.50 across 2 devices"));
    assert_int_equal(placement_spread(&in, small, 1, &r, &err), -1);
    assert_non_null(strstr(err.msg, "a split needs 2 to 8 devices"));
    const int64_t unknown[] = {24000, -1};
    assert_int_equal(placement_spread(&in, unknown, 2, &r, &err), -1);
}

typedef struct world {
    char *tmp;
    lvd_engine e;
    lvd_probe p;
} world;

static void world_open(world *w, const char *listing)
{
    memset(w, 0, sizeof *w);
    w->tmp = tu_tmpdir();
    w->e.id = 1;
    w->e.name = lvd_xstrdup("box");
    w->e.build = lvd_xstrdup("b9749");
    w->e.dir = lvd_xstrdup(w->tmp);
    char *bin = lvd_xasprintf("%s/llama-bench", w->tmp);
    tu_write_str(bin, "#!/bin/sh\nexit 0\n");
    chmod(bin, 0755);
    free(bin);
    w->p.devices = parse(listing, &w->p.n_devices);
    engine_devices_label(w->p.devices, w->p.n_devices, w->p.backend, sizeof w->p.backend);
}

static void world_close(world *w)
{
    lvd_engine_free(&w->e);
    lvd_probe_free(&w->p);
    tu_tmpdir_free(w->tmp);
}

static const char TWO_CARDS[] = "Available devices:\n"
                                "  CUDA0: NVIDIA RTX 4090 (24564 MiB, 24000 MiB free)\n"
                                "  CUDA1: NVIDIA RTX 4090 (24564 MiB, 24000 MiB free)\n";

/* Two 24 GB cards and a model that fits both but not one: the split arms
 * (layer, row, tensor x fa on/off), every layer, -ts by free memory, the
 * prediction per device; each card's partial rung skipped for the split. */
static void test_plan_split_arms(void **state)
{
    (void)state;
    world w;
    world_open(&w, TWO_CARDS);
    gguf_shape s = big_shape();
    int accepted = ENGINE_SM_NONE | ENGINE_SM_LAYER | ENGINE_SM_ROW | ENGINE_SM_TENSOR;
    bench_plan_opts o = {.shape = &s, .ctx = 4096, .split_modes = &accepted};
    bench_plan plan;
    lvd_err err = {{0}};
    assert_int_equal(bench_plan_build(&w.e, &w.p, 1, &o, &plan, &err), 0);
    assert_int_equal(plan.n_arms, 6);
    const char *modes[] = {"layer", "layer", "row", "row", "tensor", "tensor"};
    for (size_t i = 0; i < plan.n_arms; i++) {
        const bench_arm *a = &plan.arms[i];
        assert_string_equal(a->params.device, "CUDA0/CUDA1");
        assert_string_equal(a->params.split_mode, modes[i]);
        assert_string_equal(a->params.tensor_split, "0.50/0.50");
        assert_int_equal(a->params.ngl, 99);
        assert_int_equal(a->params.fa, i % 2 ? 0 : 1);
        assert_int_equal(a->n_pred, 3);
        assert_string_equal(a->pred[0].device, "CUDA0");
        assert_string_equal(a->pred[1].device, "CUDA1");
        assert_string_equal(a->pred[2].device, "CPU");
    }
    assert_string_equal(plan.arms[2].arm_key,
                        "dev=CUDA0/CUDA1 sm=row ts=0.50/0.50 ngl=99 fa=1 ub=- ctk=- ctv=- ncmoe=- t=- env=");
    assert_string_equal(plan.arms[2].label, "box CUDA0/CUDA1 sm=row ts=0.50/0.50 ngl=99 fa=on");
    assert_int_equal(plan.arms[0].pred[0].pred_model, (int64_t)(20512 * MIB));
    assert_int_equal(plan.arms[0].pred[2].pred_model, (int64_t)(1024 * MIB)); /* the embeddings */
    assert_int_equal(plan.n_skips, 2);
    assert_string_equal(plan.skips[0].device, "CUDA0");
    assert_string_equal(plan.skips[0].reason,
                        "placement: partial offload here, fully resident split across CUDA0/CUDA1");
    bench_plan_free(&plan);

    /* a build without tensor; -sm asked narrows; -ts given wins */
    accepted = ENGINE_SM_ASSUMED;
    const char *sm[] = {"row", "tensor"};
    o.sm = sm;
    o.n_sm = 2;
    o.ts = "3/1";
    assert_int_equal(bench_plan_build(&w.e, &w.p, 1, &o, &plan, &err), 0);
    assert_int_equal(plan.n_arms, 2);
    assert_string_equal(plan.arms[0].params.split_mode, "row");
    assert_string_equal(plan.arms[0].params.tensor_split, "3/1");
    assert_string_equal(plan.skips[plan.n_skips - 1].reason,
                        "-sm tensor: this llama-bench does not accept it (its --help lists no such split mode)");
    bench_plan_free(&plan);
    const char *bad[] = {"none"};
    o.sm = bad;
    o.n_sm = 1;
    assert_int_equal(bench_plan_build(&w.e, &w.p, 1, &o, &plan, &err), -1);
    assert_non_null(strstr(err.msg, "-sm none is not a split mode across devices"));
    o.n_sm = 0;
    o.ts = "3";
    assert_int_equal(bench_plan_build(&w.e, &w.p, 1, &o, &plan, &err), -1);
    assert_non_null(strstr(err.msg, "-ts '3' is not two or more proportions"));
    world_close(&w);
}

/* A model too big for both: no split arm, its reason; a small model on two
 * cards: single-card arms stay and split arms join them. */
static void test_plan_split_sizes(void **state)
{
    (void)state;
    world w;
    world_open(&w, "Available devices:\n"
                   "  CUDA0: NVIDIA RTX 4090 (24564 MiB, 20000 MiB free)\n"
                   "  CUDA1: NVIDIA RTX 4090 (24564 MiB, 20000 MiB free)\n");
    gguf_shape s = big_shape();
    const int fa[] = {1};
    bench_plan_opts o = {.shape = &s, .ctx = 4096, .fa = fa, .n_fa = 1};
    bench_plan plan;
    lvd_err err = {{0}};
    assert_int_equal(bench_plan_build(&w.e, &w.p, 1, &o, &plan, &err), 0);
    for (size_t i = 0; i < plan.n_arms; i++)
        assert_string_equal(plan.arms[i].params.split_mode, "");
    assert_string_equal(plan.skips[plan.n_skips - 1].device, "CUDA0/CUDA1");
    assert_non_null(strstr(plan.skips[plan.n_skips - 1].reason, "placement: does not fit split"));
    bench_plan_free(&plan);
    s.n_block = 8; /* 4 GB: fits either card */
    s.tensor_bytes = s.block_bytes * s.n_block + s.non_block_bytes;
    assert_int_equal(bench_plan_build(&w.e, &w.p, 1, &o, &plan, &err), 0);
    /* CUDA0, CUDA1, layer, row: no split_modes given, so tensor is not assumed */
    assert_int_equal(plan.n_arms, 4);
    assert_string_equal(plan.arms[0].params.device, "CUDA0");
    assert_string_equal(plan.arms[2].params.device, "CUDA0/CUDA1");
    bench_plan_free(&plan);
    world_close(&w);
}

/* One card seen by CUDA and Vulkan: an arm on each backend, no split. */
static void test_plan_one_card(void **state)
{
    (void)state;
    world w;
    world_open(&w, "Available devices:\n"
                   "  CUDA0: NVIDIA H200 (143155 MiB, 142629 MiB free)\n"
                   "  Vulkan0: NVIDIA H200 (143771 MiB, 143139 MiB free)\n");
    bench_plan_opts o = {0};
    bench_plan plan;
    lvd_err err = {{0}};
    assert_int_equal(bench_plan_build(&w.e, &w.p, 1, &o, &plan, &err), 0);
    assert_int_equal(plan.n_arms, 4);
    for (size_t i = 0; i < plan.n_arms; i++)
        assert_null(strchr(plan.arms[i].params.device, '/'));
    bench_plan_free(&plan);
    world_close(&w);
}

/* What llama-bench reports back: a split only over several devices. */
static void test_reported_split(void **state)
{
    (void)state;
    lvd_result r;
    memset(&r, 0, sizeof r);
    r.rep_ngl = 99;
    r.rep_fa = 1;
    r.reported_json = "{\"devices\": \"CUDA0/CUDA1\", \"split_mode\": \"row\", \"tensor_split\": \"0.67/0.33\"}";
    lvd_params p;
    benchio_params_from_result(&r, &p);
    assert_string_equal(p.device, "CUDA0/CUDA1");
    assert_string_equal(p.split_mode, "row");
    assert_string_equal(p.tensor_split, "0.67/0.33");
    r.reported_json = "{\"devices\": \"CUDA0/CUDA1\", \"split_mode\": \"layer\", \"tensor_split\": \"0.00\"}";
    benchio_params_from_result(&r, &p);
    assert_string_equal(p.split_mode, "layer");
    assert_string_equal(p.tensor_split, "");
    r.reported_json = "{\"devices\": \"CUDA0\", \"split_mode\": \"layer\", \"tensor_split\": \"0.00\"}";
    benchio_params_from_result(&r, &p);
    assert_string_equal(p.split_mode, "");
    char key[320];
    assert_int_equal(benchio_arm_key(&p, key, sizeof key), 0);
    assert_string_equal(key, "dev=CUDA0 ngl=99 fa=1 ub=- ctk=- ctv=- ncmoe=- t=- env=");
}

/* The launch line in llama-server's spelling: devices and split by ','. */
static void test_launch_split(void **state)
{
    (void)state;
    lvd_params p;
    lvd_params_init(&p);
    snprintf(p.device, sizeof p.device, "CUDA0/CUDA1");
    snprintf(p.split_mode, sizeof p.split_mode, "row");
    snprintf(p.tensor_split, sizeof p.tensor_split, "0.67/0.33");
    p.ngl = 99;
    sel_launch l;
    lvd_err err = {{0}};
    assert_int_equal(sel_launch_build("/opt/llama", NULL, "m.gguf", &p, 4096, 1, &l, &err), 0);
    char *line = sel_launch_to_shell(&l);
    assert_string_equal(line, "/opt/llama/llama-server -m m.gguf --device CUDA0,CUDA1 -sm row "
                              "-ts 0.67,0.33 -ngl 99 -c 4096");
    free(line);
    sel_launch_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_card_two_backends),
        cmocka_unit_test(test_identical_cards),
        cmocka_unit_test(test_one_chip_two_pools),
        cmocka_unit_test(test_split_modes_from_help),
        cmocka_unit_test(test_spread),
        cmocka_unit_test(test_plan_split_arms),
        cmocka_unit_test(test_plan_split_sizes),
        cmocka_unit_test(test_plan_one_card),
        cmocka_unit_test(test_reported_split),
        cmocka_unit_test(test_launch_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
