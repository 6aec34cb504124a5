/* test_cbuf_vkorder.c: the replay of ggml-vulkan's reordering of a split
 * (placement/cbuf_vkorder.c) against what the real one did. The fixtures
 * (tests/fixtures/llama.cpp/vk-reorder-b10587/) hold, for six loads of the
 * b10587 Vulkan build (dense, biased Q/K/V, sliding window with softcaps,
 * MLA, MoE with and without normalised weights, fully offloaded and with
 * the blocks on the host, flash attention on and off), every device split
 * of the prompt graph in graph order and the order graph_optimize left it
 * in: the replay must give the same order, node for node. Also the switch
 * that turns it on (placement_cbuf_dev_of). */
#include "placement/cbuf.h"
#include "placement/cbuf_internal.h"
#include "tests/support/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ggml_op_name of the ops the replay tells apart; any other is OTHER. */
static const struct {
    const char *name;
    placement_cbuf_op op;
} op_names[] = {
    {"NONE", PLACEMENT_CBUF_OP_NONE},         {"GET_ROWS", PLACEMENT_CBUF_OP_GET_ROWS},
    {"ROPE", PLACEMENT_CBUF_OP_ROPE},         {"FLASH_ATTN_EXT", PLACEMENT_CBUF_OP_FLASH_ATTN_EXT},
    {"VIEW", PLACEMENT_CBUF_OP_VIEW},         {"RESHAPE", PLACEMENT_CBUF_OP_RESHAPE},
    {"PERMUTE", PLACEMENT_CBUF_OP_PERMUTE},   {"TRANSPOSE", PLACEMENT_CBUF_OP_TRANSPOSE},
    {"ADD", PLACEMENT_CBUF_OP_ADD},           {"ADD_ID", PLACEMENT_CBUF_OP_ADD_ID},
    {"MUL", PLACEMENT_CBUF_OP_MUL},           {"DIV", PLACEMENT_CBUF_OP_DIV},
    {"SQR", PLACEMENT_CBUF_OP_SQR},           {"SQRT", PLACEMENT_CBUF_OP_SQRT},
    {"SIN", PLACEMENT_CBUF_OP_SIN},           {"CLAMP", PLACEMENT_CBUF_OP_CLAMP},
    {"SUM_ROWS", PLACEMENT_CBUF_OP_SUM_ROWS}, {"RMS_NORM", PLACEMENT_CBUF_OP_RMS_NORM},
    {"MUL_MAT", PLACEMENT_CBUF_OP_MUL_MAT},   {"MUL_MAT_ID", PLACEMENT_CBUF_OP_MUL_MAT_ID},
    {"SET_ROWS", PLACEMENT_CBUF_OP_SET_ROWS}, {"SOFT_MAX", PLACEMENT_CBUF_OP_SOFT_MAX},
    {"ARGSORT", PLACEMENT_CBUF_OP_ARGSORT},   {"UNARY", PLACEMENT_CBUF_OP_UNARY},
    {"SSM_CONV", PLACEMENT_CBUF_OP_SSM_CONV},
};

static uint8_t op_of(const char *name)
{
    for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
        if (!strcmp(name, op_names[i].name))
            return (uint8_t)op_names[i].op;
    return PLACEMENT_CBUF_OP_OTHER;
}

#define MAX_NODES 512
#define MAX_EXT 256
/* The sources a captured node names (its ops take at most four). */
#define CAPTURED_SRC 4

/* One split as captured: its nodes' words, and the order. */
typedef struct split {
    char op[MAX_NODES][24];
    char ref[MAX_NODES][5][8]; /* src[0..3], view_src */
    int32_t order[MAX_NODES];
    size_t n, n_order;
} split;

/* The tensor a reference names: a node of the split (nK) at K, a leaf or
 * copy (eK) or another split's tensor (xK) after the nodes; -1 for "-". */
static int32_t tensor_of(size_t n, const char *ref)
{
    if (!strcmp(ref, "-"))
        return -1;
    long k = strtol(ref + 1, NULL, 10);
    assert_true(k >= 0 && (size_t)k < (ref[0] == 'n' ? n : MAX_EXT));
    if (ref[0] == 'n')
        return (int32_t)k;
    return (int32_t)(n + (ref[0] == 'x' ? MAX_EXT : 0) + (size_t)k);
}

/* The graph of split s: its nodes first, then every leaf, copy and other
 * tensor it may name. */
static void graph_of(const split *s, placement_cbuf_graph *g)
{
    g->n = g->cap = s->n + 2 * MAX_EXT;
    g->v = calloc(g->cap, sizeof *g->v);
    assert_non_null(g->v);
    for (size_t i = 0; i < g->n; i++) {
        placement_cbuf_node *t = &g->v[i];
        for (int j = 0; j < PLACEMENT_CBUF_MAX_SRC; j++)
            t->src[j] = -1;
        t->view_src = -1;
        t->kind = i < s->n ? PLACEMENT_CBUF_OP : PLACEMENT_CBUF_EXTERNAL;
        t->op = i >= s->n + MAX_EXT ? PLACEMENT_CBUF_OP_OTHER : PLACEMENT_CBUF_OP_NONE;
    }
    for (size_t i = 0; i < s->n; i++) {
        placement_cbuf_node *t = &g->v[i];
        t->op = op_of(s->op[i]);
        for (int j = 0; j < CAPTURED_SRC; j++) /* the others stay -1 */
            t->src[j] = tensor_of(s->n, s->ref[i][j]);
        t->view_src = tensor_of(s->n, s->ref[i][CAPTURED_SRC]);
        if (t->view_src >= 0)
            t->kind = PLACEMENT_CBUF_VIEW;
    }
}

/* Replays the split and compares with the captured order; the number of
 * nodes placed elsewhere than ggml-vulkan placed them. */
static size_t misplaced(const split *s)
{
    placement_cbuf_graph g;
    graph_of(s, &g);
    int32_t nodes[MAX_NODES];
    for (size_t i = 0; i < s->n; i++)
        nodes[i] = (int32_t)i;
    placement_cbuf_vk_reorder(&g, nodes, s->n);
    size_t bad = 0;
    for (size_t i = 0; i < s->n; i++)
        bad += nodes[i] != s->order[i];
    placement_cbuf_graph_free(&g);
    return bad;
}

/* Every split of the fixture NAME replayed; the splits checked. */
static size_t check_fixture(const char *name)
{
    char rel[128];
    snprintf(rel, sizeof rel, "llama.cpp/vk-reorder-b10587/%s.txt", name);
    char *path = tu_fixture(rel);
    size_t len;
    char *text = tu_read(path, &len);
    split *s = calloc(1, sizeof *s);
    assert_non_null(s);
    size_t n_splits = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        if (!strcmp(line, "split")) {
            memset(s, 0, sizeof *s);
        } else if (!strncmp(line, "order", 5)) {
            char *p = line + 5, *end;
            for (long v = strtol(p, &end, 10); end != p; v = strtol(p, &end, 10)) {
                s->order[s->n_order++] = (int32_t)v;
                p = end;
            }
            assert_int_equal(s->n_order, s->n);
            size_t bad = misplaced(s);
            if (bad)
                fail_msg("%s: split %zu: %zu of %zu nodes out of ggml-vulkan's order", name, n_splits,
                         bad, s->n);
            n_splits++;
        } else {
            assert_true(s->n < MAX_NODES);
            char bar[4];
            int got = sscanf(line, "%23s %7s %7s %7s %7s %3s %7s", s->op[s->n], s->ref[s->n][0],
                             s->ref[s->n][1], s->ref[s->n][2], s->ref[s->n][3], bar, s->ref[s->n][4]);
            assert_int_equal(got, 7);
            s->n++;
        }
    }
    free(s);
    free(text);
    free(path);
    return n_splits;
}

static void test_matches_ggml_vulkan(void **state)
{
    (void)state;
    assert_int_equal(check_fixture("kv-llama-fa-on"), 1);
    assert_int_equal(check_fixture("kv-gemma2-fa-on"), 1);
    assert_int_equal(check_fixture("kv-deepseek2"), 1);
    assert_int_equal(check_fixture("alloc-qwen2"), 1);
    assert_int_equal(check_fixture("alloc-qwen3moe-fa-on"), 1);
    assert_int_equal(check_fixture("kv-qwen2moe-ngl1"), 31); /* op offload: a split per weight */
}

/* Vulkan devices reorder, with or without a limit on their tensors; the
 * other backends keep the graph's order. */
static void test_which_devices(void **state)
{
    (void)state;
    assert_int_equal(placement_cbuf_dev_of("vulkan", "llvmpipe (LLVM 15.0.6, 256 bits)").reorders, 1);
    assert_int_equal(placement_cbuf_dev_of("vulkan", "NVIDIA GeForce RTX 4090").reorders, 1);
    assert_int_equal(placement_cbuf_dev_of("cuda", "NVIDIA GeForce RTX 4090").reorders, 0);
    assert_int_equal(placement_cbuf_dev_of("cpu", "CPU").reorders, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_ggml_vulkan),
        cmocka_unit_test(test_which_devices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
