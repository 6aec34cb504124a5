#!/usr/bin/env bash
# e2e_fit.sh: `lvd fit` end to end on fake engines whose allocation fails
# above known contexts as llama.cpp's does (scenario ctx_limit: exit 1,
# "failed to create context"): a CUDA, a Vulkan and a CPU engine. Each
# ceiling is found within 1 % in at most log2(range) + 2 loads (the fake
# engines' call logs count them), matched KV pairs scale it, it is recorded
# and used: lvd select --ctx max serves it less 5 %, a -c above it is
# refused with the ceiling, a changed engine makes it stale; the evidence
# page shows the ceilings per backend and what CUDA costs in window. A
# registered engine older than the pin is flagged by lvd probe, lvd select
# --explain, the evidence page and the nightly's log. Usage errors.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE

world fit
MODEL=$tmp/tiny-llama-q4_0.gguf
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$MODEL"
engine cuda "device = CUDA0|NVIDIA H200|143155|142629" "dev.CUDA0.ctx_limit = 176128"
engine vulkan "device = Vulkan0|NVIDIA H200|143155|142629" "dev.Vulkan0.ctx_limit = 204800"
engine cpu "cpu.ctx_limit = 50000"
loads() { grep -c -- ' -d ' "$W/$1/calls.log" 2>/dev/null || echo 0; }

# --- the ceilings, within 1 %, in at most log2(range) + 2 loads
lvd fit -m "$MODEL" --max-ctx 262144 --json
expect_rc "fit: every ceiling found" 0
within() { # ENGINE LIMIT: the JSON row of ENGINE found LIMIT within 1 %, loads counted
  python3 - "$tmp/out" "$1" "$2" "$(loads "$1")" <<'PY'
import json, math, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["engine"] == sys.argv[2]]
limit, calls = int(sys.argv[3]), int(sys.argv[4])
assert len(rows) == 1, rows
r = rows[0]
c = r["ceiling"]
assert c <= limit and limit - c <= 0.01 * c, f"ceiling {c} vs limit {limit}"
bound = math.floor(math.log2(262144 - 256)) + 2
assert r["probes"] == calls, f"probes {r['probes']} but {calls} llama-bench loads"
assert r["probes"] <= bound, f"{r['probes']} loads > {bound}"
assert r["ctk"] == "f16" and r["ctv"] == "f16" and r["free_mib"] in (142629, None), r
PY
}
check "fit: CUDA0's ceiling within 1 % of 176128, loads counted" within cuda 176128
check "fit: Vulkan0's ceiling within 1 % of 204800" within vulkan 204800
check "fit: the CPU's ceiling within 1 % of 50000" within cpu 50000
check "fit: a load is one token at a depth with the placement's flags" \
  grep -qE -- "llama-bench -m .* -d [0-9]+ -p 1 -n 1 -r 1 -o jsonl --no-warmup -dev CUDA0 -ngl 3 -ctk f16 -ctv f16" "$W/cuda/calls.log"
CUDA_CEIL=$(q "[r['ceiling'] for r in d if r['engine'] == 'cuda'][0]")
SERVE=$((CUDA_CEIL * 95 / 100 / 256 * 256))
check "fit: JSON has engine, device, ctk, ctv, ceiling, free_mib, probes" \
  is "sorted(d[0].keys())[:0] or all(k in d[0] for k in ['engine','device','ctk','ctv','ceiling','free_mib','probes'])" True

# matched pairs: q8_0 holds 64/34 times the cells
lvd fit -m "$MODEL" --engines cuda -ctk f16,q8_0 -ctv f16,q8_0 --max-ctx 524288 --json --no-record
expect_rc "fit: two matched pairs" 0
check "fit: q8_0/q8_0 holds 64/34 times the context, within 1 %" \
  is "[(r['ctk'], 0 <= 176128 * 128 // 68 - r['ceiling'] <= 0.01 * r['ceiling']) for r in d][1]" "('q8_0', True)"
lvd fit -m "$MODEL" --engines cuda --max-ctx 100000 --json --no-record
check "fit: a top that loads is capped (the prediction is above it: one load)" \
  is "(d[0]['ceiling'], d[0]['capped'], d[0]['probes'])" "(100000, True, 1)"
# a load of N loads N cells (llama-bench -d N-1 -p 1 -n 1: each test's context
# is its depth and its own token), so one above the CPU's 50000 does not load
lvd fit -m "$MODEL" --engines cpu --max-ctx 50001 --json --no-record
check "fit: the context loaded is the context reported: 50001 is above the CPU's 50000" \
  is "(d[0]['ceiling'] <= 50000, d[0]['capped'])" "(True, False)"

# the fake's failure is the real build's: the capture's last line and exit status
CAP=$LVD_FIXTURES/llama.cpp/ceiling-b9749
(cd "$LVD_SOURCE/share" && "$W/cpu/llama-bench" -m models/tiny-llama-q4_0.gguf -d 2000000 -p 1 -n 1 -r 1 -o jsonl \
  > "$tmp/fake.out" 2> "$tmp/fake.err"; echo $? > "$tmp/fake.exit")
fake_as_capture() {
  same "$CAP/bench-d2000000.stderr" "$tmp/fake.err" && same "$CAP/bench-d2000000.stdout" "$tmp/fake.out" &&
    same "$CAP/bench-d2000000.exit" "$tmp/fake.exit"
}
check "fake engine: above ctx_limit it fails as b9749 does (stderr, stdout, exit)" fake_as_capture
(cd "$LVD_SOURCE/share" && "$W/cpu/llama-bench" -m models/tiny-llama-q4_0.gguf -d 2000000 -p 1 -n 1 -r 1 -o jsonl -v \
  2> "$tmp/fake.err" > /dev/null)
tail -6 "$CAP/bench-d2000000-v.stderr" > "$tmp/cap.tail"
grep -E "insufficient memory|failed to allocate|failed to initialize|failed to create" "$tmp/fake.err" > "$tmp/fake.tail"
check "fake engine: with -v the capture's allocator lines (the same sizes at the same context)" same "$tmp/cap.tail" "$tmp/fake.tail"

# a device whose every load dies for device memory (Vulkan's OOM lines): ceiling 0, said why
world oom
engine vkoom "device = Vulkan0|AMD Radeon|16384|16000" "dev.Vulkan0.fault = oom"
lvd fit -m "$MODEL" --max-ctx 65536 --json --no-record
expect_rc "fit: nothing loads is still a ceiling" 0
check "fit: nothing loads: ceiling 0 after two loads, the memory line kept" \
  is "(d[0]['ceiling'], d[0]['probes'], 'ErrorOutOfDeviceMemory' in d[0]['last_fail'])" "(0, 2, True)"
world fit

# --- the device lock: a fit never loads while another process holds the devices
# one process holds it (the exec'd sleep), so killing it frees the devices
( exec 9>>"$LVD_STORE.devices.lock"; flock 9; exec sleep 30 ) & HOLDER=$!
sleep 0.5
before=$(loads cuda)
expect_exit 8 "the devices are in use" "$LVD_BIN/lvd" fit -m "$MODEL" --engines cuda --max-ctx 262144 --no-record
check "fit: refused under the device lock, nothing loaded" test "$(loads cuda)" -eq "$before"
kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null

# --- used by lvd select
lvd select -m "$MODEL" --ctx max --explain
expect_rc "select --ctx max" 0
check "select --ctx max: the ceiling less 5 %, down to 256" has "cuda/llama-server .* -c $SERVE\$"
check "select --ctx max: the explanation names the ceiling and the margin" has "ctx: $SERVE, the context ceiling $CUDA_CEIL lvd fit measured for cuda CUDA0 .* less 5 %"
lvd select -m "$MODEL" -c 300000
expect_rc "select -c above the ceiling: refused" 3
check "select -c above the ceiling: the ceiling in the message" has_err "-c 300000 is above the context ceiling 17[0-9]+ that lvd fit measured for cuda CUDA0"
lvd select -m "$MODEL" -c 100000
expect_rc "select -c under the ceiling" 0

# --- the evidence page: ceilings side by side, the cost of CUDA in window
lvd bench -m "$MODEL" --budget 20s
lvd evidence --out "$tmp/page/ev.md"
expect_rc "evidence" 0
check "evidence: a ceilings table" grep -q "### Context ceilings" "$tmp/page/ev.md"
check "evidence: CUDA costs 14 % of the window against Vulkan" \
  grep -qE "^\| cuda \| cuda \| CUDA0 \| f16/f16 \| 17[0-9]+ \| [0-9]+ \| 142629 \| ngl=3 ncmoe=0 ub=512 \| .* \| 1[34]\.[0-9] % less window than vulkan Vulkan0 \|" "$tmp/page/ev.md"
check "evidence: Vulkan is the best window" grep -qE "^\| vulkan \| vulkan \| Vulkan0 .* \| best \|" "$tmp/page/ev.md"

# --- stale when the engine changes
touch -d '2026-01-01' "$W/cuda/llama-server"
"$LVD_BIN/lvd" probe --refresh > /dev/null 2>&1
lvd select -m "$MODEL" --ctx max
expect_rc "select --ctx max: a changed engine's ceiling is stale" 1
check "select --ctx max: says it is stale and what to run" has_err "stale|no valid context ceiling.*lvd fit"
lvd evidence --out "$tmp/page/ev.md"
check "evidence: the changed engine's ceiling is stale" grep -qE "^\| cuda .*stale: cuda changed since lvd fit" "$tmp/page/ev.md"

# --- a local build older than the pin
world older
MODEL2=$tmp/older-model.gguf
cp "$MODEL" "$MODEL2"
fake_engine "$W/local-cuda" "device = CUDA0|NVIDIA H200|143155|142629" "build_number = 10500"
"$LVD_BIN/lvd" fetch --register "$W/local-cuda" --build b10500 --name b10500-cuda > /dev/null 2>&1
printf 'build = b10715\nflavour = bin-ubuntu-vulkan-x64\n' > "$tmp/pin.conf"
export LVD_PIN_FILE=$tmp/pin.conf
WANT="b10500-cuda is older than the pin b10715: rebuild at b10715 \\(git checkout b10715"
lvd probe
check "older: lvd probe flags it" has "warning: $WANT"
lvd probe --json
check "older: lvd probe --json flags it" is "d['probes'][0]['older_than_pin'].startswith('b10500-cuda is older than the pin b10715: rebuild at b10715')" True
lvd select -m "$MODEL2" --explain
check "older: lvd select --explain flags it" has "# warning: $WANT"
lvd bench -m "$MODEL2" --budget 10s
lvd evidence --out "$tmp/older/ev.md"
check "older: the evidence page flags it" grep -qE "Warning:\*\* $WANT" "$tmp/older/ev.md"
printf 'build = b10500\nflavour = bin-ubuntu-vulkan-x64\n' > "$tmp/pin.conf"
lvd probe
check "older: at the pin, no flag" bash -c "! grep -q 'older than the pin' '$tmp/out'"
unset LVD_PIN_FILE
mkdir -p "$tmp/repo"
printf 'build = b10715\nflavour = bin-ubuntu-vulkan-x64\n' > "$tmp/repo/llama-pin.conf"
cat > "$tmp/repo/nightly.conf" <<CONF
model = $MODEL2
pin_file = llama-pin.conf
fetch = off
discover = off
tests = tg128
budget = 10s
evidence = ev.md
log = nightly.log
CONF
"$LVD_BIN/lvd" nightly --config "$tmp/repo/nightly.conf" > "$tmp/night.out" 2>&1
check "older: the nightly's log says so" grep -qE "warning: $WANT" "$tmp/repo/nightly.log"

# --- usage and input errors
lvd fit
expect_rc "fit without --model: usage" 2
lvd fit -m "$MODEL" -ctk f16,q8_0,q4_0 -ctv f16,q8_0
expect_rc "fit: unmatched KV lists: usage" 2
check "fit: unmatched KV lists say so" has_err "matched"
lvd fit -m "$MODEL" --max-ctx 12
expect_rc "fit: --max-ctx too small: usage" 2
lvd fit -m "$tmp/missing.gguf"
expect_rc "fit: a missing model" 3
lvd fit -m "$MODEL" --engines nosuch
expect_rc "fit: no such engine" 1

e2e_finish
