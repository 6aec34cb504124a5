#!/usr/bin/env python3
"""Writes the header of a GGUF model without its tokenizer's arrays, for the
tests and benchmarks that read only a model's shape (gguf_parse_shape): the
metadata but tokenizer.ggml.tokens/scores/token_type/merges, and every tensor
info, no tensor data. OUTDIR/NAME.head is that header; OUTDIR/NAME.size is
the original file's size in bytes (the tensor infos' offsets are checked
against it). The vocabulary then comes from token_embd.weight's rows, as for
the full file. Needs gguf-py (llama.cpp's gguf-py/ on PYTHONPATH).
Usage: gguf-head.py OUTDIR MODEL.gguf..."""
import os
import sys

import gguf

DROP = {"tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type", "tokenizer.ggml.merges"}


def head(model, outdir):
    r = gguf.GGUFReader(model)
    name = os.path.basename(model)
    arch = str(bytes(r.fields["general.architecture"].parts[-1]), "utf-8")
    w = gguf.GGUFWriter(os.path.join(outdir, name + ".head"), arch)
    w.kv_data[0].clear()  # the writer's own general.architecture: copied below with the rest
    for key, f in r.fields.items():
        if key in DROP or key.startswith("GGUF."):
            continue
        t = f.types[0]
        if t == gguf.GGUFValueType.ARRAY:
            sub = f.types[1]
            if sub == gguf.GGUFValueType.STRING:
                val = [str(bytes(f.parts[i]), "utf-8") for i in f.data]
            else:
                val = [f.parts[i].tolist()[0] for i in f.data]
            w.add_key_value(key, val, t, sub_type=sub)
        elif t == gguf.GGUFValueType.STRING:
            w.add_key_value(key, str(bytes(f.parts[f.data[0]]), "utf-8"), t)
        else:
            w.add_key_value(key, f.parts[f.data[0]].tolist()[0], t)
    for ti in r.tensors:
        w.add_tensor_info(ti.name, list(reversed([int(d) for d in ti.shape])), ti.data.dtype, int(ti.n_bytes),
                          raw_dtype=ti.tensor_type)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    w.close()
    with open(os.path.join(outdir, name + ".size"), "w") as f:
        f.write("%d\n" % os.path.getsize(model))


if __name__ == "__main__":
    for m in sys.argv[2:]:
        head(m, sys.argv[1])
