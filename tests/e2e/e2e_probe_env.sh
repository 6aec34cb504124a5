#!/usr/bin/env bash
# e2e_probe_env.sh: what a probe saw depends on its environment. A fake Vulkan
# engine that lists its device only while GGML_VK_VISIBLE_DEVICES is set
# (devices_need_env, as the real b9749 Vulkan build hides lavapipe): a probe
# without the variable, then with it, is a fresh probe listing Vulkan0 (never
# the first's cached "cpu"); back without, the first's cache answers; the
# probe shows its environment (table and --json); select honours a profile
# naming Vulkan0 only under the variable, and its launch line carries
# GGML_VK_VISIBLE_DEVICES=0; check and bench arms record it; a verdict
# measured under it is served at a service start without it, with the
# variable in the line, and that line run by `sh -c` from an environment
# without the variable finds the device. Not a test of the variable table
# (test_visibility).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE

unset CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES GPU_DEVICE_ORDINAL \
  GGML_VK_VISIBLE_DEVICES VK_DRIVER_FILES VK_ICD_FILENAMES ONEAPI_DEVICE_SELECTOR ZE_AFFINITY_MASK \
  ZES_ENABLE_SYSMAN
world env
MODEL=$tmp/tiny-llama-q4_0.gguf
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$MODEL"
calls() { cat "$W"/vk/calls.log 2>/dev/null | grep -c -- '--list-devices'; }
VK="GGML_VK_VISIBLE_DEVICES=0"

engine cpu "noise = 0.005" "cpu.tg = 50" "cpu.pp = 400"
engine vk "noise = 0.005" "devices_need_env = GGML_VK_VISIBLE_DEVICES" \
  "device = Vulkan0|llvmpipe (LLVM 15.0.6, 256 bits)|2048|2048" "dev.Vulkan0.tg = 500" "dev.Vulkan0.pp = 3000"

# ------------------------------------------------------------ the probe cache is keyed by the environment
lvd probe --engine vk --json
expect_rc "probe without the variable" 0
check "the registration's probe answers: cached cpu" is "(d['probes'][0]['backend'], d['probes'][0]['cached'])" "('cpu', True)"
check "its environment: nothing set" is "d['probes'][0]['env']" "{}"
n0=$(calls)

env "$VK" "$LVD_BIN/lvd" probe --engine vk --json > "$tmp/out"
check "with the variable: a fresh probe, not the cached cpu" is "(d['probes'][0]['backend'], d['probes'][0]['cached'])" "('vulkan', False)"
check "listing Vulkan0" is "[x['selector'] for x in d['probes'][0]['devices']]" "['Vulkan0']"
check "made under GGML_VK_VISIBLE_DEVICES=0" is "d['probes'][0]['env']" "{'GGML_VK_VISIBLE_DEVICES': '0'}"
check "the engine was asked again" test "$(calls)" -eq $((n0 + 1))

env "$VK" "$LVD_BIN/lvd" probe --engine vk > "$tmp/out"
check "again with it: served from its own cache" has "^vk +vulkan +cached +Vulkan0: llvmpipe"
check "the table says the environment" has "^environment: GGML_VK_VISIBLE_DEVICES=0$"
env GGML_VK_VISIBLE_DEVICES=1 "$LVD_BIN/lvd" probe --engine vk --json > "$tmp/out"
check "another value is another probe" is "d['probes'][0]['cached']" "False"
env GGML_VK_VISIBLE_DEVICES= "$LVD_BIN/lvd" probe --engine vk --json > "$tmp/out"
check "set but empty is not unset: another probe" is "(d['probes'][0]['cached'], d['probes'][0]['env'])" \
  "(False, {'GGML_VK_VISIBLE_DEVICES': ''})"
n1=$(calls)
lvd probe --engine vk
check "back without: the first probe's cache answers" has "^vk +cpu +cached +\(none\)"
check "no variable set, says the table" has "^environment: no device-visibility variable set$"
check "and nothing was run" test "$(calls)" -eq "$n1"

# ------------------------------------------------------------ select: the probe of the environment in force
printf 'engine = vk\ndevice = Vulkan0\n' > "$tmp/vk.profile"
lvd select --model "$MODEL" --profile "$tmp/vk.profile"
expect_rc "without the variable a profile naming Vulkan0 is refused" 3
capture env "$VK" "$LVD_BIN/lvd" select --model "$MODEL" --profile "$tmp/vk.profile"
expect_rc "with it the profile is honoured" 0
check "and the launch line carries the variable" has "^GGML_VK_VISIBLE_DEVICES=0 $W/vk/llama-server -m $MODEL --device Vulkan0 "
capture env "$VK" "$LVD_BIN/lvd" select --model "$MODEL" --profile "$tmp/vk.profile" --json
check "--json: env is its own array" is "(d['env'], d['argv'][0])" "(['GGML_VK_VISIBLE_DEVICES=0'], '$W/vk/llama-server')"

# ------------------------------------------------------------ check and bench carry and record it
capture env "$VK" "$LVD_BIN/lvd" check --model "$MODEL" --json
expect_rc "check under the variable" 0
check "the Vulkan0 check records its environment" \
  is "[c['env'] for c in d['checks'] if c['device'] == 'Vulkan0']" "[{'GGML_VK_VISIBLE_DEVICES': '0'}]"
check "the CPU reference carries none" is "[c['env'] for c in d['checks'] if c['reference']]" "[{}]"
capture env "$VK" "$LVD_BIN/lvd" bench --model "$MODEL" --fa on --reps 5 --budget 120s --session env --json
expect_rc "bench under the variable" 0
check "the Vulkan0 arm carries GGML_VK_VISIBLE_DEVICES=0" \
  is "[a['params']['env'] for a in d['arms'] if a['device'] == 'Vulkan0']" "['GGML_VK_VISIBLE_DEVICES=0']"
check "the CPU arm none" is "[a['params']['env'] for a in d['arms'] if a['device'] is None]" "['']"
capture env "$VK" "$LVD_BIN/lvd" select --model "$MODEL" --record
expect_rc "the verdict is recorded" 0

# ------------------------------------------------------------ service start without the variable
lvd select --model "$MODEL" --explain
expect_rc "select at a service start without the variable" 0
check "the verdict decides (its arm's environment picks the probe)" has "^# decided by rule: verdict"
check "the line carries the variable the device was measured under" \
  has "^GGML_VK_VISIBLE_DEVICES=0 $W/vk/llama-server -m $MODEL --device Vulkan0 "
line=$(head -1 "$tmp/out")
check "that line, run by sh from an environment without it, sees Vulkan0" \
  env FAKE_SERVER_CHECK=1 sh -c "$line > /dev/null 2>&1"
check "the server it ran was started with the variable" grep -q "GGML_VK_VISIBLE_DEVICES=0 llama-server .*--device Vulkan0" "$W/vk/calls.log"

e2e_finish
