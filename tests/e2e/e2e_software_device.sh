#!/usr/bin/env bash
# e2e_software_device.sh: a box whose only device is a software rasterizer
#. The fake Vulkan engine replays the real capture
# tests/fixtures/llama.cpp/vulkan-lavapipe-b9749/list-devices.stdout (the
# b9749 Vulkan build with GGML_VK_VISIBLE_DEVICES=0 listing Mesa's llvmpipe)
# byte for byte. Rules 3 and 4 never offload to it: with a CPU engine the
# heuristic picks the CPU engine; without one, rule 4 runs the Vulkan engine
# on the CPU (-ngl 0, no --device); --explain and --json call the device
# "vulkan (software)". A recorded verdict where llvmpipe measured faster
# (rule 2) still picks it, labelled so. Needs LVD_BIN, LVD_SOURCE,
# LVD_FAKE_ENGINE (set by ctest).
set -uo pipefail
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_SOURCE LVD_FAKE_ENGINE
unset LVD_HOST

MODEL="$tmp/tiny-llama-q4_0.gguf"
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$MODEL"
CAPTURE=$LVD_SOURCE/tests/fixtures/llama.cpp/vulkan-lavapipe-b9749/list-devices.stdout
# "  Vulkan0: llvmpipe (LLVM 15.0.6, 256 bits) (2048 MiB, 2048 MiB free)" -> the fake's device line
DEV=$(sed -nE 's/^  (Vulkan[0-9]+): (.*) \(([0-9]+) MiB, ([0-9]+) MiB free\)$/\1|\2|\3|\4/p' "$CAPTURE")
[ "$DEV" = "Vulkan0|llvmpipe (LLVM 15.0.6, 256 bits)|2048|2048" ] || fail "the capture's device: '$DEV'"

# vk LINES...: the llvmpipe Vulkan engine, registered as vk
vk() { engine vk "noise = 0.005" "device = $DEV" "$@"; }

# --- a CPU engine and the llvmpipe Vulkan engine: the heuristic picks the CPU ----
world withcpu
engine cpu "noise = 0.005"
vk
check "the fake replays the real capture" cmp -s <("$W/vk/llama-bench" --list-devices 2>/dev/null) "$CAPTURE"
lvd probe
check "lvd probe marks llvmpipe as no accelerator" \
  has "Vulkan0: llvmpipe \(LLVM 15\.0\.6, 256 bits\) \(2048 MiB, 2048 MiB free\) -- software rasterizer on the CPU, no accelerator$"
lvd probe --json
check "lvd probe --json: software true for llvmpipe only" \
  is "sorted((e['engine'], [x['software'] for x in e['devices']]) for e in d['probes'])" "[('cpu', []), ('vk', [True])]"
lvd select --model "$MODEL" --explain
expect_rc "select, llvmpipe and a CPU engine" 0
check "a CPU line from the CPU engine" has "^$W/cpu/llama-server -m $MODEL -c [0-9]+$"
check "no GPU flags" bash -c "! head -1 '$tmp/out' | grep -qE -- '--device|-ngl'"
check "rule 3 decided" has "^# decided by rule: heuristic$"
check "--explain names the device vulkan (software)" \
  has "^# rule 3 \(heuristic\): decided: no engine lists an accelerator \(a software rasterizer, not an accelerator: Vulkan0: llvmpipe \(LLVM 15\.0\.6, 256 bits\) of vk \(engine [0-9]+\) is vulkan \(software\)\): cpu \(engine [0-9]+\), a CPU engine$"
lvd select --model "$MODEL" --json
check "--json: the CPU engine, no device" is "(d['rule'], d['engine'], d['backend'], d['device'])" "('heuristic', 'cpu', 'cpu', None)"
check "--json explains the software device" is "any('vulkan (software)' in e for e in d['explain'])" "True"

# --- only the llvmpipe Vulkan engine: rule 4 runs it on the CPU -------------------
world vkonly
vk
lvd probe >/dev/null
lvd select --model "$MODEL" --explain
expect_rc "select, only llvmpipe" 0
check "the Vulkan engine with -ngl 0 and no --device" has "^$W/vk/llama-server -m $MODEL -ngl 0 -c [0-9]+$"
check "rule 4 decided, on the CPU" has "^# decided by rule: cpu-engine$"
check "--explain says which and why" \
  has "^# rule 4 \(first engine\): decided: vk on the CPU \(-ngl 0, no --device\): its only devices are software rasterizers \(Vulkan0: llvmpipe \(LLVM 15\.0\.6, 256 bits\), vulkan \(software\)\), no accelerator, and no CPU engine is registered$"
lvd select --model "$MODEL" --json
check "--json: the CPU, no device" is "(d['rule'], d['engine'], d['backend'], d['device'], d['placement'])" \
  "('cpu-engine', 'vk', 'cpu', None, None)"

# --- llvmpipe measured faster than the CPU: the verdict (rule 2) still picks it ----
world fast
engine cpu "noise = 0.005" "cpu.tg = 50" "cpu.pp = 400"
vk "dev.Vulkan0.tg = 500" "dev.Vulkan0.pp = 3000"
lvd probe >/dev/null
"$LVD_BIN/lvd-check" --model "$MODEL" >/dev/null || fail "fast: check"
"$LVD_BIN/lvd-bench" --model "$MODEL" --fa on --reps 5 --budget 120s --session night-1 >/dev/null || fail "fast: bench"
lvd select --model "$MODEL" --record --explain
expect_rc "select --record, llvmpipe faster" 0
check "the verdict offloads to llvmpipe" has "^$W/vk/llama-server -m $MODEL --device Vulkan0 -ngl [0-9]+ -fa on -c [0-9]+$"
check "rule 2 decided" has "^# decided by rule: verdict$"
check "and says it is a software device" \
  has "^# device: Vulkan0 \(llvmpipe \(LLVM 15\.0\.6, 256 bits\)\) is vulkan \(software\): a software rasterizer on the host's CPU cores, not an accelerator; used because the verdict measured it fastest$"
lvd select --model "$MODEL" --json
check "--json labels it vulkan (software)" is "(d['rule'], d['backend'], d['device'])" "('verdict', 'vulkan (software)', 'Vulkan0')"

e2e_finish
