#!/usr/bin/env bash
# e2e_fitarm.sh: llama.cpp's own fit as a rival arm, on the fake
# engine, which plays llama.cpp's fit (tests/fake-engine/fake_fit.c) for
# llama-bench -fitt and as llama-fit-params. The model is a 468 MiB MoE
# whose data is a hole (tests/fixtures/models/make-sparse-moe.py): 4 blocks
# of 96 MiB of experts and 5 of the rest, 32 MiB of token embeddings (on the
# host) and 32 of output head. CUDA0 has 900 MiB free:
#   ours: fully resident needs 964 MiB (436 weights, 16 KV at the 4096
#     context it serves, the 512 MiB reserve over a predicted 34 MiB compute
#     buffer), so a smaller ubatch saves nothing; the experts of the first
#     block on the host need 868: every layer on the device, -ncmoe 1;
#   llama.cpp's fit (margin 1024 MiB) has nothing left for the model
#     (900 - 1024 < 0): -ngl 0, every block on the host.
# With offload_tg = 3 (a run's tg is divided by 1 + 3 x the share of the
# model left on the host) ours keeps 27 % on the host, llama.cpp's fit all
# of it: ours is faster by about 2.2x, and the report says so with its CI. Then a
# world where the scenario makes the fit arm faster: the verdict's launch line
# is the fit arm's (--fit on -fitt 1024, no -ngl). And an engine without
# llama-fit-params: the arm runs, its plan is said not to be printed; one
# whose llama-bench predates -fitt gets no rival arm.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
unset LVD_HOST
MODEL=$tmp/sparse-moe.gguf
python3 "$LVD_SOURCE/tests/fixtures/models/make-sparse-moe.py" "$MODEL"
sql() { python3 -c "import sqlite3,sys; print(sqlite3.connect('$LVD_STORE').execute(sys.argv[1]).fetchall())" "$1"; }
DEV="device = CUDA0|NVIDIA GeForce RTX 3060|12288|900|8.6"

world fit
engine cuda "$DEV" "noise = 0.01" "dev.CUDA0.tg = 100" "offload_tg = 3"
cp "$LVD_FAKE_ENGINE" "$W/cuda/llama-fit-params"
lvd bench --model "$MODEL" --tests tg128 --depth 0 --fa on --json
expect_rc "decided" 0
check "ours: every layer, the first block's experts on the host" \
  is "(d['arms'][0]['params']['ngl'], d['arms'][0]['params']['n_cpu_moe'], d['arms'][0]['params']['ubatch'])" "(5, 1, None)"
check "the rival: llama.cpp's fit, beside arm 0" is "(d['arms'][1]['params']['ngl'], d['arms'][1]['fit_of'])" "(None, 0)"
check "the rival's label names it" is "'llama.cpp-fit=1024' in d['arms'][1]['label']" "True"
check "llama.cpp's plan beside ours in the report" \
  is "[n for n in d['placement']['notes'] if n.startswith('llama.cpp fit')]" \
  "['llama.cpp fit for cuda CUDA0 (900 MiB free): -c 128 -ngl 0; ours: ngl=5 fa=on ncmoe=1']"
check "and in the store" is "$(sql "SELECT device, free_mib, ctx, ngl, host_blocks, ours FROM fit_plans")" \
  "[('CUDA0', 900, 128, 0, 0, 'ngl=5 fa=on ncmoe=1')]"
check "llama-bench ran the rival with -fitt 1024 and no -ngl" \
  grep -qE "llama-bench .*-dev CUDA0 -fa 1 -fitt 1024( |$)" "$W/cuda/calls.log"
check "its runs are recorded with -fitt" is "$(sql "SELECT count(*) > 0 FROM runs WHERE p_fit_target = 1024 AND status = 'ok'")" "[(1,)]"
check "ours is faster than llama.cpp's fit, by about 2.2x, with its CI" \
  is "[(x['faster'], round(x['ratio'], 1), x['ci_lo'] > 1.8) for x in d['placement']['fit_vs_ours']]" "[('ours', 2.2, True)]"
check "never an out-of-memory load" is "$(sql "SELECT count(*) FROM runs WHERE reason LIKE 'placement failure%'")" "[(0,)]"
lvd bench --model "$MODEL" --tests tg128 --depth 0 --fa on
check "the text report says which placement is faster" \
  grep -qE "^placement vs llama.cpp fit, tg128: ours .* = 2\.[0-9]+ \(CI [12]\.[0-9]+-2\.[0-9]+\): faster: ours$" "$tmp/out"

lvd evidence --out "$tmp/page.md"
check "the evidence page shows llama.cpp's plan beside ours" \
  grep -qF "| 1 | CUDA0 | 900 | 1024 | 128 | 0 | 0 | ngl=5 fa=on ncmoe=1 |" "$tmp/page.md"

# a build before llama.cpp's fit (no -fitt in llama-bench --help): our arm alone
world old
engine cuda "$DEV" "noise = 0.01" "dev.CUDA0.tg = 100" "fit = 0"
lvd bench --model "$MODEL" --tests tg128 --depth 0 --fa on --json
check "no -fitt: no rival arm" is "[a['fit_of'] for a in d['arms']]" "[None]"
check "and no llama-bench call with -fitt" bash -c "! grep -q -- -fitt '$W/cuda/calls.log'"

# llama.cpp's fit faster: the verdict's launch line is the fit arm's
world fitwins
engine cuda "$DEV" "noise = 0.01" "dev.CUDA0.tg = 100" "dev.CUDA0.tg.fitt=1024 = 3"
"$LVD_BIN/lvd-check" --model "$MODEL" > /dev/null || fail "lvd check"
lvd bench --model "$MODEL" --tests tg128 --depth 0 --fa on --json
check "no llama-fit-params: the plan is said not to be printed" \
  is "any('no llama-fit-params' in n for n in d['placement']['notes'])" "True"
check "the fit arm wins" is "[x['faster'] for x in d['placement']['fit_vs_ours']]" "['llama.cpp fit']"
lvd select --model "$MODEL" --record
check "the launch line is the measured fit arm's: --fit on -fitt 1024, no -ngl" \
  grep -qE "^$W/cuda/llama-server -m [^ ]* --device CUDA0 --fit on -fitt 1024 -fa on -c [0-9]+$" "$tmp/out"
e2e_finish
