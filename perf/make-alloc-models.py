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
  alloc-heads32   dense, 32 heads of 16: without flash attention its kq at a
                  32768 context (2 GiB at ubatch 512) outgrows the seed's
                  1222 MiB allowance (test_cbufcases' step-down case)

The writer and the tensor helpers are those of
tests/fixtures/models/make-kvarch-models.py, at a larger hidden size and
vocabulary. Needs gguf-py (llama.cpp's gguf-py/ on PYTHONPATH) and numpy.
The models are never committed and never read by the unit tests (they use
the captured allocation lines in tests/fixtures/llama.cpp/alloc-sweep-*/ and
the shapes of bench/cbufcases.c). Usage: make-alloc-models.py OUTDIR [NAME...]"""
import importlib.util
import sys
from pathlib import Path

_src = Path(__file__).resolve().parents[1] / "tests/fixtures/models/make-kvarch-models.py"
_spec = importlib.util.spec_from_file_location("kvarch", _src)
kv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kv)
t = kv.t

E = 512  # hidden size of every model here


def writer(out, arch, L, H, KV, hd, ff, V, **kw):
    name = f"alloc-{arch}"
    return kv.writer(f"{out}/{name}.gguf", arch, L, H, KV, hd, ff, ctx=32768, E=E, V=V, name=name, **kw)


def dense_llama(out, name, L, H, KV, hd):
    """A llama of L blocks, H heads and KV KV heads of hd, FFN 1408, 32 000 tokens."""
    w = kv.writer(f"{out}/{name}.gguf", "llama", L, H, KV, hd, 1408, ctx=32768, E=E, V=32000, name=name)
    w.add_rope_dimension_count(hd)
    ts = {}
    kv.common(ts, E=E, V=32000)
    for i in range(L):
        kv.attn(ts, i, H, KV, hd, E=E)
        kv.ffn(ts, i, 1408, E=E)
    kv.finish(w, ts)


def llama(out):
    dense_llama(out, "alloc-llama", 8, 8, 4, 64)


def heads32(out):
    dense_llama(out, "alloc-heads32", 4, 32, 8, 16)


def qwen2(out):
    w = writer(out, "qwen2", 6, 8, 2, 64, 1408, 151936)
    ts = {}
    kv.common(ts, output=False, E=E, V=151936)
    for i in range(6):
        kv.attn(ts, i, 8, 2, 64, E=E)
        for x, n in (("q", 8 * 64), ("k", 2 * 64), ("v", 2 * 64)):
            ts[f"blk.{i}.attn_{x}.bias"] = t(n)
        kv.ffn(ts, i, 1408, E=E)
    kv.finish(w, ts)


def qwen3moe(out):
    w = writer(out, "qwen3moe", 6, 8, 4, 64, 1408, 32000)
    w.add_expert_count(16)
    w.add_expert_used_count(8)
    w.add_expert_feed_forward_length(512)
    ts = {}
    kv.common(ts, E=E, V=32000)
    for i in range(6):
        kv.attn(ts, i, 8, 4, 64, qk_norm=True, E=E)
        kv.experts(ts, i, 16, 512, E=E)
    kv.finish(w, ts)


def gemma3(out):
    w = writer(out, "gemma3", 12, 8, 4, 64, 1408, 32000)
    w.add_sliding_window(512)  # no pattern key: gemma3's default, every 6th block global
    ts = {}
    kv.common(ts, output=False, E=E, V=32000)
    for i in range(12):
        kv.attn(ts, i, 8, 4, 64, qk_norm=True, post_norm=True, E=E)
        kv.ffn(ts, i, 1408, E=E)
    kv.finish(w, ts)


def deepseek2(out):
    # q_lora 192, kv_lora 128, rope 32, nope 64, v 64; 16 experts (4 used) of 256
    kv.mla_model(f"{out}/alloc-deepseek2.gguf", "alloc-deepseek2", 4, 8, 192, 128, 32, 64, 64, 16, 4,
                 256, 1408, ctx=32768, E=E, V=32000)


MODELS = {"llama": llama, "qwen2": qwen2, "qwen3moe": qwen3moe, "gemma3": gemma3,
          "deepseek2": deepseek2, "heads32": heads32}

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for name in sys.argv[2:] or MODELS:
        MODELS[name](sys.argv[1])
