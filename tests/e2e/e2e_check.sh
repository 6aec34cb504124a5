#!/usr/bin/env bash
# e2e_check.sh: `lvd check` end to end against engine directories holding
# copies of tests/fake-engine: a CPU-only build as the reference, a correct
# CUDA device, a Vulkan device with wrong results (KLD and PPL ratio off), a
# build that ignores -ngl, a device whose llama-perplexity crashes. Checks
# statuses and reasons (table and JSON), the records in the store, the
# tolerance options, the shipped text, a failing reference, usage errors, and
# --import of the real H200 perplexity captures.
# Not a test of the pass/fail arithmetic (test_check) or the parser
# (test_pplout).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_FIXTURES LVD_SOURCE
MODEL=$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf

# status ENGINE DEVICE: the check's status in the JSON in $tmp/out
status() { q "[c['status'] for c in d['checks'] if c['engine']=='$1' and (c['device'] or '')=='$2'][0]"; }
is_status() { [ "$(status "$1" "$2")" = "$3" ] || { echo "  $1 $2: $(status "$1" "$2"), want $3"; return 1; }; }

# ------------------------------------------------------------ a mixed box
world box
engine cpu "ppl = 32813.2123"
engine cuda "device = CUDA0|NVIDIA H200|143155|142629|9.0" "dev.CUDA0.kld = 0.0002" "dev.CUDA0.ppl_ratio = 1.0006"
engine vulkan "device = Vulkan0|NVIDIA H200|143771|143139" "dev.Vulkan0.kld = 0.42" "dev.Vulkan0.ppl_ratio = 1.31" "dev.Vulkan0.same_top_p = 64"
engine nodriver "device = Vulkan0|NVIDIA H200|143771|143139" "ignore_ngl = 1"
engine crashing "device = CUDA0|NVIDIA H200|143155|142629|9.0" "ppl.fault = crash"
lvd check --model "$MODEL" --json
expect_rc "a device failed: partial" 5
check "the CPU engine is the reference (base)" is_status cpu "" base
check "the correct CUDA device passes" is_status cuda CUDA0 pass
check "its PPL ratio is recorded" is "abs([c['ppl_ratio'] for c in d['checks'] if c['engine']=='cuda'][0] - 1.0006) < 1e-4" True
check "the device with wrong results fails" is_status vulkan Vulkan0 fail
check "with the bounds it broke" is "[c['reason'] for c in d['checks'] if c['engine']=='vulkan'][0]" "mean KLD 0.42 > 0.01; PPL ratio 1.31 outside 1 +- 0.01"
check "a build that ignores -ngl fails" is_status nodriver Vulkan0 fail
check "saying why" is "'GPU flags ignored' in [c['reason'] for c in d['checks'] if c['engine']=='nodriver'][0]" True
check "a crashing llama-perplexity is an error" is_status crashing CUDA0 error
check "the shipped text was used" is "d['text'].endswith('/share/perplexity-input.txt')" True
check "the CPU logits were written, then compared" grep -q -- "--kl-divergence-base .* --kl-divergence -ngl 99 -dev CUDA0" "$W/cuda/calls.log"
# every reference run, not just one of them (grep -v passes when any line lacks -ngl)
check "the reference ran" test "$(grep -c -- '--kl-divergence-base' "$W/cpu/calls.log")" -ge 1
check "the reference ran without GPU flags" test "$(grep -- '--kl-divergence-base' "$W/cpu/calls.log" | grep -c -- '-ngl\|-dev ')" -eq 0
"$LVD_BIN/lvd" store info > "$tmp/out"
check "every check is in the store" has "^checks +5$"
lvd check --model "$MODEL"
check "the table shows the failure" has "^vulkan +Vulkan0 +vulkan +fail .*mean KLD 0.42 > 0.01"
check "and the tolerances" has "^pass: mean KLD <= 0.01 and \|PPL ratio - 1\| <= 0.01"

# looser tolerances let the wrong device through; a same-top-p floor stops it again
lvd check --model "$MODEL" --engines cpu,vulkan --kld-max 0.5 --ppl-tol 0.4 --json
expect_rc "loose tolerances" 0
check "the wrong device passes them" is_status vulkan Vulkan0 pass
lvd check --model "$MODEL" --engines cpu,vulkan --kld-max 0.5 --ppl-tol 0.4 --top-p-min 90 --json
expect_rc "a same-top-p floor" 5
check "stops it" is "[c['reason'] for c in d['checks'] if c['engine']=='vulkan'][0]" "same top p 64.000 % < 90.000 %"

# --text overrides the shipped text
cp "$LVD_FIXTURES/llama.cpp/cpu-build-b9749/perplexity-input.txt" "$tmp/other.txt"
lvd check --model "$MODEL" --engines cpu,cuda --text "$tmp/other.txt" --json
expect_rc "--text" 0
check "the given text is scored" grep -q -- "-f $tmp/other.txt" "$W/cuda/calls.log"

# ------------------------------------------------------------ the reference fails
world noref
engine cpu "ppl.fault = exit1"
engine cuda "device = CUDA0|NVIDIA H200|143155|142629|9.0"
lvd check --model "$MODEL" --json
expect_rc "the reference fails" 1
check "the reference is an error" is_status cpu "" error
check "the device is not checked" is "[c['reason'].startswith('not checked: the CPU reference failed') for c in d['checks'] if c['engine']=='cuda']" "[True]"

# ------------------------------------------------------------ usage
lvd check
expect_rc "no --model" 2
lvd check --model "$MODEL" --kld-max -1
expect_rc "negative --kld-max" 2
expect_exit 2 "--host wants a name" "$LVD_BIN/lvd" check --host ""
expect_exit 2 "--host needs --import" "$LVD_BIN/lvd" check --model "$MODEL" --host h200
lvd check --model "$MODEL" --text "$tmp/nope.txt"
expect_rc "unreadable --text" 3
lvd check --model "$tmp/nope.gguf"
expect_rc "unreadable model" 3
lvd check --help
expect_rc "--help" 0
check "--help has an example" has "^examples:"
check "--help shows --import" has "lvd check --import --artifact"

# ------------------------------------------------------------ --import: captured output
F=$LVD_FIXTURES/llama.cpp/gpu-h200
SHA=973978067daa0$(printf 'd%.0s' $(seq 51))
world imported
"$LVD_BIN/lvd" store import "$F/bench-cuda-dense-ngl99.jsonl" --engine-dir /opt/llama.cpp/cuda --engine cuda \
  --build b9749 --artifact "$SHA" --host h200 > /dev/null
"$LVD_BIN/lvd" store import "$F/bench-cpu-dense.jsonl" --engine-dir /opt/llama.cpp/cpu --engine cpu \
  --build b9749 --artifact "$SHA" --host h200 > /dev/null
lvd check --import --artifact "$SHA" --engine cpu --host h200 --output "$F/ppl-cpu.out" --log "$F/ppl-cpu.err"
expect_rc "--import of the reference" 0
check "recorded as base" has "^cpu +- +cpu +base "
lvd check --import --artifact "$SHA" --engine cuda --host h200 --output "$F/ppl-cuda.out" --log "$F/ppl-cuda.err" \
  --base-output "$F/ppl-cpu.out" --base-log "$F/ppl-cpu.err" --json
expect_rc "--import of a correct device" 0
check "it passes on its PPL ratio, under its default device" is_status cuda auto pass
check "KLD not measured, and said so" is "[(c['mean_kld'], 'KLD not measured' in c['reason']) for c in d['checks']][0]" "(None, True)"
lvd check --import --artifact "$SHA" --engine cuda --host h200 --output "$F/vulkan-build-no-driver/ppl.out" \
  --log "$F/vulkan-build-no-driver/ppl.err" --base-output "$F/ppl-cpu.out" --base-log "$F/ppl-cpu.err"
expect_rc "--import of a run that ignored -ngl" 5
check "it fails" has "^cuda +auto +unknown +fail .*GPU flags ignored"
lvd check --import --artifact "$SHA" --engine cuda --model "$MODEL" --output "$F/ppl-cuda.out"
expect_rc "--import with --model" 2
lvd check --engine cuda --model "$MODEL"
expect_rc "--engine without --import" 2
lvd check --import --artifact "$SHA" --engine cuda --host h200 --output "$tmp/nope.out" --base-output "$F/ppl-cpu.out"
expect_rc "unreadable capture" 3

e2e_finish
