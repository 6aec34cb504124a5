/* fake_compute.c: the compute buffers the fake llama-bench reports, from the
 * model's shape by the closed form of docs/placement-compute.md: the largest
 * of the graph's phases (the output: logits and the normed embeddings; a
 * block's attention: kq or the flash-attention result beside Q and the
 * residual; its feed-forward: gate, up and their product; its experts: the
 * same per expert used), plus the inputs a device copies (mask, positions,
 * KV indices) or, on the host, the inputs themselves and the embeddings.
 * Deliberately not the estimator (placement/cbuf.h replays the whole graph
 * and its allocator): the end-to-end estimator table then shows how close
 * the closed form of the dominant terms comes to the replay. Not for the
 * model and KV buffers (fake_bench_alloc.c prices them). */
#include "fake_bench.h"

#define F32 4.0

static double max2(double a, double b)
{
    return a > b ? a : b;
}

/* The inputs of one ubatch of T tokens over N cells (and a sliding window's
 * n_swa cells): tokens, positions, output rows, the KV indices (one per
 * element of V without flash attention) and the masks. */
static double inputs(const gguf_shape *s, double T, double N, double n_swa, int fa)
{
    double v_idx = fa ? 8 * T : 8 * T * s->head_dim_v * s->n_head_kv;
    double mask = (fa ? 2 : 4) * T;
    double one = 8 * T + v_idx + mask * N;
    return 12 * T + one + (n_swa > 0 ? one - mask * N + mask * n_swa : 0);
}

/* The largest phase of a block: the residual stream (two E x T) beside the
 * attention (kq, or flash attention's result, beside Q) or the
 * feed-forward (gate, up and their product; per expert used for a MoE). */
static double block_phase(const gguf_shape *s, double T, double N, int fa)
{
    double E = s->n_embd, H = s->n_head;
    double q = s->head_dim_k * H * T * F32;
    double attn = fa ? q + s->head_dim_v * H * T * F32 : N * T * H * F32 + q;
    double ffn = 3.0 * s->n_ff * T * F32;
    if (s->n_expert) {
        double K = s->n_expert_used, Fe = s->n_ff_exp;
        ffn = max2(3 * Fe * K * T * F32, (Fe + E) * K * T * F32);
    }
    return 2 * E * T * F32 + max2(attn, ffn);
}

/* The head: the logits and the normed embeddings (both graph outputs). */
static double head_phase(const gguf_shape *s, double T)
{
    return ((double)s->n_vocab + s->n_embd) * T * F32;
}

double fake_compute_mib(const gguf_shape *s, const fake_where *w, int fa, int gpu, double *host_mib)
{
    double N = (double)((w->ctx + 255) / 256 * 256);
    double T = w->ubatch > 0 ? w->ubatch : 512;
    if (T > N)
        T = N;
    double swa = s->n_swa ? (double)((s->n_swa + (uint32_t)T + 255) / 256 * 256) : 0;
    if (swa > N)
        swa = N;
    double in = inputs(s, T, N, swa, fa), emb = s->n_embd * T * F32;
    double block = block_phase(s, T, N, fa), head = head_phase(s, T);
    if (!gpu) {
        *host_mib = (max2(block, head) + in + emb) / 1048576.0;
        return 0;
    }
    /* the head runs on the device when offloaded (every -ngl above 0: the
     * output layer is the first to go), or when the device takes the host's
     * ops over (32 tokens and more: its weight copied beside the logits);
     * else on the host */
    int all = w->ngl != 0;
    double head_dev = all ? head : T >= 32 ? head + (double)s->output_bytes : 0;
    /* below 32 tokens the host runs what it holds: the first blocks at
     * -ngl 0..n_block, the head too at -ngl 0 */
    int host_runs = T < 32 && w->ngl >= 0 && (uint32_t)w->ngl <= s->n_block;
    double host_phase = host_runs ? max2(block, all ? 0 : head) : 0;
    *host_mib = (in + 2 * emb + host_phase) / 1048576.0;
    return (max2(block, head_dev) + in - 4 * T) / 1048576.0;
}
