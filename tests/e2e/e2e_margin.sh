#!/usr/bin/env bash
# e2e_margin.sh: the estimator corrected. Vulkan0 has 1300 MiB
# free: small-llama fully resident is predicted at 1234 MiB at tg128's
# context (11.3 weights, 0.5 KV, 1222 headroom) and fits. Then the store's
# allocation rows are made to say Vulkan allocates 1.2x what was predicted:
# the margin correction (placement/correction.h: max(1, p90 of the ratios))
# is 1.2, 1234 x 1.2 = 1481 MiB no longer fits, and the next placement -- lvd
# bench's arm and lvd select's launch line -- steps to ubatch 256 (623 x 1.2 =
# 747 MiB), each saying the correction used. Not a test of the rule's
# arithmetic (test_correction).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
MODEL=$LVD_SOURCE/tests/fixtures/models/small-llama-q8_0.gguf
sql() { python3 -c "import sqlite3,sys; c=sqlite3.connect('$LVD_STORE'); print(c.execute(sys.argv[1]).fetchall()); c.commit()" "$1"; }

world margin
engine vk "device = Vulkan0|NVIDIA GeForce RTX 3060|2048|1300" "dev.Vulkan0.tg = 100"
lvd bench --model "$MODEL" --tests tg128 --reps 3 --json
check "plain: fully resident, no -ub" is "[a['params']['ubatch'] for a in d['arms']]" "[None, None]"
check "plain: too few rows for a correction, said" \
  is "[n for n in d['placement']['notes'] if 'margin' in n]" "['margin correction for Vulkan0: vulkan: no margin correction (0 allocation rows in the store, 3 needed)']"
lvd bench --model "$MODEL" --tests tg128 --reps 3 --json
check "at least three Vulkan0 rows in the store" is "$(sql "SELECT count(*) >= 3 FROM run_alloc WHERE device = 'Vulkan0' AND model IS NOT NULL")" "[(1,)]"
sql "UPDATE run_alloc SET model = CAST(1.2 * (pred_model + pred_kv + pred_compute) AS INTEGER) - kv - compute WHERE device = 'Vulkan0' AND model IS NOT NULL" > /dev/null

lvd bench --model "$MODEL" --tests tg128 --reps 3 --json
check "corrected: our arms step to ubatch 256 (llama.cpp's fit beside them)" is "[(a['params']['ubatch'], a['fit_of']) for a in d['arms']]" "[(256, None), (256, None), (None, 0), (None, 1)]"
check "the report says the correction used" \
  is "any('median 1.200' in n and 'x1.200' in n for n in d['placement']['notes'])" "True"
check "and the placement reason carries it" is "'x1.200 margin correction' in d['arms'][0]['placement']" "True"

lvd select --model "$MODEL" --explain
check "lvd select --explain says the correction" grep -q "^# placement: margin correction: vulkan: actual/predicted over .* rows median 1.200 .*x1.200" "$tmp/out"
check "and its placement kept it" grep -q "x1.200 margin correction" "$tmp/out"
e2e_finish
