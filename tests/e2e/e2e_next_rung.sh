#!/usr/bin/env bash
# e2e_next_rung.sh: an out-of-memory load steps down the placement ladder in
# the same session. The fake Vulkan0 claims 2048 MiB free but
# really has 12 MiB (dev.Vulkan0.real_mib): small-llama fully resident needs
# about 13.9 MiB (11.3 weights, 0.5 KV, 2.1 compute at ubatch 512), 12.9 at
# ubatch 256, 12.3 at 128, and 4 blocks without the output head about 4 MiB
# (tests/fake-engine/fake_memory.c). So the session measures the full arm (-ngl 99),
# then ubatch 256, then 128 (each out of memory, a placement failure with its
# predicted bytes), then -ngl 4 -ub 128, which loads and is measured: every
# step a new arm, said in the report. Also: the margin correction each placed
# device kept is reported. Not a test of the ladder (test_correction).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
MODEL=$LVD_SOURCE/tests/fixtures/models/small-llama-q8_0.gguf
sql() { python3 -c "import sqlite3,sys; print(sqlite3.connect('$LVD_STORE').execute(sys.argv[1]).fetchall())" "$1"; }

world rung
engine vk "device = Vulkan0|llvmpipe (LLVM 15.0.6, 256 bits)|2048|2048" "dev.Vulkan0.tg = 100" \
  "dev.Vulkan0.real_mib = 12"
lvd bench --model "$MODEL" --tests tg128 --fa on --reps 3 --json
expect_rc "excluded arms make the session partial" 5
check "four arms: the planned one and three rungs" is "len(d['arms'])" "4"
check "each rung replaces the one before" is "[a['rung_of'] for a in d['arms']]" "[None, 0, 1, 2]"
check "the rungs: ubatch 256, ubatch 128, then 4 blocks at ubatch 128" \
  is "[(a['params']['ngl'], a['params']['ubatch']) for a in d['arms']]" "[(99, None), (5, 256), (5, 128), (4, 128)]"
check "the three out-of-memory arms are excluded, the last is measured" \
  is "[a['status'] for a in d['arms']]" "['excluded', 'excluded', 'excluded', 'active']"
check "the report says why each rung was tried" \
  is "sum('ran out of memory' in n and 'measuring' in n for n in d['placement']['notes'])" "3"
check "a placement failure per out-of-memory load, with its predicted bytes" \
  is "$(sql "SELECT count(*) FROM runs WHERE status = 'failed' AND reason LIKE 'placement failure: out of memory on Vulkan0, predicted %'")" "[(3,)]"
check "the last rung loads: ok runs on Vulkan0 at -ngl 4" \
  is "$(sql "SELECT count(*) > 0 FROM runs WHERE status = 'ok' AND p_ngl = 4 AND p_ubatch = 128")" "[(1,)]"
check "the margin correction kept is said" \
  is "any(n.startswith('margin correction for Vulkan0: vulkan: no margin correction') for n in d['placement']['notes'])" "True"

# the table report says the same
lvd bench --model "$MODEL" --tests tg128 --fa on --reps 3
check "the text report names the next rungs" grep -q "^placement: next rung: .* ran out of memory" "$tmp/out"
e2e_finish
