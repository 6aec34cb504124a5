#!/usr/bin/env bash
# e2e_unchecked.sh: a verdict never rests on what was not measured (issue
# 13). A GPU box (an H200-like CUDA fake engine and a CPU one) benched the
# way a user trying the tools one by one does: `lvd bench`, then `lvd select
# --record` without `lvd check`. The bench warns at the end about the device
# it measured unchecked (one line, naming the lvd check command); the
# verdict records no win for the 20x slower CPU ("undecided: faster arms
# unchecked"), so `lvd select` falls through to the heuristic's CUDA line and
# --explain says why. Then `lvd bench --check` (the check first, through the
# check library): the device passes and the CUDA win is recorded as before;
# the device fails its check and the CPU wins as before. Not a test of the
# verdict's rule in detail (test_select) nor of lvd check itself (e2e_check).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
MODEL=$tmp/tiny-llama-q4_0.gguf
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$MODEL"
UNCHECKED="undecided: faster arms unchecked (run lvd check)"

world box
REGISTER_OK=0
engine cpu "noise = 0.005" "cpu.tg = 50" "cpu.pp = 400"
engine cuda "noise = 0.005" "device = CUDA0|NVIDIA H200|143155|142629|9.0" "dev.CUDA0.tg = 1000" "dev.CUDA0.pp = 60000"

# ------------------------------------------------------------ bench, no check
lvd bench --model "$MODEL" --session e2e-unchecked   # fa on and off: two arms on CUDA0
expect_rc "bench without a check" 0
check "warns at the end about the device measured unchecked, naming the command" \
  bash -c "tail -1 '$tmp/err' | grep -qF 'cuda CUDA0 (NVIDIA H200) was measured but has no correctness check for this model: no verdict rests on it until it has one (run: lvd check --model $MODEL)'"
check "one line per device (not per arm), none for the CPU" test "$(grep -c 'no correctness check' "$tmp/err")" -eq 1
check "no check was run" test "$(grep -c -- '--kl-divergence' "$W/cuda/calls.log")" -eq 0

lvd select --model "$MODEL" --record --json
expect_rc "select --record" 0
check "the verdict records no win: faster arms unchecked" is "d['recorded']['rule']" "$UNCHECKED"
check "and no engine" is "d['recorded']['engine_id']" "None"
check "its explanation names the unchecked arm and the slower CPU" \
  is "'cuda · CUDA0' in d['recorded']['explain'] and 'faster than the best checked arm, cpu on cpu' in d['recorded']['explain'] and 'dev=' not in d['recorded']['explain']" True
check "selection falls through to the heuristic" is "d['rule']" "heuristic"
check "which chooses CUDA on an H200" is "(d['engine'], d['device'])" "('cuda', 'CUDA0')"

lvd select --model "$MODEL"
expect_rc "the plain line" 0
check "is the CUDA launch line, not the CPU's" has "^$W/cuda/llama-server -m $MODEL --device CUDA0 "
lvd select --model "$MODEL" --explain
check "--explain: rule 3 decided" has "^# decided by rule: heuristic$"
check "--explain: the verdict recommends no arm, and why" \
  has "^# rule 2 \(verdict\): verdict #[0-9]+ \(undecided: faster arms unchecked \(run lvd check\), objective tg\) recommends no arm: .*cuda · CUDA0, .* on cuda has no correctness check"

# ------------------------------------------------------------ bench --check: passed
lvd bench --model "$MODEL" --fa on --check --session e2e-checked
expect_rc "bench --check, every device passes" 0
check "the check ran first, through the check library" grep -q -- "--kl-divergence -ngl 99 -dev CUDA0" "$W/cuda/calls.log"
check "its table precedes the bench's" test "$(grep -nE '^cuda +CUDA0 +cuda +pass' "$tmp/out" | cut -d: -f1)" -lt "$(grep -n '^tg128' "$tmp/out" | head -1 | cut -d: -f1)"
check "no unchecked warning" test "$(grep -c 'no correctness check' "$tmp/err")" -eq 0
lvd select --model "$MODEL" --record --json
check "the CUDA win is recorded as before" is "(d['recorded']['rule'], d['engine'], d['rule'])" "('win', 'cuda', 'verdict')"

# ------------------------------------------------------------ bench --check: failed
printf '%s\n' "dev.CUDA0.kld = 0.4" "dev.CUDA0.ppl_ratio = 1.3" >> "$W/cuda/fake-scenario"
lvd bench --model "$MODEL" --fa on --check --session e2e-failed --json
expect_rc "bench --check, the device fails its check: partial" 5
check "--json carries the check" is "[c['status'] for c in d['check']['checks'] if c['engine']=='cuda']" "['fail']"
check "a failed check is no missing one: no unchecked warning" test "$(grep -c 'no correctness check' "$tmp/err")" -eq 0
lvd select --model "$MODEL" --record --json
check "the CPU wins as before" is "(d['recorded']['rule'], d['engine'])" "('only-arm', 'cpu')"
check "the failed check is named" is "'check fail on CUDA0' in d['recorded']['explain']" True

lvd bench --help
check "--help documents --check" has "^  --check "

e2e_finish
