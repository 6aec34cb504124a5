/* cbuf_vkorder.c: ggml-vulkan's reordering of a split's nodes, replayed
 * over the tensor list of cbuf_graph.c (see cbuf_internal.h). The
 * scheduler hands each split's graph to its backend's graph_optimize
 * before ggml-alloc places it (ggml_backend_sched_split_graph); ggml-vulkan
 * (ggml_vk_graph_optimize, the same in b9749 and b10587) then regroups the
 * nodes so that ops it fuses run back to back and independent ops run
 * together, which moves what is alive at once and so the buffer's peak.
 * Its rule, from reading it:
 *   - walk the split from its first node not yet placed (the head);
 *   - a fused top-k MoE or snake sequence starting at the head is placed
 *     whole, as it is;
 *   - else the head and, of the next 19 nodes, every real (non-view) node
 *     that does not start such a sequence and needs no node not yet placed
 *     (a source, or a view of the same tensor) are taken, in order; a node
 *     may need the one just taken when the two fuse (RMS_NORM then MUL,
 *     MUL_MAT then ADD, MUL_MAT_ID then ADD_ID or MUL, ADD then ADD,
 *     SSM_CONV then ADD or UNARY). After RMS_NORM + MUL the ROPE of that MUL
 *     within 15 nodes comes too (its other sources leaves); after a ROPE the
 *     VIEW of it and the SET_ROWS of that view within 10; after MUL_MAT_ID +
 *     ADD_ID the MUL of it, after MUL_MAT + ADD the ADD of it, within 15,
 *     its other source a leaf or placed; after SSM_CONV + ADD the UNARY of it;
 *   - then, unless the last taken is an ADD, the view nodes of those 19
 *     whose sources are placed or taken;
 *   - what was taken is placed, and the walk goes on.
 * Leaves and the scheduler's copies have no op: they count as placed.
 * Pure arithmetic. Not for the scheduler's splits themselves (cbuf_sched.c). */
#include "placement/cbuf_internal.h"

#include "common/util.h"

#include <stdlib.h>
#include <string.h>

enum { VK_LOOKAHEAD = 20, VK_ROPE_REACH = 15, VK_STORE_REACH = 10, VK_FUSE_REACH = 15 };

typedef placement_cbuf_op vk_op;
#define OP(name) PLACEMENT_CBUF_OP_##name

/* The sequences ggml-vulkan fuses whole (topk_moe_*, snake_pattern). */
static const vk_op pat_moe_softmax_norm[] = {
    OP(SOFT_MAX), OP(RESHAPE), OP(ARGSORT), OP(VIEW), OP(GET_ROWS),
    OP(RESHAPE), OP(SUM_ROWS), OP(CLAMP), OP(DIV), OP(RESHAPE)};
static const vk_op pat_moe_sigmoid_norm_bias[] = {
    OP(UNARY), OP(RESHAPE), OP(ADD), OP(ARGSORT), OP(VIEW), OP(GET_ROWS),
    OP(RESHAPE), OP(SUM_ROWS), OP(CLAMP), OP(DIV), OP(RESHAPE)};
static const vk_op pat_moe_sqrt_softplus_norm_bias[] = {
    OP(UNARY), OP(SQRT), OP(RESHAPE), OP(ADD), OP(ARGSORT), OP(VIEW),
    OP(GET_ROWS), OP(RESHAPE), OP(SUM_ROWS), OP(CLAMP), OP(DIV), OP(RESHAPE)};
static const vk_op pat_moe_softmax[] = {OP(SOFT_MAX), OP(RESHAPE), OP(ARGSORT), OP(VIEW),
                                        OP(GET_ROWS)};
static const vk_op pat_moe_late_softmax[] = {OP(ARGSORT), OP(VIEW), OP(GET_ROWS),
                                             OP(RESHAPE), OP(SOFT_MAX), OP(RESHAPE)};
static const vk_op pat_snake[] = {OP(MUL), OP(SIN), OP(SQR), OP(MUL), OP(ADD)};

static const struct {
    const vk_op *ops;
    size_t n;
} patterns[] = {
    {pat_moe_softmax_norm, LVD_ARRAY_LEN(pat_moe_softmax_norm)},
    {pat_moe_sigmoid_norm_bias, LVD_ARRAY_LEN(pat_moe_sigmoid_norm_bias)},
    {pat_moe_sqrt_softplus_norm_bias, LVD_ARRAY_LEN(pat_moe_sqrt_softplus_norm_bias)},
    {pat_moe_softmax, LVD_ARRAY_LEN(pat_moe_softmax)},
    {pat_moe_late_softmax, LVD_ARRAY_LEN(pat_moe_late_softmax)},
    {pat_snake, LVD_ARRAY_LEN(pat_snake)},
};

/* The pairs of ops a node may follow its source in (ggml-vulkan fuses them). */
static const vk_op fused_pairs[][2] = {
    {OP(RMS_NORM), OP(MUL)},   {OP(MUL_MAT), OP(ADD)}, {OP(MUL_MAT_ID), OP(ADD_ID)},
    {OP(MUL_MAT_ID), OP(MUL)}, {OP(ADD), OP(ADD)},     {OP(SSM_CONV), OP(ADD)},
    {OP(SSM_CONV), OP(UNARY)},
};

typedef struct vk {
    const placement_cbuf_graph *g;
    const int32_t *node;      /* the split, in graph order */
    size_t n;
    uint8_t *used;            /* per position: placed, or claimed by a fusion */
    uint8_t *placed;          /* per tensor of g: in the new order already */
    int32_t *set;             /* positions taken this round */
    size_t n_set;
    int32_t *out;             /* the new order (tensors) */
    size_t n_out;
} vk;

static uint8_t op_at(const vk *v, size_t i)
{
    return v->g->v[v->node[i]].op;
}

static int32_t src_at(const vk *v, size_t i, int j)
{
    return v->g->v[v->node[i]].src[j];
}

/* A view node, or none at all (ggml-vulkan's is_empty). */
static int is_empty(const vk *v, size_t i)
{
    uint8_t op = op_at(v, i);
    return op == OP(NONE) || placement_cbuf_is_view_op(op);
}

/* A leaf or a copy: no op, always there. */
static int is_leaf(const vk *v, int32_t t)
{
    return t < 0 || v->g->v[t].op == OP(NONE);
}

/* Node at position d needs the one at position s: a source of it, or a
 * view of the same tensor. */
static int needs(const vk *v, size_t d, size_t s)
{
    int32_t dt = v->node[d], st = v->node[s];
    for (int j = 0; j < PLACEMENT_CBUF_MAX_SRC; j++)
        if (v->g->v[dt].src[j] == st)
            return 1;
    return placement_cbuf_root_of(v->g, dt) == placement_cbuf_root_of(v->g, st);
}

/* A fused sequence starts at position at, none of it used. */
static int pattern_at(const vk *v, size_t at, size_t *len)
{
    for (size_t p = 0; p < LVD_ARRAY_LEN(patterns); p++) {
        if (at + patterns[p].n > v->n)
            continue;
        size_t k = 0;
        while (k < patterns[p].n && op_at(v, at + k) == patterns[p].ops[k] && !v->used[at + k])
            k++;
        if (k == patterns[p].n) {
            *len = k;
            return 1;
        }
    }
    return 0;
}

static int fuses(const vk *v, size_t s, size_t d)
{
    for (size_t p = 0; p < LVD_ARRAY_LEN(fused_pairs); p++)
        if (op_at(v, s) == fused_pairs[p][0] && op_at(v, d) == fused_pairs[p][1])
            return 1;
    return 0;
}

static void take(vk *v, size_t i, int claim)
{
    v->set[v->n_set++] = (int32_t)i;
    if (claim)
        v->used[i] = 1;
}

static void place(vk *v, size_t i)
{
    v->out[v->n_out++] = v->node[i];
    v->placed[v->node[i]] = 1;
    v->used[i] = 1;
}

/* Real node j may be taken: nothing it needs among first..j is unplaced,
 * but the node just taken when the two fuse. */
static int may_take(const vk *v, size_t first, size_t j)
{
    for (size_t c = first; c < j; c++) {
        if (v->used[c] || !needs(v, j, c))
            continue;
        if (!(j == c + 1 && v->n_set && (size_t)v->set[v->n_set - 1] == c && fuses(v, c, j)))
            return 0;
    }
    return 1;
}

/* What a tail's other sources must be: anything; src[1] a leaf or placed
 * (ADD, MUL after a matmul); src[1] and src[2] leaves (ROPE). */
typedef enum { SRC_ANY, SRC1_READY, SRCS_LEAVES } vk_srcs;

static int srcs_ok(const vk *v, size_t k, vk_srcs need)
{
    int32_t s1 = src_at(v, k, 1);
    if (need == SRC1_READY)
        return is_leaf(v, s1) || v->placed[s1];
    if (need == SRCS_LEAVES)
        return is_leaf(v, s1) && is_leaf(v, src_at(v, k, 2));
    return 1;
}

/* The first node of op before position end, from position from, whose
 * src[0] is the node at position i and whose other sources are as need
 * says; its position, or -1. */
static long find_user(const vk *v, size_t from, size_t end, vk_op op, size_t i, vk_srcs need)
{
    for (size_t k = from; k < end && k < v->n; k++)
        if (op_at(v, k) == op && src_at(v, k, 0) == v->node[i] && srcs_ok(v, k, need))
            return (long)k;
    return -1;
}

/* What taking real node j brings along (the fusions' tails). */
static void take_tails(vk *v, size_t j)
{
    size_t rope = j;
    uint8_t op = op_at(v, j), prev = j ? op_at(v, j - 1) : OP(NONE);
    if (op == OP(MUL) && prev == OP(RMS_NORM)) {
        long k = find_user(v, j + 1, j + VK_ROPE_REACH, OP(ROPE), j, SRCS_LEAVES);
        if (k >= 0) {
            rope = (size_t)k;
            take(v, rope, 1);
        }
    }
    if (op_at(v, rope) == OP(ROPE)) {
        size_t end = rope + VK_STORE_REACH;
        long vw = find_user(v, rope + 1, end, OP(VIEW), rope, SRC_ANY);
        long set = vw >= 0 ? find_user(v, (size_t)vw + 1, end, OP(SET_ROWS), (size_t)vw, SRC_ANY)
                           : -1;
        if (set >= 0) {
            take(v, (size_t)vw, 1);
            take(v, (size_t)set, 1);
        }
    }
    static const vk_op tails[][3] = {
        {OP(MUL_MAT_ID), OP(ADD_ID), OP(MUL)},
        {OP(MUL_MAT), OP(ADD), OP(ADD)},
        {OP(SSM_CONV), OP(ADD), OP(UNARY)},
    };
    for (size_t t = 0; t < LVD_ARRAY_LEN(tails); t++) {
        if (!j || prev != tails[t][0] || op != tails[t][1])
            continue;
        vk_srcs need = tails[t][2] == OP(UNARY) ? SRC_ANY : SRC1_READY;
        long k = find_user(v, j + 1, j + VK_FUSE_REACH, tails[t][2], j, need);
        if (k >= 0)
            take(v, (size_t)k, 1);
    }
}

static int in_set(const vk *v, size_t c)
{
    for (size_t k = 0; k < v->n_set; k++)
        if ((size_t)v->set[k] == c)
            return 1;
    return 0;
}

/* One round from the head: what it takes, then placed. */
static void round_from(vk *v, size_t first)
{
    size_t len;
    if (pattern_at(v, first, &len)) {
        for (size_t k = 0; k < len; k++)
            place(v, first + k);
        return;
    }
    v->n_set = 0;
    take(v, first, 0);
    size_t end = first + VK_LOOKAHEAD < v->n ? first + VK_LOOKAHEAD : v->n;
    for (size_t j = first + 1; j < end; j++) {
        if (v->used[j] || is_empty(v, j) || pattern_at(v, j, &len) || !may_take(v, first, j))
            continue;
        take(v, j, 0);
        take_tails(v, j);
    }
    if (op_at(v, (size_t)v->set[v->n_set - 1]) != OP(ADD)) {
        for (size_t j = first + 1; j < end; j++) {
            if (v->used[j] || !is_empty(v, j))
                continue;
            int ok = 1;
            for (size_t c = first; c < j && ok; c++)
                ok = v->used[c] || !needs(v, j, c) || in_set(v, c);
            if (ok)
                take(v, j, 0);
        }
    }
    for (size_t k = 0; k < v->n_set; k++)
        place(v, (size_t)v->set[k]);
}

void placement_cbuf_vk_reorder(const placement_cbuf_graph *g, int32_t *nodes, size_t n)
{
    vk v = {.g = g, .node = nodes, .n = n};
    v.used = lvd_xcalloc(n ? n : 1, 1);
    v.placed = lvd_xcalloc(g->n ? g->n : 1, 1);
    /* a round takes at most its window and the tails' claims: each node once */
    v.set = lvd_xcalloc(n + VK_LOOKAHEAD + 1, sizeof *v.set);
    v.out = lvd_xcalloc(2 * n + VK_LOOKAHEAD + 1, sizeof *v.out);
    size_t first = 0;
    while (first < n) {
        round_from(&v, first);
        while (first < n && v.used[first])
            first++;
    }
    memcpy(nodes, v.out, n * sizeof *nodes);
    free(v.used);
    free(v.placed);
    free(v.set);
    free(v.out);
}
