#!/usr/bin/env python3
"""Writes the random-weight GGUFs perf_compute_buffer measures llama.cpp's
compute buffers on (docs/placement-compute.md): one per shape the placement
estimator must get right, each a few tens to a couple of hundred MB of f16.

  alloc-llama     dense, 32 000-token vocabulary, separate output head
  alloc-qwen2     dense, 151 936-token vocabulary (Qwen2's), tied output head,
                  Q/K/V biases
  alloc-qwen3moe  MoE: 16 experts, 8 used, expert FFN 512, Q/K norms
  alloc-gemma3    sliding-window attention (window 512, every 6th block global)
  alloc-deepseek2 MLA (kv_lora_rank 128) with routed and shared experts

Needs gguf-py (llama.cpp's gguf-py/ on PYTHONPATH) and numpy. The models are
never committed and never read by the unit tests (they use the captured
allocation lines in tests/fixtures/llama.cpp/alloc-*/).
Usage: make-alloc-models.py OUTDIR [NAME...]"""
import sys
import numpy as np
import gguf

rng = np.random.default_rng(30)


def t(*ne):  # llama.cpp's {ne0, ne1, ...}; numpy's order is reversed
    shape = tuple(reversed(ne))
    a = rng.standard_normal(shape, dtype=np.float32) * 0.02
    return a.astype(np.float16 if len(ne) > 1 else np.float32)


def writer(path, arch, *, E, L, H, KV, hd, ff, V, vd=None, ctx=32768):
    w = gguf.GGUFWriter(path, arch)
    w.add_name(path.rsplit("/", 1)[-1].removesuffix(".gguf"))
    w.add_block_count(L)
    w.add_context_length(ctx)
    w.add_embedding_length(E)
    w.add_feed_forward_length(ff)
    w.add_head_count(H)
    w.add_head_count_kv(KV)
    w.add_key_length(hd)
    w.add_value_length(vd or hd)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_rope_freq_base(10000.0)
    w.add_file_type(1)
    toks = ["<unk>", "<s>", "</s>"] + [f"<0x{i:02X}>" for i in range(256)]
    toks += [f"\u2581t{i}" for i in range(V - len(toks))]
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list(toks)
    w.add_token_scores([0.0] * V)
    w.add_token_types([2, 3, 3] + [6] * 256 + [1] * (V - 259))
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    return w


def finish(w, tensors):
    for name, arr in tensors.items():
        w.add_tensor(name, arr)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def head(ts, E, V, tied):
    ts["token_embd.weight"] = t(E, V)
    ts["output_norm.weight"] = t(E)
    if not tied:
        ts["output.weight"] = t(E, V)


def attn(ts, i, E, H, KV, hd, bias=False, qk_norm=False, post_norm=False):
    p = f"blk.{i}."
    ts[p + "attn_norm.weight"] = t(E)
    ts[p + "attn_q.weight"] = t(E, H * hd)
    ts[p + "attn_k.weight"] = t(E, KV * hd)
    ts[p + "attn_v.weight"] = t(E, KV * hd)
    if bias:
        ts[p + "attn_q.bias"] = t(H * hd)
        ts[p + "attn_k.bias"] = t(KV * hd)
        ts[p + "attn_v.bias"] = t(KV * hd)
    ts[p + "attn_output.weight"] = t(H * hd, E)
    if qk_norm:
        ts[p + "attn_q_norm.weight"] = t(hd)
        ts[p + "attn_k_norm.weight"] = t(hd)
    if post_norm:
        ts[p + "post_attention_norm.weight"] = t(E)
        ts[p + "post_ffw_norm.weight"] = t(E)


def ffn(ts, i, E, ff):
    p = f"blk.{i}."
    ts[p + "ffn_norm.weight"] = t(E)
    ts[p + "ffn_gate.weight"] = t(E, ff)
    ts[p + "ffn_up.weight"] = t(E, ff)
    ts[p + "ffn_down.weight"] = t(ff, E)


def experts(ts, i, E, n_exp, ff_exp, shared_ff=0):
    p = f"blk.{i}."
    ts[p + "ffn_norm.weight"] = t(E)
    ts[p + "ffn_gate_inp.weight"] = t(E, n_exp)
    ts[p + "ffn_gate_exps.weight"] = t(E, ff_exp, n_exp)
    ts[p + "ffn_up_exps.weight"] = t(E, ff_exp, n_exp)
    ts[p + "ffn_down_exps.weight"] = t(ff_exp, E, n_exp)
    if shared_ff:
        ts[p + "ffn_gate_shexp.weight"] = t(E, shared_ff)
        ts[p + "ffn_up_shexp.weight"] = t(E, shared_ff)
        ts[p + "ffn_down_shexp.weight"] = t(shared_ff, E)


def llama(out):
    d = dict(E=512, L=8, H=8, KV=4, hd=64, ff=1408, V=32000)
    w = writer(f"{out}/alloc-llama.gguf", "llama", **d)
    w.add_rope_dimension_count(64)
    ts = {}
    head(ts, 512, 32000, tied=False)
    for i in range(8):
        attn(ts, i, 512, 8, 4, 64)
        ffn(ts, i, 512, 1408)
    finish(w, ts)


def qwen2(out):
    d = dict(E=512, L=6, H=8, KV=2, hd=64, ff=1408, V=151936)
    w = writer(f"{out}/alloc-qwen2.gguf", "qwen2", **d)
    ts = {}
    head(ts, 512, 151936, tied=True)
    for i in range(6):
        attn(ts, i, 512, 8, 2, 64, bias=True)
        ffn(ts, i, 512, 1408)
    finish(w, ts)


def qwen3moe(out):
    d = dict(E=512, L=6, H=8, KV=4, hd=64, ff=1408, V=32000)
    w = writer(f"{out}/alloc-qwen3moe.gguf", "qwen3moe", **d)
    w.add_expert_count(16)
    w.add_expert_used_count(8)
    w.add_expert_feed_forward_length(512)
    ts = {}
    head(ts, 512, 32000, tied=False)
    for i in range(6):
        attn(ts, i, 512, 8, 4, 64, qk_norm=True)
        experts(ts, i, 512, 16, 512)
    finish(w, ts)


def gemma3(out):
    d = dict(E=512, L=12, H=8, KV=4, hd=64, ff=1408, V=32000)
    w = writer(f"{out}/alloc-gemma3.gguf", "gemma3", **d)
    w.add_sliding_window(512)  # no pattern key: gemma3's default, every 6th block global
    ts = {}
    head(ts, 512, 32000, tied=True)
    for i in range(12):
        attn(ts, i, 512, 8, 4, 64, qk_norm=True, post_norm=True)
        ffn(ts, i, 512, 1408)
    finish(w, ts)


def deepseek2(out):
    E, L, H, V = 512, 4, 8, 32000
    q_lora, kv_lora, rope, nope, v_head = 192, 128, 32, 64, 64
    n_exp, ff_exp = 16, 256
    w = writer(f"{out}/alloc-deepseek2.gguf", "deepseek2", E=E, L=L, H=H, KV=1,
               hd=kv_lora + rope, vd=kv_lora, ff=1408, V=V)
    # MLA as convert_hf_to_gguf writes it: one KV head of kv_lora_rank + rope
    # (K) and kv_lora_rank (V); the per-head sizes in *_mla.
    w.add_key_length_mla(nope + rope)
    w.add_value_length_mla(v_head)
    w.add_rope_dimension_count(rope)
    w.add_q_lora_rank(q_lora)
    w.add_kv_lora_rank(kv_lora)
    w.add_leading_dense_block_count(1)
    w.add_expert_count(n_exp)
    w.add_expert_used_count(4)
    w.add_expert_feed_forward_length(ff_exp)
    w.add_expert_shared_count(1)
    ts = {}
    head(ts, E, V, tied=False)
    for i in range(L):
        p = f"blk.{i}."
        ts[p + "attn_norm.weight"] = t(E)
        ts[p + "attn_q_a_norm.weight"] = t(q_lora)
        ts[p + "attn_kv_a_norm.weight"] = t(kv_lora)
        ts[p + "attn_q_a.weight"] = t(E, q_lora)
        ts[p + "attn_q_b.weight"] = t(q_lora, H * (nope + rope))
        ts[p + "attn_kv_a_mqa.weight"] = t(E, kv_lora + rope)
        ts[p + "attn_k_b.weight"] = t(nope, kv_lora, H)
        ts[p + "attn_v_b.weight"] = t(kv_lora, v_head, H)
        ts[p + "attn_output.weight"] = t(H * v_head, E)
        if i == 0:
            ffn(ts, i, E, 1408)
        else:
            experts(ts, i, E, n_exp, ff_exp, shared_ff=ff_exp)
    finish(w, ts)


MODELS = {"llama": llama, "qwen2": qwen2, "qwen3moe": qwen3moe, "gemma3": gemma3,
          "deepseek2": deepseek2}

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for name in sys.argv[2:] or MODELS:
        MODELS[name](sys.argv[1])
