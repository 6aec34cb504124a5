#!/usr/bin/env bash
# e2e_multigpu.sh: several GPUs, end to end on the fake engine. A
# fake two-GPU box (CUDA0 + CUDA1, 521 MiB free each: the model fits both
# but not one) gets split arms over -sm layer, row and tensor with -dev
# CUDA0/CUDA1 and -ts by free memory, every layer offloaded, while each
# single card's partial rung is skipped; the runs record split_mode,
# tensor_split and one allocation row per device; a build whose llama-bench
# does not list tensor gets no tensor arm; one card seen by CUDA and Vulkan
# is one device (no split arm); and lvd select's launch line carries -sm, -ts
# and --device A,B. Reads the store with python3's sqlite3. Not a test of the
# spread arithmetic (test_placement) or of the card rule's cases (test_devices).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
MODEL=$LVD_SOURCE/tests/fixtures/models/small-llama-q8_0.gguf

sql() { python3 -c "import sqlite3,sys; print(sqlite3.connect('$LVD_STORE').execute(sys.argv[1]).fetchall())" "$1"; }

world two
engine two "device = CUDA0|NVIDIA H200|143155|521" "device = CUDA1|NVIDIA H200|143155|521" \
  "dev.CUDA0.tg = 100" "dev.CUDA0.tg.sm=row = 1.2" "noise = 0"
# -c 128: the cards (521 MiB free) are sized for the test's own context, not a served 4096 (bench/depth.h)
lvd bench --model "$MODEL" --tests tg128 -c 128 -fa on --reps 3 --max-samples 6 --json
check "the bench ran (exit 0 or 5)" test "$rc" -eq 0 -o "$rc" -eq 5
check "three split arms: layer, row, tensor over CUDA0/CUDA1" is \
  "sorted(a['arm_key'].split()[1] for a in d['arms'] if 'CUDA0/CUDA1' in a['arm_key'])" \
  "['sm=layer', 'sm=row', 'sm=tensor']"
check "-ts by free memory: 0.50/0.50" grep -q -- "-dev CUDA0/CUDA1 -sm row -ts 0.50/0.50 -ngl 99" "$W/two/calls.log"
check "each single card's partial rung is skipped for the split" is \
  "sorted(s['device'] for s in d['skipped'] if 'split across CUDA0/CUDA1' in s['reason'])" "['CUDA0', 'CUDA1']"
check "no single-card run" is "$(sql "SELECT count(*) FROM runs WHERE p_device IN ('CUDA0', 'CUDA1') AND status = 'ok'")" "[(0,)]"
check "runs record the split" is "$(sql "SELECT DISTINCT p_device, p_split_mode, p_tensor_split FROM runs WHERE p_split_mode = 'row'")" \
  "[('CUDA0/CUDA1', 'row', '0.50/0.50')]"
check "llama-bench reported it back" is "$(sql "SELECT count(*) FROM results r JOIN reported_heads h ON h.id = r.reported_head WHERE h.head LIKE '%\"split_mode\":\"tensor\"%' AND h.head LIKE '%\"tensor_split\":\"0.50/0.50\"%' AND h.head LIKE '%\"devices\":\"CUDA0/CUDA1\"%'")" "[(1,)]"
check "one allocation row per device, predicted and actual" is \
  "$(sql "SELECT a.device, a.model > 0, a.pred_model > 0 FROM run_alloc a JOIN runs r ON r.id = a.run_id WHERE r.p_split_mode = 'layer' AND a.device != 'CPU' ORDER BY a.device")" \
  "[('CUDA0', 1, 1), ('CUDA1', 1, 1)]"
lvd check --model "$MODEL"
lvd select --model "$MODEL" --record
check "the split row arm wins the verdict (a split is checked when each device is)" grep -qE "recorded verdict #1 \(win.*CUDA0/CUDA1, sm row" "$tmp/out" "$tmp/err"
lvd select --model "$MODEL" --json
check "the verdict's launch line splits: --device CUDA0,CUDA1 -sm row -ts 0.50,0.50" has \
  "\"--device\",\\s*\"CUDA0,CUDA1\",\\s*\"-sm\",\\s*\"row\",\\s*\"-ts\",\\s*\"0.50,0.50\""
lvd evidence --out "$tmp/page.md"
check "the evidence page labels the split arms, checked through their devices" \
  grep -q "CUDA0/CUDA1, sm row, ts 0.50/0.50, ngl 99, fa 1 | two (b9749) .* | pass (PPL" "$tmp/page.md"

world old
engine old "device = CUDA0|NVIDIA H200|143155|521" "device = CUDA1|NVIDIA H200|143155|521" \
  "split_modes = none,layer,row"
lvd bench --model "$MODEL" --tests tg128 -c 128 -fa on --reps 3 --max-samples 3 --json
check "a build that lists no tensor mode: layer and row only" is \
  "sorted(a['arm_key'].split()[1] for a in d['arms'] if 'CUDA0/CUDA1' in a['arm_key'])" "['sm=layer', 'sm=row']"
lvd bench --model "$MODEL" --tests tg128 -c 128 -fa on -sm tensor --reps 3 --max-samples 3 --json
check "-sm tensor asked of it: skipped with the reason" is \
  "[s['reason'][:30] for s in d['skipped'] if s['device'] == 'CUDA0/CUDA1']" "['-sm tensor: this llama-bench d']"
capture "$W/old/llama-bench" -m "$MODEL" -sm tensor -dev CUDA0/CUDA1
check "its llama-bench rejects -sm tensor as llama.cpp does" has_err "invalid parameter for argument: -sm"

world onecard
engine one "device = CUDA0|NVIDIA H200|143155|142629" "device = Vulkan0|NVIDIA H200|143771|143139"
lvd bench --model "$MODEL" --tests tg128 -c 128 -fa on --reps 3 --max-samples 3 --json
check "one card seen by CUDA and Vulkan: no split arm" is "[a['arm_key'] for a in d['arms'] if '/' in a['arm_key'].split()[0]]" "[]"
check "but an arm on each backend" is "sorted(a['arm_key'].split()[0] for a in d['arms'])" "['dev=CUDA0', 'dev=Vulkan0']"
lvd probe --all --json
check "lvd probe says Vulkan0 is the same card as CUDA0" is \
  "[x['same_card_as'] for e in d['probes'] for x in e['devices']]" "[None, 'CUDA0']"
lvd probe --all
check "and its table says so" has "Vulkan0: NVIDIA H200 .* -- the same card as CUDA0 \(one device, two backends\)"
e2e_finish
