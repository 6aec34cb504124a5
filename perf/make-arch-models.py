#!/usr/bin/env python3
"""Writes small random-weight GGUFs of the architectures llama.cpp's memory
differs most across, one file OUTDIR/arch-NAME.gguf per NAME, each loadable by
the real llama.cpp b10587 (tests/fixtures/llama.cpp/arch-sweep-b10587-cpu/
holds what that build allocated for them). Weights are f16 (norms, biases,
convolution and SSM parameters f32, as the converter writes them), at hidden
size 256 with 4-12 blocks; the vocabulary is the real model family's (in
brackets), so the token embedding, the output head and the logits are sized
as in the real model: the files are 49-239 MB, mostly vocabulary.

  gpt-oss        sliding window 128 every other block, attention sinks, 32
                 experts (4 used) with biases, Q/K/V/O biases [201088]
  qwen3next      gated delta-net blocks, full attention every 4th
                 (full_attention_interval), 32 experts + a shared one [151936]
  qwen35         Qwen3.5 dense: gated delta-net + attention every 4th, M-RoPE
                 sections, tied head [248320]
  qwen35moe      Qwen3.5 MoE: the same with 32 experts + shared, and one
                 NextN/MTP block (not loaded without --spec-type mtp); tied
                 head, unlike the real one, to stay under 250 MB [248320]
  granitehybrid  Granite 4.0-H: mamba2 blocks with attention at blocks 3, 7,
                 no RoPE, tied head [100352]
  nemotron_h     Nemotron-H (Nano 2): pattern M-M*-M-M*- (mamba2, relu^2
                 MLP, attention), per-block head_count_kv and
                 feed_forward_length [131072]
  nemotron_h_moe Nemotron 3 Nano: pattern MEME*EME*E, E = 32 relu^2 experts
                 (6 used) + a shared one [131072]
  glm4moe        GLM-4.5-Air shape: 1 leading dense block, 32 experts + 1
                 shared, sigmoid routing with exp_probs_b, Q/K/V biases,
                 partial RoPE, and one NextN/MTP block (block_count 5) [151552]
  llama4         chunked attention (8192-token chunks, every 4th block
                 global), MoE every 2nd block with a shared expert [202048]
  seed_oss       dense, 4 heads of 128, 1 KV head, Q/K/V biases [155136]
  lfm2           short-convolution blocks with attention at blocks 2, 5,
                 tied head [65536]
  deepseek2      MLA (kv_lora_rank 512, rope 64, nope 128, v 128), 1 dense
                 lead, 32 experts + 1 shared [129280]
  deepseek2-legacy  the same widths as converted before attn_kv_b was split
                 (no *_mla lengths, 8 KV heads): run without MLA [129280]
  qwen3moe       32 experts (8 used), Q/K norms [151936]
  gemma3         sliding window 1024, every 6th block global, tied head [262144]
  gemma4         Gemma 4 31B shape: 5 sliding-window blocks (heads of 256)
                 per global block (heads of 512, K as V), per-block KV heads,
                 tied head [262144]

The writer and the tensor helpers are those of
tests/fixtures/models/make-kvarch-models.py (its SPM token list of V
entries: 3 specials, 256 bytes, the rest filler; its generator, seed 14, so
the weights' values, never their shapes, depend on which NAMEs one run
writes). Needs gguf-py (llama.cpp's gguf-py/ on PYTHONPATH) and numpy, about
1 GB of memory. The models are never committed and never read by the unit
tests; perf/capture-arch-sweep.sh loads them with a real build.
Usage: PYTHONPATH=LLAMA_CPP/gguf-py make-arch-models.py OUTDIR [NAME...]"""
import importlib.util
import logging
import sys
from pathlib import Path

import numpy as np

_src = Path(__file__).resolve().parents[1] / "tests/fixtures/models/make-kvarch-models.py"
_spec = importlib.util.spec_from_file_location("kvarch", _src)
kv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kv)
t = kv.t

import gguf  # noqa: E402  (after kv, which imports it the same way)

logging.getLogger("gguf").setLevel(logging.ERROR)  # "Duplicated key" on the overrides below

E = 256  # hidden size of every model here


def f(*ne):
    """An f32 tensor of llama.cpp's {ne0, ne1, ...}: norms, biases, SSM and convolution parameters."""
    return t(*ne).astype(np.float32)


def writer(out, name, arch, L, H, KV, hd, ff, V, ctx):
    return kv.writer(f"{out}/arch-{name}.gguf", arch, L, H, KV, hd, ff, ctx=ctx, E=E, V=V, name=f"arch-{name}")


def qkv(ts, i, n_q, n_kv, bias=False):
    """Q/K/V/O projections (n_q, n_kv: output widths); optional Q/K/V biases."""
    p = f"blk.{i}."
    ts[p + "attn_q.weight"] = t(E, n_q)
    ts[p + "attn_k.weight"] = t(E, n_kv)
    ts[p + "attn_v.weight"] = t(E, n_kv)
    if bias:
        ts[p + "attn_q.bias"] = f(n_q)
        ts[p + "attn_k.bias"] = f(n_kv)
        ts[p + "attn_v.bias"] = f(n_kv)


def moe(ts, i, n_exp, ff_exp, shared_ff=0, gate_inp_shexp=False, probs_b=False):
    """Routed experts (no norm: each caller names its own pre-FFN norm), optional shared expert."""
    p = f"blk.{i}."
    ts[p + "ffn_gate_inp.weight"] = t(E, n_exp)
    ts[p + "ffn_gate_exps.weight"] = t(E, ff_exp, n_exp)
    ts[p + "ffn_up_exps.weight"] = t(E, ff_exp, n_exp)
    ts[p + "ffn_down_exps.weight"] = t(ff_exp, E, n_exp)
    if probs_b:
        ts[p + "exp_probs_b.bias"] = f(n_exp)
    if shared_ff:
        ts[p + "ffn_gate_shexp.weight"] = t(E, shared_ff)
        ts[p + "ffn_up_shexp.weight"] = t(E, shared_ff)
        ts[p + "ffn_down_shexp.weight"] = t(shared_ff, E)
    if gate_inp_shexp:
        ts[p + "ffn_gate_inp_shexp.weight"] = f(E)


def dense(ts, i, n_ff, norm="ffn_norm"):
    p = f"blk.{i}."
    if norm:
        ts[p + norm + ".weight"] = f(E)
    ts[p + "ffn_gate.weight"] = t(E, n_ff)
    ts[p + "ffn_up.weight"] = t(E, n_ff)
    ts[p + "ffn_down.weight"] = t(n_ff, E)


def nextn(ts, i):
    """The NextN/MTP block's own tensors (no embed_tokens / shared_head_head: optional)."""
    p = f"blk.{i}.nextn."
    ts[p + "eh_proj.weight"] = t(2 * E, E)
    ts[p + "enorm.weight"] = f(E)
    ts[p + "hnorm.weight"] = f(E)
    ts[p + "shared_head_norm.weight"] = f(E)


def gpt_oss(out):
    # gpt-oss-20b's shape scaled down: 64-wide heads, 8:2 GQA, window 128, 32 experts (4 used)
    L, H, KV, hd, n_exp, ff_exp, V = 4, 8, 2, 64, 32, 128, 201088
    w = writer(out, "gpt-oss", "gpt-oss", L, H, KV, hd, ff_exp, V, 131072)
    w.add_rope_freq_base(150000.0)
    w.add_rope_scaling_type(gguf.RopeScalingType.YARN)
    w.add_rope_scaling_factor(32.0)
    w.add_rope_scaling_orig_ctx_len(4096)
    w.add_sliding_window(128)  # no pattern key: gpt-oss's default, every other block
    w.add_expert_count(n_exp)
    w.add_expert_used_count(4)
    w.add_expert_feed_forward_length(ff_exp)
    ts = {}
    kv.common(ts, E=E, V=V)
    for i in range(L):
        p = f"blk.{i}."
        ts[p + "attn_norm.weight"] = f(E)
        ts[p + "post_attention_norm.weight"] = f(E)
        qkv(ts, i, H * hd, KV * hd, bias=True)
        ts[p + "attn_output.weight"] = t(H * hd, E)
        ts[p + "attn_output.bias"] = f(E)
        ts[p + "attn_sinks.weight"] = f(H)
        moe(ts, i, n_exp, ff_exp)
        ts[p + "ffn_gate_inp.bias"] = f(n_exp)
        ts[p + "ffn_gate_exps.bias"] = f(ff_exp, n_exp)
        ts[p + "ffn_up_exps.bias"] = f(ff_exp, n_exp)
        ts[p + "ffn_down_exps.bias"] = f(E, n_exp)
    kv.finish(w, ts)


def delta_net(ts, i, d_state, n_group, n_v_heads, d_conv, ba_fused):
    """A gated delta-net (linear attention) block's mixer, qwen3next / qwen35 naming."""
    p = f"blk.{i}."
    key_dim, value_dim = d_state * n_group, d_state * n_v_heads
    ts[p + "attn_qkv.weight"] = t(E, 2 * key_dim + value_dim)
    ts[p + "attn_gate.weight"] = t(E, value_dim)
    ts[p + "ssm_conv1d.weight"] = f(d_conv, 2 * key_dim + value_dim)
    ts[p + "ssm_dt.bias"] = f(n_v_heads)
    ts[p + "ssm_a"] = f(n_v_heads)
    if ba_fused:
        ts[p + "ssm_ba.weight"] = t(E, 2 * n_v_heads)
    else:
        ts[p + "ssm_beta.weight"] = t(E, n_v_heads)
        ts[p + "ssm_alpha.weight"] = t(E, n_v_heads)
    ts[p + "ssm_norm.weight"] = f(d_state)
    ts[p + "ssm_out.weight"] = t(value_dim, E)


def gated_attn(ts, i, H, KV, hd):
    """qwen3next / qwen35 full attention: Q doubled (query and its output gate), Q/K norms."""
    p = f"blk.{i}."
    qkv(ts, i, 2 * H * hd, KV * hd)
    ts[p + "attn_output.weight"] = t(H * hd, E)
    ts[p + "attn_q_norm.weight"] = f(hd)
    ts[p + "attn_k_norm.weight"] = f(hd)


def qwen_linear(out, name, arch, moe_ffn, mtp, tied, V):
    # Qwen3-Next / Qwen3.5 shape scaled down: 256-wide heads (4, 1 KV), partial RoPE 64,
    # delta-net heads of 128 (4 key groups, 8 value heads), conv kernel 4, attention every 4th
    L, H, KV, hd, n_exp, ff_exp, n_ff = 8, 4, 1, 256, 32, 128, 512
    d_state, n_group, n_v, d_conv = 128, 4, 8, 4
    w = writer(out, name, arch, L + mtp, H, KV, hd, n_ff, V, 262144)
    w.add_rope_freq_base(10000000.0)
    w.add_rope_dimension_count(64)
    if arch != "qwen3next":
        w.add_rope_dimension_sections([11, 11, 10, 0])
    w.add_ssm_conv_kernel(d_conv)
    w.add_ssm_inner_size(d_state * n_v)
    w.add_ssm_state_size(d_state)
    w.add_ssm_time_step_rank(n_v)
    w.add_ssm_group_count(n_group)
    w.add_full_attention_interval(4)
    if moe_ffn:
        w.add_expert_count(n_exp)
        w.add_expert_used_count(4)
        w.add_expert_feed_forward_length(ff_exp)
        w.add_expert_shared_feed_forward_length(ff_exp)
    if mtp:
        w.add_nextn_predict_layers(mtp)
    ts = {}
    kv.common(ts, output=not tied, E=E, V=V)
    for i in range(L + mtp):
        p = f"blk.{i}."
        ts[p + "attn_norm.weight"] = f(E)
        ts[p + "post_attention_norm.weight"] = f(E)
        if i >= L or (i + 1) % 4 == 0:
            gated_attn(ts, i, H, KV, hd)
        else:
            delta_net(ts, i, d_state, n_group, n_v, d_conv, ba_fused=(arch == "qwen3next"))
        if moe_ffn:
            moe(ts, i, n_exp, ff_exp, shared_ff=ff_exp, gate_inp_shexp=True)
        else:
            dense(ts, i, n_ff, norm=None)
        if i >= L:
            nextn(ts, i)
    kv.finish(w, ts)


def qwen3next(out):
    qwen_linear(out, "qwen3next", "qwen3next", moe_ffn=True, mtp=0, tied=False, V=151936)


def qwen35(out):
    qwen_linear(out, "qwen35", "qwen35", moe_ffn=False, mtp=0, tied=True, V=248320)


def qwen35moe(out):
    # Qwen3.5-35B-A3B unties its head; tied here to keep the file under 250 MB
    qwen_linear(out, "qwen35moe", "qwen35moe", moe_ffn=True, mtp=1, tied=True, V=248320)


def mamba2(ts, i, d_inner, d_state, n_group, n_heads, d_conv):
    p = f"blk.{i}."
    conv_dim = d_inner + 2 * n_group * d_state
    ts[p + "ssm_in.weight"] = t(E, 2 * d_inner + 2 * n_group * d_state + n_heads)
    ts[p + "ssm_conv1d.weight"] = f(d_conv, conv_dim)
    ts[p + "ssm_conv1d.bias"] = f(conv_dim)
    ts[p + "ssm_dt.bias"] = f(n_heads)
    ts[p + "ssm_a"] = f(1, n_heads)
    ts[p + "ssm_d"] = f(1, n_heads)
    ts[p + "ssm_norm.weight"] = f(d_inner // n_group, n_group)
    ts[p + "ssm_out.weight"] = t(d_inner, E)


def mamba2_keys(w, d_inner, d_state, n_group, n_heads, d_conv):
    w.add_ssm_conv_kernel(d_conv)
    w.add_ssm_inner_size(d_inner)
    w.add_ssm_state_size(d_state)
    w.add_ssm_time_step_rank(n_heads)
    w.add_ssm_group_count(n_group)


def granitehybrid(out):
    # Granite 4.0-H shape: mamba2 (d_inner 2*E, heads of 64, d_state 128, 1 group),
    # attention at blocks 3 and 7 (4 heads of 64, 1 KV head), dense SwiGLU FFN, no RoPE
    L, H, hd, n_ff, V = 8, 4, 64, 512, 100352
    attn = (3, 7)
    kvh = [1 if i in attn else 0 for i in range(L)]
    w = writer(out, "granitehybrid", "granitehybrid", L, H, kvh, hd, n_ff, V, 1048576)
    mamba2_keys(w, 2 * E, 128, 1, 8, 4)
    w.add_rope_scaling_finetuned(False)  # no RoPE (the converter's switch for hybrids)
    w.add_embedding_scale(12.0)
    w.add_residual_scale(0.22)
    w.add_attention_scale(0.015625)
    w.add_logit_scale(4.0)
    ts = {}
    kv.common(ts, output=False, E=E, V=V)
    for i in range(L):
        p = f"blk.{i}."
        ts[p + "attn_norm.weight"] = f(E)
        if i in attn:
            qkv(ts, i, H * hd, hd)
            ts[p + "attn_output.weight"] = t(H * hd, E)
        else:
            mamba2(ts, i, 2 * E, 128, 1, 8, 4)
        dense(ts, i, n_ff)
    kv.finish(w, ts)


def nemotron(out, name, pattern, n_ff, moe_ffn, ctx):
    """Nemotron-H: M = mamba2 (8 heads of 64, 2 groups, d_state 128), * = attention (4 heads of
    128, 2 KV heads), - = relu^2 MLP or E = relu^2 experts (32, 6 used, of 128) + a shared
    relu^2 expert of 256; per-block head_count_kv / feed_forward_length say which is which"""
    H, hd, V = 4, 128, 131072
    n_exp, ff_exp, ff_sh = 32, 128, 256
    L = len(pattern)
    kvh = [2 if c == "*" else 0 for c in pattern]
    ffs = [n_ff if c in "-E" else 0 for c in pattern]
    w = writer(out, name, name, L, H, kvh, hd, ffs, V, ctx)
    mamba2_keys(w, 2 * E, 128, 2, 8, 4)
    w.add_layer_norm_eps(1e-5)
    w.add_rope_scaling_finetuned(False)
    if moe_ffn:
        w.add_expert_count(n_exp)
        w.add_expert_used_count(6)
        w.add_expert_feed_forward_length(ff_exp)
        w.add_expert_shared_feed_forward_length(ff_sh)
        w.add_expert_shared_count(1)
        w.add_expert_weights_norm(True)
        w.add_expert_weights_scale(2.5)
    ts = {}
    kv.common(ts, E=E, V=V)
    for i, c in enumerate(pattern):
        p = f"blk.{i}."
        ts[p + "attn_norm.weight"] = f(E)
        if c == "M":
            mamba2(ts, i, 2 * E, 128, 2, 8, 4)
        elif c == "*":
            qkv(ts, i, H * hd, 2 * hd)
            ts[p + "attn_output.weight"] = t(H * hd, E)
        elif c == "E":
            ts[p + "ffn_gate_inp.weight"] = t(E, n_exp)
            ts[p + "exp_probs_b.bias"] = f(n_exp)
            ts[p + "ffn_up_exps.weight"] = t(E, ff_exp, n_exp)
            ts[p + "ffn_down_exps.weight"] = t(ff_exp, E, n_exp)
            ts[p + "ffn_up_shexp.weight"] = t(E, ff_sh)
            ts[p + "ffn_down_shexp.weight"] = t(ff_sh, E)
        else:
            ts[p + "ffn_up.weight"] = t(E, n_ff)
            ts[p + "ffn_down.weight"] = t(n_ff, E)
    kv.finish(w, ts)


def nemotron_h(out):
    nemotron(out, "nemotron_h", "M-M*-M-M*-", 768, moe_ffn=False, ctx=131072)  # Nemotron Nano 2 style


def nemotron_h_moe(out):
    nemotron(out, "nemotron_h_moe", "MEME*EME*E", 128, moe_ffn=True, ctx=262144)  # Nemotron 3 Nano style


def glm4moe(out):
    # GLM-4.5-Air shape: 8 heads of 64 (2 KV), half-width RoPE, Q/K/V biases, block 0 dense,
    # 32 experts (4 used) + 1 shared, sigmoid routing; block 4 is the NextN/MTP block
    L, H, KV, hd, n_exp, ff_exp, n_ff, V = 4, 8, 2, 64, 32, 128, 512, 151552
    w = writer(out, "glm4moe", "glm4moe", L + 1, H, KV, hd, n_ff, V, 131072)
    w.add_rope_freq_base(1000000.0)
    w.add_rope_dimension_count(hd // 2)
    w.add_leading_dense_block_count(1)
    w.add_expert_count(n_exp)
    w.add_expert_used_count(4)
    w.add_expert_feed_forward_length(ff_exp)
    w.add_expert_shared_count(1)
    w.add_expert_weights_scale(1.0)
    w.add_expert_weights_norm(True)
    w.add_expert_gating_func(gguf.ExpertGatingFuncType.SIGMOID)
    w.add_nextn_predict_layers(1)
    ts = {}
    kv.common(ts, E=E, V=V)
    for i in range(L + 1):
        p = f"blk.{i}."
        ts[p + "attn_norm.weight"] = f(E)
        qkv(ts, i, H * hd, KV * hd, bias=True)
        ts[p + "attn_output.weight"] = t(H * hd, E)
        ts[p + "post_attention_norm.weight"] = f(E)
        if i == 0:
            dense(ts, i, n_ff, norm=None)
        else:
            moe(ts, i, n_exp, ff_exp, shared_ff=ff_exp, probs_b=True)
        if i == L:
            nextn(ts, i)
    kv.finish(w, ts)


def llama4(out):
    # Llama 4 (Maverick-style interleave): 4 heads of 128, 1 KV head, chunked attention
    # (no sliding_window key: 8192-token chunks, every 4th block global), MoE with a shared
    # expert every 2nd block (16 experts, 1 used), dense SwiGLU elsewhere
    L, H, KV, hd, n_exp, ff_exp, n_ff, V = 4, 4, 1, 128, 16, 256, 512, 202048
    w = writer(out, "llama4", "llama4", L, H, KV, hd, n_ff, V, 1048576)
    w.add_rope_freq_base(500000.0)
    w.add_rope_dimension_count(hd)
    w.add_expert_count(n_exp)
    w.add_expert_used_count(1)
    w.add_expert_feed_forward_length(ff_exp)
    w.add_interleave_moe_layer_step(2)
    ts = {}
    kv.common(ts, E=E, V=V)
    for i in range(L):
        kv.attn(ts, i, H, KV, hd, E=E)
        if (i + 1) % 2 == 0:
            ts[f"blk.{i}.ffn_norm.weight"] = f(E)
            moe(ts, i, n_exp, ff_exp, shared_ff=ff_exp)
        else:
            dense(ts, i, n_ff)
    kv.finish(w, ts)


def seed_oss(out):
    # Seed-OSS-36B shape: heads of 128 (4, 1 KV), Q/K/V biases, post-attention norm as pre-FFN norm
    L, H, KV, hd, n_ff, V = 4, 4, 1, 128, 768, 155136
    w = writer(out, "seed_oss", "seed_oss", L, H, KV, hd, n_ff, V, 524288)
    w.add_rope_freq_base(10000000.0)
    w.add_rope_dimension_count(hd)
    ts = {}
    kv.common(ts, E=E, V=V)
    for i in range(L):
        p = f"blk.{i}."
        ts[p + "attn_norm.weight"] = f(E)
        qkv(ts, i, H * hd, KV * hd, bias=True)
        ts[p + "attn_output.weight"] = t(H * hd, E)
        ts[p + "post_attention_norm.weight"] = f(E)
        dense(ts, i, n_ff, norm=None)
    kv.finish(w, ts)


def lfm2(out):
    # LFM2 shape: short convolutions (L_cache 3) with attention (4 heads of 64, 2 KV) at 2 and 5
    L, H, hd, n_ff, V = 8, 4, 64, 768, 65536
    kvh = [2 if i in (2, 5) else 0 for i in range(L)]
    w = writer(out, "lfm2", "lfm2", L, H, kvh, hd, n_ff, V, 128000)
    w.add_rope_freq_base(1000000.0)
    w.add_shortconv_l_cache(3)
    ts = {"token_embd.weight": t(E, V), "token_embd_norm.weight": f(E)}
    for i, n_kv in enumerate(kvh):
        p = f"blk.{i}."
        dense(ts, i, n_ff)
        ts[p + "attn_norm.weight"] = f(E)
        if n_kv:
            ts[p + "attn_q_norm.weight"] = f(hd)
            ts[p + "attn_k_norm.weight"] = f(hd)
            qkv(ts, i, E, n_kv * hd)
            ts[p + "attn_output.weight"] = t(E, E)
        else:
            ts[p + "shortconv.conv.weight"] = f(3, E)
            ts[p + "shortconv.in_proj.weight"] = t(E, 3 * E)
            ts[p + "shortconv.out_proj.weight"] = t(E, E)
    kv.finish(w, ts)


def deepseek2(out):
    # DeepSeek-V3's MLA widths (kv_lora 512, rope 64, nope 128, v 128; q_lora 192 here),
    # 8 heads, 1 dense lead block, 32 experts (4 used) of 128 + 1 shared
    kv.mla_model(f"{out}/arch-deepseek2.gguf", "arch-deepseek2", 4, 8, 192, 512, 64, 128, 128, 32, 4,
                 128, 512, ctx=163840, E=E, V=129280)


def deepseek2_legacy(out):
    # The same widths as a file converted before llama.cpp split attn_kv_b into
    # attn_k_b / attn_v_b: no *_mla lengths, K and V per head (nope + rope, v),
    # as many KV heads as heads; b10587 runs it without the absorption (MHA)
    kv.mla_model(f"{out}/arch-deepseek2-legacy.gguf", "arch-deepseek2-legacy", 4, 8, 192, 512, 64, 128, 128,
                 32, 4, 128, 512, ctx=163840, E=E, V=129280, split=False)


def qwen3moe(out):
    # Qwen3-30B-A3B shape: heads of 128 (4, 1 KV), Q/K norms, 32 experts (8 used) of 128
    L, H, KV, hd, n_exp, ff_exp, V = 6, 4, 1, 128, 32, 128, 151936
    w = writer(out, "qwen3moe", "qwen3moe", L, H, KV, hd, 768, V, 262144)
    w.add_rope_freq_base(10000000.0)
    w.add_expert_count(n_exp)
    w.add_expert_used_count(8)
    w.add_expert_feed_forward_length(ff_exp)
    ts = {}
    kv.common(ts, E=E, V=V)
    for i in range(L):
        kv.attn(ts, i, H, KV, hd, qk_norm=True, E=E)
        kv.experts(ts, i, n_exp, ff_exp, E=E)
    kv.finish(w, ts)


def gemma3(out):
    # Gemma 3 4B shape: heads of 256 (4, 2 KV), window 1024, no pattern key (every 6th global)
    L, H, KV, hd, n_ff, V = 12, 4, 2, 256, 768, 262144
    w = writer(out, "gemma3", "gemma3", L, H, KV, hd, n_ff, V, 131072)
    w.add_rope_freq_base(1000000.0)
    w.add_rope_freq_base_swa(10000.0)
    w.add_sliding_window(1024)
    ts = {}
    kv.common(ts, output=False, E=E, V=V)
    for i in range(L):
        kv.attn(ts, i, H, KV, hd, qk_norm=True, post_norm=True, E=E)
        kv.ffn(ts, i, n_ff, E=E)
    kv.finish(w, ts)


def gemma4(out):
    # Gemma 4 31B shape: 5 sliding-window blocks (window 1024, heads of 256, 2 KV heads) then a
    # global one (heads of 512, 1 KV head, K reused as V: no attn_v), per-layer
    # head_count_kv, proportional RoPE (rope_freqs), tied head
    L, H, n_ff, V = 6, 4, 768, 262144
    swa = [i % 6 != 5 for i in range(L)]
    kvh = [2 if s_ else 1 for s_ in swa]
    w = writer(out, "gemma4", "gemma4", L, H, kvh, 512, n_ff, V, 262144)
    w.add_key_length_swa(256)
    w.add_value_length_swa(256)
    w.add_rope_dimension_count(512)
    w.add_rope_dimension_count_swa(256)
    w.add_rope_freq_base(1000000.0)
    w.add_rope_freq_base_swa(10000.0)
    w.add_sliding_window(1024)
    w.add_sliding_window_pattern(swa)
    w.add_shared_kv_layers(0)
    w.add_embedding_length_per_layer_input(0)
    w.add_final_logit_softcapping(30.0)
    ts = {}
    kv.common(ts, output=False, E=E, V=V)
    ts["rope_freqs.weight"] = f(256)
    for i in range(L):
        p = f"blk.{i}."
        hd, n_kv = (256, 2) if swa[i] else (512, 1)
        ts[p + "attn_norm.weight"] = f(E)
        ts[p + "attn_q.weight"] = t(E, H * hd)
        ts[p + "attn_k.weight"] = t(E, n_kv * hd)
        if swa[i]:
            ts[p + "attn_v.weight"] = t(E, n_kv * hd)
        ts[p + "attn_output.weight"] = t(H * hd, E)
        ts[p + "attn_q_norm.weight"] = f(hd)
        ts[p + "attn_k_norm.weight"] = f(hd)
        ts[p + "post_attention_norm.weight"] = f(E)
        ts[p + "layer_output_scale.weight"] = f(1)
        dense(ts, i, n_ff)
        ts[p + "post_ffw_norm.weight"] = f(E)
    kv.finish(w, ts)


MODELS = {"gpt-oss": gpt_oss, "qwen3next": qwen3next, "qwen35": qwen35, "qwen35moe": qwen35moe,
          "granitehybrid": granitehybrid, "nemotron_h": nemotron_h, "glm4moe": glm4moe,
          "llama4": llama4, "seed_oss": seed_oss, "lfm2": lfm2, "deepseek2": deepseek2,
          "deepseek2-legacy": deepseek2_legacy,
          "qwen3moe": qwen3moe, "gemma3": gemma3, "gemma4": gemma4, "nemotron_h_moe": nemotron_h_moe}

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for name in sys.argv[2:] or MODELS:
        MODELS[name](sys.argv[1])
