/* cbuf_sched.c: ggml's backend scheduler and graph allocator replayed over
 * the tensor list of cbuf_graph.c, to find the peak each backend's compute
 * buffer reaches (see cbuf_internal.h). Followed function by function, in
 * llama.cpp b9749 and b10587 alike:
 *   ggml-backend.cpp ggml_backend_sched_split_graph: pass 1 (inputs on the
 *     host, pre-allocated views where their buffer is, ops with a weight where
 *     the weight is, unless the device takes an op whose weight is on the
 *     host at a batch of 32 or more, a matmul's columns (the logits': the output
 *     rows): op offload), pass 2 (each device node's
 *     backend spread down then up the graph, then any backend's), passes 3
 *     and 4 (what is left), pass 5 (splits at every backend change and at a
 *     host weight a device split must copy; every source on a backend whose
 *     memory the node's cannot read is copied once into the node's backend,
 *     the copy allocated at the start of the split that first needs it;
 *     each split's nodes handed to its backend's graph_optimize first:
 *     ggml-vulkan's reorders them, cbuf_vkorder.c);
 *   ggml-alloc.c ggml_gallocr_alloc_graph_impl: inputs first, then each node
 *     allocated before its sources are released, in place over a source it
 *     is the last user of (ggml_op_can_inplace, the same layout, not a view
 *     nor an output), a tensor freed when its last user and every view of it
 *     has run; ggml_dyn_tallocr: best fit among the free blocks but the last,
 *     else the end of the buffer, which grows; the buffer is its high-water
 *     mark.
 * Pure arithmetic. Not for building the graph (cbuf_graph.c). */
#include "placement/cbuf_internal.h"

#include "common/util.h"

#include <stdlib.h>
#include <string.h>

/* ggml's TENSOR_ALIGNMENT, the CPU buffer's; Vulkan and CUDA devices align
 * to 16..256, which moves a buffer by a few KiB at most. */
#define CBUF_ALIGN 32u
/* GGML_OP_OFFLOAD_MIN_BATCH's default (ggml-vulkan, ggml-cuda): the batch
 * from which the device takes ops whose weights are on the host. */
#define CBUF_OFFLOAD_MIN_BATCH 32u

int placement_cbuf_is_view_op(uint8_t op)
{
    return op >= PLACEMENT_CBUF_OP_VIEW && op <= PLACEMENT_CBUF_OP_TRANSPOSE;
}

static int is_view_op(const placement_cbuf_node *t)
{
    return placement_cbuf_is_view_op(t->op);
}

int32_t placement_cbuf_root_of(const placement_cbuf_graph *g, int32_t i)
{
    return g->v[i].kind == PLACEMENT_CBUF_VIEW ? g->v[i].view_src : i;
}

/* --- the scheduler: which backend runs each node ---------------------- */

/* ggml_backend_supports_op for backend b: the host runs everything; a
 * device with a largest tensor (cbuf.h, placement_cbuf_dev)
 * refuses an op when the result or any source is larger, and one with
 * mm_same_dim3 a matmul that broadcasts its weight over the streams. */
static int supports(const placement_cbuf_spec *sp, const placement_cbuf_graph *g, size_t i, int8_t b)
{
    const placement_cbuf_node *t = &g->v[i];
    uint64_t max = sp->dev.max_tensor;
    if (b != PLACEMENT_CBUF_DEV)
        return 1;
    if (t->bcast3 && sp->dev.mm_same_dim3)
        return 0;
    if (!max)
        return 1;
    if (t->bytes > max)
        return 0;
    for (int j = 0; j < PLACEMENT_CBUF_MAX_SRC; j++)
        if (t->src[j] >= 0 && g->v[t->src[j]].bytes > max)
            return 0;
    return 1;
}

/* ggml_backend_sched_backend_id_from_cur for a node with a weight source:
 * the weight's backend, or the device for an op it offloads. */
static int8_t weight_backend(const placement_cbuf_spec *sp, const placement_cbuf_graph *g, size_t i)
{
    const placement_cbuf_node *t = &g->v[i];
    if (t->op == PLACEMENT_CBUF_OP_ROPE || t->op == PLACEMENT_CBUF_OP_FLASH_ATTN_EXT)
        return PLACEMENT_CBUF_NO_BACKEND;
    for (int j = 0; j < PLACEMENT_CBUF_MAX_SRC; j++) {
        const placement_cbuf_node *s = t->src[j] >= 0 ? &g->v[t->src[j]] : NULL;
        if (!s || s->kind != PLACEMENT_CBUF_EXTERNAL || !s->weight)
            continue;
        int dev_runs = supports(sp, g, i, PLACEMENT_CBUF_DEV);
        uint32_t batch = t->out_rows ? sp->n_outputs : sp->n_tokens; /* a MUL_MAT's ne[1] */
        if (s->loc == PLACEMENT_CBUF_HOST && sp->gpu && t->op != PLACEMENT_CBUF_OP_GET_ROWS &&
            batch >= CBUF_OFFLOAD_MIN_BATCH && dev_runs)
            return PLACEMENT_CBUF_DEV; /* op offload */
        /* a device weight under an op the device refuses: no backend reads
         * both (ggml_backend_sched_backend_from_buffer gives -1); decided
         * later, the weight copied */
        return s->loc == PLACEMENT_CBUF_DEV && !dev_runs ? PLACEMENT_CBUF_NO_BACKEND : s->loc;
    }
    return PLACEMENT_CBUF_NO_BACKEND;
}

/* Pass 1: inputs, pre-allocated tensors and weights decide. */
static void assign_fixed(const placement_cbuf_spec *sp, const placement_cbuf_graph *g, int8_t *be)
{
    for (size_t i = 0; i < g->n; i++) {
        const placement_cbuf_node *t = &g->v[i];
        int32_t r = placement_cbuf_root_of(g, (int32_t)i);
        be[i] = PLACEMENT_CBUF_NO_BACKEND;
        if (t->kind == PLACEMENT_CBUF_INPUT)
            be[i] = PLACEMENT_CBUF_HOST;
        else if (r >= 0 && g->v[r].kind == PLACEMENT_CBUF_EXTERNAL)
            be[i] = g->v[r].loc;
        else if (t->force >= 0 && supports(sp, g, i, t->force))
            be[i] = t->force;
        else if (t->kind == PLACEMENT_CBUF_OP)
            be[i] = weight_backend(sp, g, i);
    }
}

/* One sweep of pass 2 over the nodes (views skipped), down or up: an
 * unassigned node takes the backend of the last assigned one; devices_only:
 * the host's nodes stop the spreading instead. */
static void expand(const placement_cbuf_spec *sp, const placement_cbuf_graph *g, int8_t *be, int up,
                   int devices_only)
{
    int8_t cur = PLACEMENT_CBUF_NO_BACKEND;
    for (size_t k = 0; k < g->n; k++) {
        size_t i = up ? g->n - 1 - k : k;
        const placement_cbuf_node *t = &g->v[i];
        if (is_view_op(t) || t->kind == PLACEMENT_CBUF_INPUT || t->kind == PLACEMENT_CBUF_EXTERNAL)
            continue;
        if (be[i] != PLACEMENT_CBUF_NO_BACKEND)
            cur = devices_only && be[i] == PLACEMENT_CBUF_HOST ? PLACEMENT_CBUF_NO_BACKEND : be[i];
        else if (cur != PLACEMENT_CBUF_NO_BACKEND && supports(sp, g, i, cur))
            be[i] = cur;
    }
}

/* The backend whose memory t is in (or will be): ggml_backend_sched_buffer_supported
 * with one device and the host, each reading only its own memory. */
static int8_t memory_of(const placement_cbuf_graph *g, const int8_t *be, int32_t i)
{
    int32_t r = placement_cbuf_root_of(g, i);
    if (r >= 0 && g->v[r].kind == PLACEMENT_CBUF_EXTERNAL)
        return g->v[r].loc;
    return be[i] != PLACEMENT_CBUF_NO_BACKEND ? be[i] : r >= 0 ? be[r] : PLACEMENT_CBUF_NO_BACKEND;
}

/* Passes 3 and 4: a node nothing reached goes to the backend, of those that
 * run it, where most of its sources are; views go with their root,
 * unassigned sources with their node. */
static void assign_rest(const placement_cbuf_spec *sp, placement_cbuf_graph *g, int8_t *be)
{
    for (size_t i = 0; i < g->n; i++) {
        placement_cbuf_node *t = &g->v[i];
        if (is_view_op(t) || be[i] != PLACEMENT_CBUF_NO_BACKEND || t->kind != PLACEMENT_CBUF_OP)
            continue;
        int best = -1;
        for (int8_t b = PLACEMENT_CBUF_DEV; b <= PLACEMENT_CBUF_HOST; b++) {
            if (!supports(sp, g, i, b))
                continue;
            int n = 0;
            for (int j = 0; j < PLACEMENT_CBUF_MAX_SRC; j++)
                n += t->src[j] >= 0 && memory_of(g, be, t->src[j]) == b;
            if (n > best) {
                best = n;
                be[i] = b;
            }
        }
    }
    for (size_t i = 0; i < g->n; i++) {
        placement_cbuf_node *t = &g->v[i];
        if (t->view_src >= 0 && be[i] == PLACEMENT_CBUF_NO_BACKEND)
            be[i] = be[t->view_src];
        for (int j = 0; j < PLACEMENT_CBUF_MAX_SRC; j++) {
            int32_t s = t->src[j];
            if (s >= 0 && be[s] == PLACEMENT_CBUF_NO_BACKEND)
                be[s] = g->v[s].view_src >= 0 ? be[g->v[s].view_src] : be[i];
        }
        if (be[i] == PLACEMENT_CBUF_NO_BACKEND)
            be[i] = supports(sp, g, i, PLACEMENT_CBUF_DEV) ? PLACEMENT_CBUF_DEV : PLACEMENT_CBUF_HOST;
    }
}

/* --- pass 5: splits and copies, as the graph ggml-alloc then sees -------- */

typedef struct sched {
    placement_cbuf_graph *g;
    int8_t *be;               /* per tensor of g */
    int32_t *copy;            /* per tensor of g: its copy on the other backend, or -1 */
    int32_t *order;           /* the allocator's node order (g indices) */
    size_t n_order;
    int32_t *pending;         /* the current split's new copies (their sources) */
    size_t n_pending;
    int32_t *split;           /* the current split's nodes, until it ends */
    size_t n_split;
    int reorder;              /* the device's backend reorders its splits (cbuf_vkorder.c) */
} sched;

static int32_t add_tensor(sched *s, placement_cbuf_node t, int8_t backend)
{
    placement_cbuf_graph *g = s->g;
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 256;
        g->v = lvd_xrealloc(g->v, g->cap * sizeof *g->v);
        s->be = lvd_xrealloc(s->be, g->cap * sizeof *s->be);
        s->copy = lvd_xrealloc(s->copy, g->cap * sizeof *s->copy);
    }
    g->v[g->n] = t;
    s->be[g->n] = backend;
    s->copy[g->n] = -1;
    return (int32_t)g->n++;
}

/* The copy of tensor src on backend b (ggml_dup_tensor_layout: its size),
 * made once and noted as an input of the current split. */
static int32_t copy_of(sched *s, int32_t src, int8_t b)
{
    if (s->copy[src] >= 0)
        return s->copy[src];
    placement_cbuf_node c = {.bytes = s->g->v[src].bytes, .src = {-1, -1, -1, -1, -1, -1},
                             .view_src = -1, .kind = PLACEMENT_CBUF_OP, .force = -1};
    int32_t k = add_tensor(s, c, b);
    s->copy[src] = k;
    s->pending[s->n_pending++] = src;
    return k;
}

/* Ends the current split, on backend b: into the allocator's order go,
 * for each of its new copies, a dependency on the source (keeping it alive
 * until the copy) and the copy itself, then the split's nodes, in the order
 * the backend reorders them to. */
static void end_split(sched *s, int8_t b)
{
    if (s->reorder && b == PLACEMENT_CBUF_DEV)
        placement_cbuf_vk_reorder(s->g, s->split, s->n_split);
    for (size_t k = 0; k < s->n_pending; k++) {
        int32_t src = s->pending[k];
        /* a view with op NONE: it keeps its source alive without counting
         * among the views of anything (view_src -2) */
        placement_cbuf_node dep = {.src = {src, -1, -1, -1, -1, -1}, .view_src = -2,
                                   .kind = PLACEMENT_CBUF_VIEW, .op = PLACEMENT_CBUF_OP_NONE,
                                   .force = -1};
        int32_t d = add_tensor(s, dep, s->be[src]);
        s->order[s->n_order++] = d;
        s->order[s->n_order++] = s->copy[src];
    }
    memcpy(&s->order[s->n_order], s->split, s->n_split * sizeof *s->split);
    s->n_order += s->n_split;
    s->n_pending = s->n_split = 0;
}

/* A source of a device split that is a weight on the host starts a new split
 * once the split has copied anything (its copy can then reuse that memory). */
static int weight_elsewhere(const sched *s, const placement_cbuf_node *t, int8_t cur)
{
    for (int j = 0; j < PLACEMENT_CBUF_MAX_SRC; j++) {
        const placement_cbuf_node *w = t->src[j] >= 0 ? &s->g->v[t->src[j]] : NULL;
        if (w && w->kind == PLACEMENT_CBUF_EXTERNAL && w->weight && w->loc != cur)
            return 1;
    }
    return 0;
}

static void split_graph(sched *s, size_t n_graph)
{
    int8_t cur = PLACEMENT_CBUF_NO_BACKEND;
    for (size_t i = 0; i < n_graph; i++) {
        placement_cbuf_node *t = &s->g->v[i];
        if (t->kind == PLACEMENT_CBUF_INPUT || t->kind == PLACEMENT_CBUF_EXTERNAL)
            continue;
        if (!is_view_op(t)) {
            int8_t b = s->be[i];
            if (cur == PLACEMENT_CBUF_NO_BACKEND)
                cur = b;
            if (b != cur || (s->n_pending && weight_elsewhere(s, t, cur))) {
                end_split(s, cur);
                cur = b;
            }
            for (int j = 0; j < PLACEMENT_CBUF_MAX_SRC; j++) {
                int32_t src = t->src[j];
                if (src < 0 || s->be[src] == cur || memory_of(s->g, s->be, src) == cur)
                    continue;
                int32_t c = copy_of(s, src, cur);
                t = &s->g->v[i]; /* add_tensor may have moved the array */
                t->src[j] = c;
            }
        }
        s->split[s->n_split++] = (int32_t)i;
    }
    end_split(s, cur);
}

/* --- ggml-alloc --------------------------------------------------------- */

typedef struct block {
    uint64_t off, size;
} block;

/* One chunk of ggml_dyn_tallocr: its free blocks sorted by offset (the
 * last one its tail) and the high-water mark of what it handed out. */
typedef struct chunk {
    block *free;
    size_t n, cap;
    uint64_t max_size;
} chunk;

/* ggml_dyn_tallocr: chunks of at most max_chunk bytes (the buffer type's
 * largest buffer; a larger tensor gets a chunk of its own), each reported
 * as a buffer of its own high-water mark. */
typedef struct dyn {
    chunk c[PLACEMENT_CBUF_MAX_CHUNKS];
    size_t n;
    uint64_t max_chunk;
} dyn;

static uint64_t aligned(uint64_t x)
{
    return (x + CBUF_ALIGN - 1) / CBUF_ALIGN * CBUF_ALIGN;
}

static void dyn_init(dyn *d, uint64_t max_chunk)
{
    memset(d, 0, sizeof *d);
    d->max_chunk = max_chunk ? max_chunk : UINT64_MAX / 2;
}

static void chunk_remove(chunk *c, size_t i)
{
    memmove(&c->free[i], &c->free[i + 1], (c->n - i - 1) * sizeof *c->free);
    c->n--;
}

static void chunk_insert(chunk *c, size_t at, block b)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->free = lvd_xrealloc(c->free, c->cap * sizeof *c->free);
    }
    memmove(&c->free[at + 1], &c->free[at], (c->n - at) * sizeof *c->free);
    c->free[at] = b;
    c->n++;
}

/* ggml_dyn_tallocr_new_chunk: room for size, at least a whole chunk; the
 * last chunk possible is unbounded. */
static size_t dyn_new_chunk(dyn *d, uint64_t size)
{
    chunk *c = &d->c[d->n];
    uint64_t room = size > d->max_chunk ? size : d->max_chunk;
    chunk_insert(c, 0, (block){0, d->n == PLACEMENT_CBUF_MAX_CHUNKS - 1 ? UINT64_MAX / 2 : room});
    return d->n++;
}

/* The best-fitting free block but each chunk's tail: the smallest that
 * fits in the last chunk that has one (ggml keeps one best per chunk and
 * lets a later chunk's replace it). 0 and *ci, *bi set, or -1. */
static int best_inner(const dyn *d, uint64_t size, size_t *ci, size_t *bi)
{
    int found = -1;
    for (size_t k = 0; k < d->n; k++) {
        uint64_t best = UINT64_MAX;
        for (size_t i = 0; i + 1 < d->c[k].n; i++)
            if (d->c[k].free[i].size >= size && d->c[k].free[i].size <= best) {
                best = d->c[k].free[i].size;
                *ci = k, *bi = i, found = 0;
            }
    }
    return found;
}

/* Else a chunk's tail: one that fits within what the chunk already spans
 * with the least to spare, else the one that grows the least. */
static int best_tail(const dyn *d, uint64_t size, size_t *ci, size_t *bi)
{
    int found = -1;
    int64_t best = INT64_MIN;
    for (size_t k = 0; k < d->n; k++) {
        const chunk *c = &d->c[k];
        if (!c->n)
            continue;
        const block *t = &c->free[c->n - 1];
        int64_t reuse = (int64_t)c->max_size - (int64_t)t->off - (int64_t)size;
        int better = (best < 0 && reuse > best) || (reuse >= 0 && reuse < best);
        if (t->size >= size && better) {
            best = reuse;
            *ci = k, *bi = c->n - 1, found = 0;
        }
    }
    return found;
}

typedef struct addr {
    size_t chunk;
    uint64_t off;
} addr;

static addr dyn_alloc(dyn *d, uint64_t size)
{
    size = aligned(size);
    size_t ci = 0, bi = 0;
    if (best_inner(d, size, &ci, &bi) != 0 && best_tail(d, size, &ci, &bi) != 0 &&
        d->n < PLACEMENT_CBUF_MAX_CHUNKS)
        ci = dyn_new_chunk(d, size), bi = 0;
    chunk *c = &d->c[ci];
    addr a = {ci, c->free[bi].off};
    c->free[bi].off += size;
    c->free[bi].size -= size;
    if (c->free[bi].size == 0)
        chunk_remove(c, bi);
    if (a.off + size > c->max_size)
        c->max_size = a.off + size;
    return a;
}

static void dyn_free(dyn *d, addr a, uint64_t size)
{
    size = aligned(size);
    chunk *c = &d->c[a.chunk];
    uint64_t off = a.off;
    for (size_t i = 0; i < c->n; i++) {
        block *b = &c->free[i];
        if (b->off + b->size == off) {
            b->size += size;
            if (i + 1 < c->n && b->off + b->size == c->free[i + 1].off) {
                b->size += c->free[i + 1].size;
                chunk_remove(c, i + 1);
            }
            return;
        }
        if (off + size == b->off) {
            b->off = off;
            b->size += size;
            if (i > 0 && c->free[i - 1].off + c->free[i - 1].size == b->off) {
                c->free[i - 1].size += b->size;
                chunk_remove(c, i);
            }
            return;
        }
    }
    size_t at = 0;
    while (at < c->n && c->free[at].off < off)
        at++;
    chunk_insert(c, at, (block){off, size});
}

/* The buffer the chunks make (their sizes), and their memory released. */
static void dyn_done(dyn *d, placement_cbuf_buffer *out)
{
    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < d->n; k++) {
        out->chunk[k] = d->c[k].max_size;
        free(d->c[k].free);
    }
    out->n = d->n;
}

typedef struct hnode {
    int n_children, n_views;
    int allocated;
    int8_t buffer;
    addr at;
} hnode;

typedef struct galloc {
    const placement_cbuf_graph *g;
    const int8_t *be;
    hnode *h;
    dyn buf[2];
} galloc;

static int is_view(const placement_cbuf_node *t)
{
    return t->kind == PLACEMENT_CBUF_VIEW;
}

static void free_tensor(galloc *a, int32_t i)
{
    if (a->g->v[i].output)
        return;
    dyn_free(&a->buf[a->h[i].buffer], a->h[i].at, a->g->v[i].bytes);
    a->h[i].allocated = 0;
}

/* ggml_gallocr_allocate_node: nothing for views and what is already in a
 * buffer; else in place over a source it is the last user of, else fresh. */
static void allocate(galloc *a, int32_t i, int8_t buffer)
{
    const placement_cbuf_node *t = &a->g->v[i];
    hnode *hn = &a->h[i];
    if (hn->allocated || is_view(t) || t->kind == PLACEMENT_CBUF_EXTERNAL)
        return;
    hn->allocated = 1;
    for (int j = 0; j < PLACEMENT_CBUF_MAX_SRC; j++) {
        int32_t p = t->src[j];
        if (p < 0 || !(t->inplace & (1u << j)) || !a->h[p].allocated || a->g->v[p].output)
            continue;
        if (a->h[p].n_children == 1 && a->h[p].n_views == 0) {
            hn->buffer = a->h[p].buffer;
            hn->at = a->h[p].at;
            a->h[p].allocated = 0;
            return;
        }
    }
    hn->buffer = buffer;
    hn->at = dyn_alloc(&a->buf[buffer], t->bytes);
}

/* After node i ran: each source one user fewer; a source nobody needs any
 * more is freed (a view's root when its last view is done). */
static void release_sources(galloc *a, int32_t i)
{
    const placement_cbuf_node *t = &a->g->v[i];
    for (int j = 0; j < PLACEMENT_CBUF_MAX_SRC; j++) {
        int32_t p = t->src[j];
        if (p < 0 || --a->h[p].n_children != 0 || a->h[p].n_views != 0)
            continue;
        if (is_view(&a->g->v[p])) {
            int32_t r = a->g->v[p].view_src;
            if (r >= 0 && --a->h[r].n_views == 0 && a->h[r].n_children == 0 && a->h[r].allocated)
                free_tensor(a, r);
        } else if (a->h[p].allocated) {
            free_tensor(a, p);
        }
    }
}

static void count_users(galloc *a, const int32_t *order, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const placement_cbuf_node *t = &a->g->v[order[k]];
        if (is_view(t) && t->view_src >= 0)
            a->h[t->view_src].n_views++;
        for (int j = 0; j < PLACEMENT_CBUF_MAX_SRC; j++)
            if (t->src[j] >= 0)
                a->h[t->src[j]].n_children++;
    }
}

static void allocate_graph(galloc *a, const int32_t *order, size_t n, uint64_t max_chunk,
                           placement_cbuf_buffer out[2])
{
    a->h = lvd_xcalloc(a->g->n ? a->g->n : 1, sizeof *a->h);
    dyn_init(&a->buf[0], max_chunk);
    dyn_init(&a->buf[1], max_chunk);
    for (size_t i = 0; i < a->g->n; i++) /* the leafs: inputs first, in graph order */
        if (a->g->v[i].kind == PLACEMENT_CBUF_INPUT)
            allocate(a, (int32_t)i, PLACEMENT_CBUF_HOST);
    count_users(a, order, n);
    for (size_t k = 0; k < n; k++) {
        int32_t i = order[k];
        allocate(a, i, a->be[i]);
        release_sources(a, i);
    }
    for (int b = 0; b < 2; b++)
        dyn_done(&a->buf[b], &out[b]);
    free(a->h);
}

void placement_cbuf_schedule(const placement_cbuf_spec *spec, placement_cbuf_graph *g,
                             placement_cbuf_buffer out[2])
{
    size_t n_graph = g->n;
    sched s = {.g = g, .reorder = spec->gpu && spec->dev.reorders};
    s.be = lvd_xcalloc(g->cap ? g->cap : 1, sizeof *s.be);
    s.copy = lvd_xcalloc(g->cap ? g->cap : 1, sizeof *s.copy);
    for (size_t i = 0; i < n_graph; i++)
        s.copy[i] = -1;
    assign_fixed(spec, g, s.be);
    if (spec->gpu) {
        expand(spec, g, s.be, 0, 1);
        expand(spec, g, s.be, 1, 1);
        expand(spec, g, s.be, 0, 0);
        expand(spec, g, s.be, 1, 0);
        assign_rest(spec, g, s.be);
    } else {
        memset(s.be, PLACEMENT_CBUF_HOST, n_graph * sizeof *s.be);
    }
    /* every tensor could be copied once: the order holds the graph and
     * two entries (dependency, copy) per copy */
    s.order = lvd_xcalloc(3 * n_graph + 1, sizeof *s.order);
    s.pending = lvd_xcalloc(n_graph + 1, sizeof *s.pending);
    s.split = lvd_xcalloc(n_graph + 1, sizeof *s.split);
    split_graph(&s, n_graph);
    galloc a = {.g = g, .be = s.be};
    /* a CPU-only engine's buffer is the CPU's: no largest buffer */
    allocate_graph(&a, s.order, s.n_order, spec->gpu ? spec->dev.max_buffer : 0, out);
    free(s.order);
    free(s.pending);
    free(s.split);
    free(s.be);
    free(s.copy);
}
