#!/usr/bin/env bash
# e2e_alloc.sh: placement predicted next to actual, end to end:
# lvd bench passes -v, the fake engine prints llama.cpp's allocation lines
# (scaled from tests/fixtures/llama.cpp/alloc-b9749/), every run records
# them per device beside the placement's prediction (run_alloc), a load that
# runs out of device memory is a placement failure naming the predicted
# bytes, and the evidence page shows both. Reads the store with python3's
# sqlite3. Not a test of the parser (test_alloclog) or of placement
# (test_placement).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
MODEL=$LVD_SOURCE/tests/fixtures/models/small-llama-q8_0.gguf

sql() { python3 -c "import sqlite3,sys; print(sqlite3.connect('$LVD_STORE').execute(sys.argv[1]).fetchall())" "$1"; }

world alloc
engine vk "device = Vulkan0|llvmpipe (LLVM 15.0.6, 256 bits)|2048|2048" "dev.Vulkan0.tg = 100"
engine oom "device = Vulkan0|llvmpipe (LLVM 15.0.6, 256 bits)|2048|2048" "bench.fault = oom"
lvd bench --model "$MODEL" --tests tg128 --fa on --reps 3 --json
check "llama-bench ran with -v" grep -q -- " -v" "$W/vk/calls.log"
# the fake scales the capture by the file's size (21275607 bytes, not the 20550656 of tensors)
check "the run records Vulkan0's buffers (~11.30 MiB of weights)" is "$(sql "SELECT abs(a.model - 11848909) < 524288 FROM run_alloc a JOIN runs r ON r.id = a.run_id WHERE r.status = 'ok' AND a.device = 'Vulkan0' LIMIT 1")" "[(1,)]"
check "and the embeddings on the host (~8.30 MiB)" is "$(sql "SELECT abs(a.model - 8703181) < 524288 FROM run_alloc a JOIN runs r ON r.id = a.run_id WHERE r.status = 'ok' AND a.device = 'CPU' LIMIT 1")" "[(1,)]"
check "next to the prediction: device weights less token_embd" is "$(sql "SELECT a.pred_model FROM run_alloc a JOIN runs r ON r.id = a.run_id WHERE r.status = 'ok' AND a.device = 'Vulkan0' LIMIT 1")" "[(11846656,)]"
check "KV and compute recorded" is "$(sql "SELECT kv > 0 AND compute > 0 AND pred_kv > 0 AND pred_compute > 0 FROM run_alloc WHERE device = 'Vulkan0' AND model IS NOT NULL LIMIT 1")" "[(1,)]"
# every load fails there: the full arm and the two reduced-ubatch rungs after it
# (the next rung in the same session, e2e_next_rung) price all blocks' weights
check "the out-of-memory load: a placement failure with the predicted bytes" is "$(sql "SELECT count(*) FROM runs WHERE status = 'failed' AND reason LIKE 'placement failure: out of memory on Vulkan0, predicted % MiB (weights 11.30, KV %ErrorOutOfDeviceMemory%'")" "[(3,)]"
lvd evidence --out "$tmp/page.md"
check "the evidence page shows predicted vs actual" grep -q "Placement: predicted next to actual" "$tmp/page.md"
# its arm cell in the page's words (Vulkan0, ngl 99, fa 1), never the arm key (dev=Vulkan0 ngl=99 ...)
check "the placement table names the arm in words" grep -qE '^\| Vulkan0, ngl [0-9]+, fa 1[^|]* \| Vulkan0 \|' "$tmp/page.md"
check "and shows no arm key" sh -c '! grep -F "dev=" "$0"' "$tmp/page.md"
# the fake prints what llama.cpp would for the shape (its closed form of the
# graph's dominant terms, tests/fake-engine/fake_compute.c), the estimator
# predicts it by replaying the graph: the estimator table's ratios sit near 1
ratios() { python3 - "$tmp/page.md" <<'PY'
import re, sys
row = [l for l in open(sys.argv[1]) if l.startswith("| vulkan |")][0].split("|")
weights, compute, total = float(row[3]), float(row[5]), float(row[7])
print(0.98 <= weights <= 1.02, 0.85 <= compute <= 1.15, 0.9 <= total <= 1.1)
PY
}
check "the estimator table: weights, compute and total near 1 on Vulkan" [ "$(ratios)" = "True True True" ]
check "and the margin correction drawn from them, and which way it moved" \
  grep -qE "^- vulkan b9749: actual/predicted over [0-9]+ rows .*device need x[0-9.]+, (up|down|unchanged)" "$tmp/page.md"
e2e_finish
