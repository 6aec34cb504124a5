#!/usr/bin/env bash
# e2e_energy.sh: energy per arm end to end, without a GPU: the fake
# NVML library (tests/fake-nvml/, via LVD_NVML_LIBRARY) and a fake sysfs
# tree (LVD_SYSFS_ROOT) whose counters the fake engine advances by the
# scenario's watts as it "computes", so the true joules per token are known:
#   CUDA0 (H200):  (300 W + 20 W host) / 1000 t/s = 0.320 J/token
#   Vulkan0 (same card): (160 W + 20 W) / 800 t/s = 0.225 J/token
#   CPU:           100 W / 200 t/s                = 0.500 J/token
# Checks: every arm within 5 % of the truth with a CI around it, idle
# watts measured (the fake NVML idles at 60 W) and taken off; --objective
# tpj picks the slower, more efficient Vulkan arm and lvd select prints its
# line; windows shorter than the minimum get -r raised until they are measured; the store keeps the energy; an unmatched device reports none; a
# stalled counter is not trusted; a box with no source changes nothing and
# says so in one line; the evidence page shows J/token and a tokens-per-joule
# chart. Not a test of the readers' details (test_energy).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE LVD_FAKE_NVML
MODEL=$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf

# fake_box DIR NVML_MODE: a sysfs tree with one RAPL package and the fake NVML's H200
fake_box() {
  local d=$1 rapl=$1/sys/class/powercap/intel-rapl:0
  mkdir -p "$rapl"
  echo package-0 > "$rapl/name"
  echo 1000 > "$rapl/energy_uj"
  echo 262143328850 > "$rapl/max_energy_range_uj"
  echo 0 > "$d/gpu0.uj"
  echo "NVIDIA H200|00000000:17:00.0|143771|60|$2|$d/gpu0.uj" > "$d/nvml.txt"
  export LVD_SYSFS_ROOT=$d/sys LVD_NVML_LIBRARY=$LVD_FAKE_NVML FAKE_NVML_DEVICES=$d/nvml.txt
}
RAPL_E() { echo "cpu.energy = $W/sys/class/powercap/intel-rapl:0/energy_uj"; }
export LVD_ENERGY_MIN_WINDOW_MS=50
BENCH=(bench --model "$MODEL" --tests tg32 --depth 0 --fa on --energy-idle 300ms) # depth 0: energy, not depth, is measured here

# jpt ENGINE: the joules per token of ENGINE's arm on tg32
jpt() { q "[r['energy']['joules_per_token'] for r in d['tests'][0]['ranking'] if [a['engine'] for a in d['arms'] if a['arm']==r['arm']][0]=='$1'][0]"; }
# near ENGINE TRUTH: within 5 %
near() { local got; got=$(jpt "$1"); python3 -c "import sys; sys.exit(not abs($got/$2 - 1) < 0.05)" || { echo "  $1: $got J/token, truth $2"; return 1; }; }

# ------------------------------------------------------------ the truth, within 5 %
world truth
fake_box "$W" counter
engine cuda "time_scale = 1" "device = CUDA0|NVIDIA H200|143155|142629|9.0" "dev.CUDA0.tg = 1000" \
  "dev.CUDA0.watts = 300" "dev.CUDA0.energy = $W/gpu0.uj" "host_watts = 20" "$(RAPL_E)"
engine vulkan "time_scale = 1" "device = Vulkan0|NVIDIA H200|143771|143139" "dev.Vulkan0.tg = 800" \
  "dev.Vulkan0.watts = 160" "dev.Vulkan0.energy = $W/gpu0.uj" "host_watts = 20" "$(RAPL_E)"
engine cpu "time_scale = 1" "cpu.tg = 200" "cpu.watts = 100" "$(RAPL_E)"
lvd "${BENCH[@]}" --json
expect_rc "three arms with energy" 0
check "CUDA0 within 5 % of 0.320 J/token" near cuda 0.320
check "Vulkan0 within 5 % of 0.225 J/token" near vulkan 0.225
check "CPU within 5 % of 0.500 J/token" near cpu 0.500
check "a 95 % CI around each figure" is "all(r['energy']['ci']['joules_per_token'][0] <= r['energy']['joules_per_token'] <= r['energy']['ci']['joules_per_token'][1] and r['energy']['ci']['level'] == 0.95 for r in d['tests'][0]['ranking'])" True
check "the GPU arm: NVML and RAPL, matched by name and memory" is "[r['energy']['source'] + ' ' + r['energy']['device'] for r in d['tests'][0]['ranking'] if r['arm']==0][0]" "nvml+rapl CUDA0=00000000:17:00.0+package-0"
check "idle watts of the fake NVML (60 W) measured" is "[abs(r['energy']['idle_watts'] - 60) < 3 for r in d['tests'][0]['ranking'] if r['arm']==0][0]" True
check "gross (idle included) above net on the GPU arm" is "[r['energy']['gross']['joules_per_token'] > r['energy']['joules_per_token'] for r in d['tests'][0]['ranking'] if r['arm']==0][0]" True
check "tokens per joule is the inverse" is "all(abs(r['energy']['tokens_per_joule'] * r['energy']['joules_per_token'] - 1) < 1e-9 for r in d['tests'][0]['ranking'])" True
check "the store keeps each result's energy" bash -c "sqlite3 '$LVD_STORE' 'SELECT count(*) FROM result_energy WHERE joules > 0' | grep -qx 3"
lvd "${BENCH[@]}"
check "the table shows J/token" has "cuda CUDA0 ngl=99 fa=on +0\.3[0-9]+ J/token \["

# ------------------------------------------------------------ tpj: the slower arm wins
lvd check --model "$MODEL"
expect_rc "checks for the verdict" 0
lvd "${BENCH[@]}" --objective tpj --json
expect_rc "bench --objective tpj" 0
check "tpj: the slower Vulkan arm leads" is "[a['engine'] for a in d['arms'] if a['arm']==d['tests'][0]['leader']][0]" vulkan
check "tpj: decided" is "d['tests'][0]['state']" win
lvd select --model "$MODEL" --objective tpj --record
expect_rc "select --objective tpj --record" 0
check "its launch line is the Vulkan engine's" has "^$W/vulkan/llama-server .*--device Vulkan0"
lvd select --model "$MODEL" --objective tpj
check "select --objective tpj prints it again" has "^$W/vulkan/llama-server"
lvd select --model "$MODEL" --record
check "by speed (tg) the CUDA arm still wins" has "^$W/cuda/llama-server .*--device CUDA0"

# ------------------------------------------------------------ the evidence page
lvd evidence --out "$W/ev/page.md"
expect_rc "evidence" 0
check "the arms table has J/token columns" grep -q "tg32 J/token \[95 % CI\]" "$W/ev/page.md"
check "the Vulkan arm's J/token on the page" grep -qE "\| 0\.2[0-9]+ \[0\.2[0-9]+, 0\.2[0-9]+\] \|$" "$W/ev/page.md"
check "a tokens-per-joule chart beside the t/s chart" bash -c "grep -q 'tg-tpj.svg' '$W/ev/page.md' && grep -q 'tokens per joule per arm' '$W'/ev/page-*-tg-tpj.svg"
check "the energy page's charts draw no text over another (rsvg-convert)" \
  bash -c "python3 '$LVD_SOURCE/tests/support/svg-text-boxes.py' '$W'/ev/page-*.svg"

# ------------------------------------------------------------ short windows grow
world short
fake_box "$W" counter
engine cuda "time_scale = 1" "device = CUDA0|NVIDIA H200|143155|142629|9.0" "dev.CUDA0.tg = 1000" \
  "dev.CUDA0.watts = 300" "dev.CUDA0.energy = $W/gpu0.uj" "noise = 0.005" "host_watts = 20" "$(RAPL_E)"
engine vulkan "time_scale = 1" "device = Vulkan0|NVIDIA H200|143771|143139" "dev.Vulkan0.tg = 800" \
  "dev.Vulkan0.watts = 160" "dev.Vulkan0.energy = $W/gpu0.uj" "noise = 0.005" "host_watts = 20" "$(RAPL_E)"
export LVD_ENERGY_MIN_WINDOW_MS=800
lvd "${BENCH[@]}" --objective tpj --json
expect_rc "tpj with first windows shorter than the minimum" 0
check "the second invocation's -r fills the window: decided" is "d['tests'][0]['state']" win
check "the Vulkan arm leads by tokens per joule" is "[a['engine'] for a in d['arms'] if a['arm']==d['tests'][0]['leader']][0]" vulkan
check "more than one round" is "d['rounds'] >= 2" True
export LVD_ENERGY_MIN_WINDOW_MS=50

# ------------------------------------------------------------ an unmatched device
world unmatched
fake_box "$W" counter
engine other "time_scale = 1" "device = CUDA0|NVIDIA A100-SXM4-80GB|81050|80000|8.0" "dev.CUDA0.tg = 1000" \
  "dev.CUDA0.watts = 300" "dev.CUDA0.energy = $W/gpu0.uj"
lvd "${BENCH[@]}" --json
expect_rc "an A100 arm on a box whose NVML sees an H200" 0
check "no energy for the unmatched device" is "d['tests'][0]['ranking'][0]['energy']" None
lvd "${BENCH[@]}"
check "the report says why" has "Energy: not measured \(no arm matched a source \(CUDA0: no energy source matches NVIDIA A100"

# ------------------------------------------------------------ a stalled counter
world stalled
fake_box "$W" stall
engine cuda "time_scale = 1" "device = CUDA0|NVIDIA H200|143155|142629|9.0" "dev.CUDA0.tg = 1000" \
  "dev.CUDA0.watts = 300" "dev.CUDA0.energy = $W/gpu0.uj"
lvd "${BENCH[@]}" --json
expect_rc "an NVML counter that never moves" 0
check "never 0 J: not measured" is "d['tests'][0]['ranking'][0]['energy']" None
lvd "${BENCH[@]}" --objective tpj
check "tpj with no energy: nothing ranks" has "^Decision \(objective tpj: tg32\): nothing measured"
check "the report says why" has "^Energy: not measured \(no window was measured: 00000000:17:00.0 did not advance in [0-9]+ ms"

# ------------------------------------------------------------ no source: nothing changes
world none
export LVD_SYSFS_ROOT=$W/empty LVD_NVML_LIBRARY=$W/no-such-libnvidia-ml.so.1
engine cuda "device = CUDA0|NVIDIA H200|143155|142629|9.0" "dev.CUDA0.tg = 1000"
lvd "${BENCH[@]}"
expect_rc "a box with no energy source" 0
check "one line says energy was not measured" bash -c "[ \$(grep -c '^Energy: not measured (no energy source on this box' '$tmp/out') = 1 ]"
check "no --progress is passed" bash -c "! grep -q -- --progress '$W/cuda/calls.log'"
lvd "${BENCH[@]}" --json
check "energy is null" is "d['tests'][0]['ranking'][0]['energy']" None

e2e_finish
