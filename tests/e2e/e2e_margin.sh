#!/usr/bin/env bash
# e2e_margin.sh: the estimator corrected. Vulkan0 has 700 MiB
# free; lvd bench and lvd select place small-llama for a 32768-token context
# (--ctx), where its compute buffer without flash attention (predicted from
# its shape: 578.5 MiB at ubatch 512, 289.3 at 256, mostly block 0's kq of
# 32768 x 512 x 8 heads x 4 bytes) is above the 512 MiB reserve. Fully
# resident is predicted at 653.8 MiB (11.3 weights, 64 KV, 578.5 compute)
# and fits. Then the store's allocation rows are made to say Vulkan
# allocates 1.2x what was predicted: the margin correction (placement/
# correction.h: the p90 of the ratios, per backend and build) is 1.2, (11.3 +
# 64 + 578.5) x 1.2 = 784.6 MiB no longer fits, and the next placement --
# lvd bench's arm and lvd select's launch line -- steps to ubatch 256
# ((11.3 + 64) x 1.2 + max(512, 289.3 x 1.2) = 602.4 MiB), each saying the
# correction used and which way it moved. Then down: on a Vulkan0 with 600
# MiB free the plain prediction (653.8) steps to ubatch 256; rows saying
# Vulkan allocates 0.8x what was predicted bring the correction down to 0.8
# and ((11.3 + 64) x 0.8 + max(512, 578.5 x 0.8) = 572.2 MiB) place it fully
# resident again. Not a test of the rule's arithmetic (test_correction).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
MODEL=$LVD_SOURCE/tests/fixtures/models/small-llama-q8_0.gguf
sql() { python3 -c "import sqlite3,sys; c=sqlite3.connect('$LVD_STORE'); print(c.execute(sys.argv[1]).fetchall()); c.commit()" "$1"; }

world margin
engine vk "device = Vulkan0|NVIDIA GeForce RTX 3060|2048|700" "dev.Vulkan0.tg = 100"
lvd bench --model "$MODEL" --tests tg128 --reps 3 --ctx 32768 --json
check "plain: fully resident, no -ub" is "[a['params']['ubatch'] for a in d['arms']]" "[None, None]"
check "plain: too few rows for a correction, said" \
  is "[n for n in d['placement']['notes'] if 'margin' in n]" "['margin correction for Vulkan0: vulkan b9749: no margin correction (0 allocation rows in the store, 3 needed)']"
lvd bench --model "$MODEL" --tests tg128 --reps 3 --ctx 32768 --json
check "at least three Vulkan0 rows in the store" is "$(sql "SELECT count(*) >= 3 FROM run_alloc WHERE device = 'Vulkan0' AND model IS NOT NULL")" "[(1,)]"
sql "UPDATE run_alloc SET model = CAST(1.2 * (pred_model + pred_kv + pred_compute) AS INTEGER) - kv - compute WHERE device = 'Vulkan0' AND model IS NOT NULL" > /dev/null

lvd bench --model "$MODEL" --tests tg128 --reps 3 --ctx 32768 --json
check "corrected: our arms step to ubatch 256 (llama.cpp's fit beside them)" is "[(a['params']['ubatch'], a['fit_of']) for a in d['arms']]" "[(256, None), (256, None), (None, 0), (None, 1)]"
check "the report says the correction used" \
  is "any('median 1.200' in n and 'x1.200, up' in n for n in d['placement']['notes'])" "True"
check "and the placement reason carries it" is "'x1.200 margin correction' in d['arms'][0]['placement']" "True"

lvd select --model "$MODEL" --ctx 32768 --explain
check "lvd select --explain says the correction, and that it went up" grep -q "^# placement: margin correction: vulkan b9749: actual/predicted over .* rows median 1.200 .*x1.200, up" "$tmp/out"
check "and the compute buffer it predicted" grep -q "compute buffer 289 MiB, predicted from the llama graph at ubatch 256, context 32768, flash attention off" "$tmp/out"
check "and its placement kept it" grep -q "x1.200 margin correction" "$tmp/out"

world margin-down
engine vk "device = Vulkan0|NVIDIA GeForce RTX 3060|2048|600" "dev.Vulkan0.tg = 100"
lvd bench --model "$MODEL" --tests tg128 --reps 3 --ctx 32768 --json
lvd bench --model "$MODEL" --tests tg128 --reps 3 --ctx 32768 --json
check "down, plain: 653.8 MiB does not fit in 600, our arms step to ubatch 256" \
  is "[a['params']['ubatch'] for a in d['arms'] if a['fit_of'] is None]" "[256, 256]"
sql "UPDATE run_alloc SET compute = CAST(0.8 * (pred_model + pred_kv + pred_compute) AS INTEGER) - kv - model WHERE device = 'Vulkan0' AND model IS NOT NULL" > /dev/null
lvd select --model "$MODEL" --ctx 32768 --explain
check "lvd select --explain says it went down" grep -q "^# placement: margin correction: vulkan b9749: actual/predicted over .* rows median 0.800 .*x0.800, down" "$tmp/out"
check "and launches it fully resident" bash -c "head -1 '$tmp/out' | grep -q -- '-ngl 5 -c 32768\$'"
lvd bench --model "$MODEL" --tests tg128 --reps 3 --ctx 32768 --json
check "down, corrected: fully resident again" \
  is "[a['params']['ubatch'] for a in d['arms'] if a['fit_of'] is None]" "[None, None]"
check "the report says the correction went down" \
  is "any('median 0.800' in n and 'x0.800, down' in n for n in d['placement']['notes'])" "True"
e2e_finish
