#!/usr/bin/env bash
# e2e_next_rung.sh: an out-of-memory load steps down the placement ladder in
# the same session. The fake Vulkan0 claims 2048 MiB free but
# really has 13 MiB (dev.Vulkan0.real_mib): small-llama fully resident at
# tg16's context needs 13.77 MiB (11.30 weights, 0.50 KV, 1.97 of compute
# buffer: the logits of 16 tokens, 32000 x 16 x 4 bytes), the same at every
# ubatch (16 tokens are all there is); -ngl 4, the output head and the last
# 3 blocks, about 12.9 (10.55 weights, 0.38 KV, the same logits; below 32
# tokens the host computes its own first block). So the session measures
# the full arm (-ngl 99), out of memory (a placement failure with its
# predicted bytes), then the next rung that needs less: -ngl 4, which loads
# and is measured, said in the report. Also: the margin
# correction each placed device kept is reported. Not a test of the ladder
# (test_correction).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
MODEL=$LVD_SOURCE/tests/fixtures/models/small-llama-q8_0.gguf
sql() { python3 -c "import sqlite3,sys; print(sqlite3.connect('$LVD_STORE').execute(sys.argv[1]).fetchall())" "$1"; }

world rung
engine vk "device = Vulkan0|llvmpipe (LLVM 15.0.6, 256 bits)|2048|2048" "dev.Vulkan0.tg = 100" \
  "dev.Vulkan0.real_mib = 13"
lvd bench --model "$MODEL" --tests tg16 --depth 0 --fa on --reps 3 --json
expect_rc "excluded arms make the session partial" 5
check "two arms: the planned one and its rung" is "len(d['arms'])" "2"
check "the rung replaces the one before" is "[a['rung_of'] for a in d['arms']]" "[None, 0]"
check "the rung: -ngl 4, the output head and 3 blocks" \
  is "[(a['params']['ngl'], a['params']['ubatch']) for a in d['arms']]" "[(99, None), (4, None)]"
check "the out-of-memory arm is excluded, the rung is measured" \
  is "[a['status'] for a in d['arms']]" "['excluded', 'active']"
check "the report says why the rung was tried" \
  is "sum('ran out of memory' in n and 'measuring' in n for n in d['placement']['notes'])" "1"
check "a placement failure for the out-of-memory load, with its predicted bytes" \
  is "$(sql "SELECT count(*) FROM runs WHERE status = 'failed' AND reason LIKE 'placement failure: out of memory on Vulkan0, predicted %'")" "[(1,)]"
check "the rung loads: ok runs on Vulkan0 at -ngl 4" \
  is "$(sql "SELECT count(*) > 0 FROM runs WHERE status = 'ok' AND p_ngl = 4")" "[(1,)]"
check "the margin correction kept is said" \
  is "any(n.startswith('margin correction for Vulkan0: vulkan b9749: no margin correction') for n in d['placement']['notes'])" "True"

# the table report says the same
lvd bench --model "$MODEL" --tests tg16 --depth 0 --fa on --reps 3
check "the text report names the next rungs" grep -q "^placement: next rung: .* ran out of memory" "$tmp/out"
e2e_finish
