#!/usr/bin/env bash
# e2e_fake_engine.sh: proves that tests/fake-engine answers as the real llama.cpp
# tools do in tests/fixtures/llama.cpp (byte for byte where the scenario can
# replay the captured samples, line shape where values are the fake's own), and
# that its scenario contract holds: true speeds, multipliers, device choice,
# ignore_ngl, faults, determinism, the invocation log. Not a test of any lvd tool.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_FAKE_ENGINE LVD_FIXTURES
FAKE=$LVD_FAKE_ENGINE
FX=$LVD_FIXTURES/llama.cpp
CPU=$FX/cpu-build-b9749
H200=$FX/gpu-h200
MODELS=$LVD_FIXTURES/models

# linked_engine DIR: a fresh engine dir holding the three personas as symlinks
linked_engine() {
  rm -rf "$1"; mkdir -p "$1/models"
  local p
  for p in llama-bench llama-server llama-perplexity; do ln -s "$FAKE" "$1/$p"; done
}
# scenario DIR LINES...: writes DIR/fake-scenario
scenario() { local d=$1; shift; printf '%s\n' "$@" > "$d/fake-scenario"; }
# run DIR CMD ARGS...: runs in DIR, output in DIR/{out,err}, status in $rc
run() { local d=$1; shift; (cd "$d" && "$@" > out 2> err); rc=$?; }
samples_of() { grep -o '"samples_ns": \[[^]]*\]' "$1" | sed 's/.*\[ *//; s/ *\]//' | paste -sd';'; }
times_of() { grep -o '"test_time": "[^"]*"' "$1" | sed 's/.*: "//; s/"$//' | paste -sd';'; }
field() { grep -oE "\"$1\": (\"[^\"]*\"|[^,]*)" | sed 's/^[^:]*: //; s/"//g' | paste -sd' '; }
differ() { ! cmp -s "$1" "$2"; }

# ---------------------------------------------------------------- CPU build
C=$tmp/cpu
linked_engine "$C"
cp "$MODELS/small-llama-q8_0.gguf" "$MODELS/tiny-moe-q4_0.gguf" "$C/models/"
head -c 4096 "$MODELS/small-llama-q8_0.gguf" | tail -c 2048 > "$C/models/truncated.gguf"
CPU_BASE=(
  "cpu_info = AMD EPYC"
  "model.small-llama-q8_0.gguf.type = llama ?B Q8_0"
  "model.small-llama-q8_0.gguf.size = 20550656"
  "model.small-llama-q8_0.gguf.n_params = 19335424"
  "model.tiny-moe-q4_0.gguf.size = 2448640"
  "model.tiny-moe-q4_0.gguf.n_params = 4343360"
)
scenario "$C" "${CPU_BASE[@]}"

run "$C" ./llama-bench --list-devices
check "llama-bench --list-devices (cpu build) equals list-devices.stdout" same "$C/out" "$CPU/list-devices.stdout"
run "$C" ./llama-server --list-devices
check "llama-server --list-devices equals server-list-devices.stdout" same "$C/out" "$CPU/server-list-devices.stdout"
run "$C" ./llama-server --version
check "llama-server --version equals server-version.stderr" same "$C/err" "$CPU/server-version.stderr"

run "$C" ./llama-bench --no-such-flag
check "bad flag: exit 1" test "$rc" = "$(cat "$CPU/bench-bad-flag.exit")"
check "bad flag: usage on stdout equals bench-bad-flag.stdout" same "$C/out" "$CPU/bench-bad-flag.stdout"
check "bad flag: stderr equals bench-bad-flag.stderr" same "$C/err" "$CPU/bench-bad-flag.stderr"
run "$C" ./llama-bench --help
check "--help equals bench-help.stdout" same "$C/out" "$CPU/bench-help.stdout"
run "$C" ./llama-bench --version
check "llama-bench has no --version (invalid parameter, as the real tool)" test "$rc" = 1

for m in does-not-exist truncated; do
  run "$C" ./llama-bench -m "models/$m.gguf" -p 128 -n 32 -r 3 -o jsonl
  check "bench $m model: exit 1, empty stdout" test "$rc" = 1 -a ! -s "$C/out"
  check "bench $m model: stderr equals bench-$m-model.stderr" \
    same "$C/err" "$CPU/bench-${m/does-not-exist/missing}-model.stderr"
done

# replay FIXTURE DIR ARGS...: replays the capture's samples and times, compares bytes
replay() {
  local fx=$1 d=$2 base_name=$3; shift 3
  local -n base=$base_name
  scenario "$d" "${base[@]}" "samples_ns = $(samples_of "$fx")" "test_time = $(times_of "$fx")"
  run "$d" ./llama-bench "$@"
  check "replay $(basename "$fx"): exit 0" test "$rc" = 0
  check "replay $(basename "$fx"): stdout byte-identical" same "$d/out" "$fx"
}
replay "$CPU/bench-jsonl.stdout" "$C" CPU_BASE -m models/small-llama-q8_0.gguf -p 128,256 -n 32 -r 3 -o jsonl
replay "$CPU/bench-json.stdout" "$C" CPU_BASE -m models/small-llama-q8_0.gguf -p 128 -n 32 -r 3 -o json
replay "$CPU/bench-ngl99-cpu-only.stdout" "$C" CPU_BASE -m models/small-llama-q8_0.gguf -p 128 -n 32 -r 3 -ngl 99 -o jsonl
replay "$CPU/bench-fitt.stdout" "$C" CPU_BASE -m models/small-llama-q8_0.gguf -p 128 -n 32 -r 3 -fitt 1024 -o jsonl
replay "$CPU/bench-moe-ncmoe.stdout" "$C" CPU_BASE -m models/tiny-moe-q4_0.gguf -p 64 -n 16 -r 3 -ncmoe 0,2 -o jsonl

# csv, sql and md print no samples: same bytes once the measured values are masked
scenario "$C" "${CPU_BASE[@]}"
mask_csv() { sed -E 's/("[^"]*",){4}"[^"]*"$/MEASURED/' "$1"; }
mask_sql() { sed -E "s/('[^']*', ){4}'[^']*'\);\$/MEASURED);/" "$1"; }
mask_md() { sed -E 's/\| +[0-9.]+ ± [0-9.]+ \|$/| MEASURED |/' "$1"; }
for f in csv sql md; do
  run "$C" ./llama-bench -m models/small-llama-q8_0.gguf -p 128 -n 32 -r 3 -o $f
  check "-o $f: same as bench-$f.stdout but for measured values" \
    same <(mask_$f "$C/out") <(mask_$f "$CPU/bench-$f.stdout")
done

# the JSON keys of a live (non-replayed) run, in the fixture's order
run "$C" ./llama-bench -m models/small-llama-q8_0.gguf -p 64 -n 16 -r 4 -o jsonl
keys() { head -1 "$1" | grep -oE '"[a-z_]+": ' | paste -sd' '; }
check "jsonl: same keys in the same order as bench-jsonl.stdout" same <(keys "$C/out") <(keys "$CPU/bench-jsonl.stdout")
check "jsonl: -r 4 gives 4 samples_ns" test "$(head -1 "$C/out" | grep -o '"samples_ns": \[[^]]*\]' | tr ',' '\n' | wc -l)" = 4
check "jsonl: valid JSON per line (python3 json)" \
  python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$C/out"

# perplexity: stdout bytes with the captured chunk values; stderr line shapes
IN=$CPU/perplexity-input.txt
scenario "$C" "ppl = 32495.6345,32498.5601,32688.6083,32813.2123"
strip_ts() { sed -E 's/^[0-9]+\.[0-9]{2}\.[0-9]{3}\.[0-9]{3} ([IWE]) /\1 /' "$1" | grep -v 'n_ctx is not divisible'; }
shape() { sed -E 's/-?nan/N/g; s/-?[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g' "$1"; }
run "$C" ./llama-perplexity -m models/small-llama-q8_0.gguf -f "$IN" -c 128 --chunks 4 -t 2
sed -i '1s/^[0-9.]* minutes$/0.00 minutes/' "$C/out"
check "perplexity stdout equals perplexity.stdout" same "$C/out" "$CPU/perplexity.stdout"
check "perplexity stderr has the capture's lines" same <(shape <(strip_ts "$C/err")) <(shape <(strip_ts "$CPU/perplexity.stderr"))
run "$C" ./llama-perplexity -m models/small-llama-q8_0.gguf -f "$IN" -c 128 --chunks 4 -t 2 --kl-divergence-base kld-base.bin
check "kld-base: stderr has the capture's lines" same <(shape <(strip_ts "$C/err")) <(shape <(strip_ts "$CPU/perplexity-kld-base.stderr"))
check "kld-base: writes a file with llama.cpp's _logits_ header" test "$(head -c 8 "$C/kld-base.bin")" = _logits_
run "$C" ./llama-perplexity -m models/small-llama-q8_0.gguf -f "$IN" -c 128 --chunks 4 -t 2 --kl-divergence-base kld-base.bin --kl-divergence
check "kld: stdout has the shape of perplexity-kld.stdout" same <(shape "$C/out") <(shape "$CPU/perplexity-kld.stdout")
check "kld: stderr has the capture's lines" same <(shape <(strip_ts "$C/err")) <(shape <(strip_ts "$CPU/perplexity-kld.stderr"))
stat_re() { grep -E "$1" "$2" | head -1 | sed -E "s#$1#\\1#"; }
check "kld: CPU against itself: ratio 1.000000, KLD 0, same top p 100" test \
  "$(stat_re '^Mean PPL\(Q\)/PPL\(base\) +: +([-0-9.]+) .*' "$C/out") $(stat_re '^Mean +KLD: +([-0-9.]+) .*' "$C/out") $(stat_re '^Same top p: +([0-9.]+) .*' "$C/out")" \
  = "1.000000 0.000000 100.000"
run "$C" ./llama-perplexity -m models/small-llama-q8_0.gguf -f "$IN" -c 128 --chunks 4 --kl-divergence-base missing.bin --kl-divergence
check "kld with a missing base: logs the error and exits 0 without statistics (as the real tool)" \
  test "$rc" = 0 -a "$(grep -c 'failed to open missing.bin' "$C/err")" = 1 -a "$(grep -c 'Mean' "$C/out")" = 0

# server: the -ngl warning on a CPU-only build, launch check mode. Given
# --port it serves until SIGTERM, as the capture's server did until it was stopped
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$C" && exec ./llama-server -m models/small-llama-q8_0.gguf -ngl 99 --port "$PORT" > out 2> err) &
srv=$!
for _ in $(seq 100); do grep -q "listening on" "$C/err" 2>/dev/null && break; sleep 0.05; done
check "server --port: GET /health answers 200 {\"status\":\"ok\"}" \
  test "$(python3 -c 'import sys, urllib.request as u; print(u.build_opener(u.ProxyHandler({})).open(sys.argv[1]).read().decode())' "http://127.0.0.1:$PORT/health")" = '{"status":"ok"}'
kill -TERM "$srv"; wait "$srv"; rc=$?
check "server -ngl on CPU build: exit 0 on SIGTERM" test "$rc" = 0
check "server -ngl on CPU build: stderr lines as server-ngl99-cpu-only.stderr" \
  same <(shape <(strip_ts "$C/err")) <(shape <(strip_ts "$CPU/server-ngl99-cpu-only.stderr")) 
(cd "$C" && FAKE_SERVER_CHECK=1 ./llama-server -m models/small-llama-q8_0.gguf -c 4096 > out 2> err); rc=$?
check "server check mode: exit 0 right after 'model loaded'" \
  test "$rc" = 0 -a "$(tail -1 "$C/err" | grep -c 'model loaded$')" = 1
run "$C" ./llama-server -m models/small-llama-q8_0.gguf --device CUDA0
check "server --device unknown to a CPU build: exit 1" test "$rc" = 1 -a "$(grep -c 'invalid device: CUDA0' "$C/err")" = 1
run "$C" ./llama-server -m models/small-llama-q8_0.gguf --frobnicate
check "server unknown flag: exit 1" test "$rc" = 1 -a "$(cat "$C/err")" = "error: invalid argument: --frobnicate"
run "$C" ./llama-server -m models/missing.gguf
check "server missing model: exit 1" test "$rc" = 1

# ---------------------------------------------------------------- GPU builds
G=$tmp/gpu
linked_engine "$G"
printf GGUF > "$G/models/dense-1b-f16.gguf"
printf GGUF > "$G/models/moe-8x-f16.gguf"
CUDA_BASE=(
  "build_number = 0" "build_commit = unknown" "cpu_info = Intel(R) Xeon(R) Processor" "threads = 16"
  "device = CUDA0|NVIDIA H200|143155|142629|9.0"
  "model.dense-1b-f16.gguf.type = llama 1B F16"
  "model.dense-1b-f16.gguf.size = 1705254912" "model.dense-1b-f16.gguf.n_params = 852559872"
  "model.moe-8x-f16.gguf.size = 978653184" "model.moe-8x-f16.gguf.n_params = 489243648"
)
scenario "$G" "${CUDA_BASE[@]}"
run "$G" ./llama-bench --list-devices
check "CUDA --list-devices stdout equals cuda-list-devices.stdout" same "$G/out" "$H200/cuda-list-devices.stdout"
check "CUDA --list-devices stderr equals cuda-list-devices.stderr" same "$G/err" "$H200/cuda-list-devices.stderr"
replay_err() { # like replay, and stderr equals the capture's .err
  replay "$@"; check "replay $(basename "$1"): stderr equals ${1%.jsonl}.err" same "$2/err" "${1%.jsonl}.err"
}
D=models/dense-1b-f16.gguf
replay_err "$H200/bench-cuda-dense-ngl99.jsonl" "$G" CUDA_BASE -m $D -p 512 -n 128 -r 5 -ngl 99 -fa 0,1 -o jsonl
replay_err "$H200/bench-cuda-dense-ngl8.jsonl" "$G" CUDA_BASE -m $D -p 512 -n 128 -r 3 -ngl 8 -o jsonl
replay_err "$H200/bench-cuda-dense-fit.jsonl" "$G" CUDA_BASE -m $D -p 512 -n 128 -r 3 -fitt 1024 -o jsonl
replay_err "$H200/bench-cuda-moe-ncmoe.jsonl" "$G" CUDA_BASE -m models/moe-8x-f16.gguf -p 512 -n 128 -r 3 -ngl 99 -ncmoe 0,4,8 -o jsonl
VK_BASE=("${CUDA_BASE[@]}")
VK_BASE[0]="build_number = 9749"; VK_BASE[1]="build_commit = d32676d77"
VK_BASE[4]="device = Vulkan0|NVIDIA H200|143771|143139"
scenario "$G" "${VK_BASE[@]}"
run "$G" ./llama-bench --list-devices
check "Vulkan --list-devices stdout equals vulkan-list-devices.stdout" same "$G/out" "$H200/vulkan-list-devices.stdout"
check "Vulkan --list-devices stderr equals vulkan-list-devices.stderr" same "$G/err" "$H200/vulkan-list-devices.stderr"
replay_err "$H200/bench-vulkan-dense-ngl99.jsonl" "$G" VK_BASE -m $D -p 512 -n 128 -r 5 -ngl 99 -fa 0,1 -o jsonl
replay_err "$H200/bench-vulkan-dense-ngl99-hostmem.jsonl" "$G" VK_BASE -m $D -p 512 -n 128 -r 5 -ngl 99 -fa 1 -o jsonl

# true speeds: noise 0, so avg_ts is the scenario's mean (to ns rounding)
TRUTH=(
  "device = CUDA0|NVIDIA H200|143155|142629|9.0" "device = Vulkan0|NVIDIA H200|143771|143139"
  "cpu.pp = 400" "cpu.tg = 50" "dev.CUDA0.pp = 86000" "dev.CUDA0.tg = 800" "dev.CUDA0.tg.fa=1 = 1.25"
  "dev.Vulkan0.pp = 17700" "dev.Vulkan0.tg = 700" "tg.env.GGML_VK_PREFER_HOST_MEMORY=1 = 0.044"
  "tg.ncmoe=4 = 0.5" "noise = 0" "log = invocations.log"
)
scenario "$G" "${TRUTH[@]}"
rm -f "$G/invocations.log" "$G/fake-counter"
rounded() { field avg_ts < "$1" | awk '{for(i=1;i<=NF;i++) printf "%s%.0f", (i>1?" ":""), $i; print ""}'; }
run "$G" ./llama-bench -m $D -p 512 -n 128 -r 3 -fa 0,1 -o jsonl
check "first device by default: CUDA0 pp, tg, fa=1 multiplier" test "$(rounded "$G/out")" = "86000 800 86000 1000"
check "backends and gpu_info of a CUDA+Vulkan build" \
  test "$(head -1 "$G/out" | field backends)|$(head -1 "$G/out" | field gpu_info)" = "CUDA,Vulkan|NVIDIA H200, NVIDIA H200"
run "$G" ./llama-bench -m $D -p 512 -n 128 -r 3 -dev Vulkan0 -o jsonl
check "-dev Vulkan0 runs at Vulkan0's speed, devices echoed" \
  test "$(rounded "$G/out") $(head -1 "$G/out" | field devices)" = "17700 700 Vulkan0"
(cd "$G" && GGML_VK_PREFER_HOST_MEMORY=1 ./llama-bench -m $D -p 0 -n 128 -r 3 -dev Vulkan0 -o jsonl > out 2> err)
check "env multiplier applies (GGML_VK_PREFER_HOST_MEMORY=1: tg x 0.044)" test "$(rounded "$G/out")" = "31"
run "$G" ./llama-bench -m $D -p 0 -n 128 -r 3 -ngl 0 -ncmoe 0,4 -o jsonl
check "-ngl 0 runs on the CPU; ncmoe=4 multiplier" test "$(rounded "$G/out")" = "50 25"
run "$G" ./llama-bench -m $D -p 0 -n 0 -pg 512,128 -r 2 -o jsonl
check "-pg combines pp and tg by time" test "$(rounded "$G/out")" = "$(awk 'BEGIN{printf "%.0f", 640/(512/86000+128/800)}')"
run "$G" ./llama-bench -m $D -dev CUDA0/Nope -o jsonl
check "-dev with an unknown device: exit 1, 'invalid device'" test "$rc" = 1 -a "$(head -1 "$G/err" | grep -c 'ggml_cuda_init')" = 1 -a "$(grep -c 'error: invalid device: Nope' "$G/err")" = 1
check "invocation log: one line per invocation, env knobs included" test "$(wc -l < "$G/invocations.log")" = 6 -a \
  "$(grep -c '^#2 GGML_VK_PREFER_HOST_MEMORY=1 llama-bench -m models/dense-1b-f16.gguf' "$G/invocations.log")" = 1
check "invocation counter: six bytes in fake-counter" test "$(wc -c < "$G/fake-counter")" = 6

scenario "$G" "${TRUTH[@]}" "ignore_ngl = 1"
run "$G" ./llama-bench -m $D -p 512 -n 128 -r 2 -ngl 99 -o jsonl
check "ignore_ngl=1: backends CPU, gpu_info empty, ngl 99 echoed, CPU speed" \
  test "$(head -1 "$G/out" | field backends)|$(head -1 "$G/out" | field gpu_info)|$(head -1 "$G/out" | field n_gpu_layers)|$(rounded "$G/out")" = "CPU||99|400 50"
run "$G" ./llama-bench --list-devices
check "ignore_ngl=1: the devices are still listed" test "$(grep -c 'CUDA0: NVIDIA H200' "$G/out")" = 1
run "$G" ./llama-perplexity -m $D -f "$IN" -c 128 --chunks 4 -ngl 99
check "ignore_ngl=1: perplexity prints the no-usable-GPU warning" same <(head -3 "$G/err") <(head -3 "$H200/ppl-cpu.err")
scenario "$G" "${TRUTH[@]}" "ignore_ngl = speed"
run "$G" ./llama-bench -m $D -p 512 -n 128 -r 2 -ngl 99 -o jsonl
check "ignore_ngl=speed: backends CUDA,Vulkan but CPU speed" test "$(head -1 "$G/out" | field backends)|$(rounded "$G/out")" = "CUDA,Vulkan|400 50"

# warm-up and noise, determinism and the per-invocation counter
scenario "$G" "device = CUDA0|NVIDIA H200|143155|142629" "dev.CUDA0.pp = 1000" "noise = 0" "pp.warmup = 0.5,0.75" "test_time = 2026-01-01T00:00:00Z"
run "$G" ./llama-bench -m $D -p 512 -n 0 -r 4 -o jsonl
check "warmup list scales the first repetitions" test "$(grep -o '"samples_ts": \[[^]]*\]' "$G/out")" = '"samples_ts": [ 500, 750, 1000, 1000 ]'
scenario "$G" "device = CUDA0|NVIDIA H200|143155|142629" "noise = 0.05" "test_time = 2026-01-01T00:00:00Z"
(cd "$G" && FAKE_INDEX=3 FAKE_SEED=7 ./llama-bench -m $D -p 512 -n 128 -o jsonl > a 2>/dev/null && FAKE_INDEX=3 FAKE_SEED=7 ./llama-bench -m $D -p 512 -n 128 -o jsonl > b 2>/dev/null && FAKE_INDEX=4 FAKE_SEED=7 ./llama-bench -m $D -p 512 -n 128 -o jsonl > c 2>/dev/null)
check "same argv + FAKE_SEED + FAKE_INDEX: identical bytes" same "$G/a" "$G/b"
check "another invocation index: other samples" differ "$G/a" "$G/c"
(cd "$G" && ./llama-bench -m $D -p 512 -n 128 -o jsonl > a 2>/dev/null && ./llama-bench -m $D -p 512 -n 128 -o jsonl > b 2>/dev/null)
check "successive invocations differ (counter file)" differ "$G/a" "$G/b"
scenario "$G" "device = CUDA0|NVIDIA H200|143155|142629" "dev.CUDA0.tg = 1000" "noise = 0.1"
run "$G" ./llama-bench -m $D -p 0 -n 128 -r 400 -o jsonl
check "noise 0.1: 400 samples have mean ~1000 and sd ~100" awk -v m="$(field avg_ts < "$G/out")" -v s="$(field stddev_ts < "$G/out")" \
  'BEGIN{exit !(m > 985 && m < 1015 && s > 85 && s < 115)}'

# faults
F=$tmp/fault
linked_engine "$F"
printf GGUF > "$F/m.gguf"
fault_run() { scenario "$F" "device = CUDA0|NVIDIA H200|143155|142629" "hang_s = 30" "$@"; (cd "$F" && exec timeout -s KILL 3 ./llama-bench -m m.gguf -p 16 -n 4 -r 2 -o jsonl > out 2> err); rc=$?; }
fault_run "bench.fault = crash"
check "crash: killed by SIGSEGV after half a JSON line" test "$rc" = 139 -a "$(head -c 16 "$F/out")" = '{"build_commit":' -a "$(wc -l < "$F/out")" = 0
fault_run "fault = hang"
check "hang: still running when killed" test "$rc" = 137
fault_run "bench.fault = garbage"
check "garbage: exit 0, not JSON" test "$rc" = 0 -a "$(head -c 1 "$F/out")" != '{'
fault_run "fault = exit1"
check "exit1: exit 1 with an engine error line" test "$rc" = 1 -a "$(grep -c 'llama_bench: error' "$F/err")" = 1
fault_run "bench.fault = truncated"
check "truncated: exit 0, half a JSON line without newline" test "$rc" = 0 -a "$(wc -l < "$F/out")" = 0 -a "$(head -c 16 "$F/out")" = '{"build_commit":'
fault_run "dev.CUDA0.fault = crash"
(cd "$F" && timeout 3 ./llama-bench -m m.gguf -p 16 -n 4 -r 2 -ngl 0,99 -o jsonl > out 2> err); rc=$?
check "a device fault spares the CPU runs before it" test "$rc" = 139 -a "$(wc -l < "$F/out")" = 2
fault_run "list_devices_fault = hang" "fault = crash"
(cd "$F" && timeout -s KILL 2 ./llama-bench --list-devices > out 2> err); rc=$?
check "list_devices_fault = hang: --list-devices hangs" test "$rc" = 137
fault_run "fault = exit1" "fault_after = 1"
rm -f "$F/fake-counter"
# (a bench, not a --list-devices, as #0: `fault` never reaches --list-devices,
# so only a bench #0 that works shows that fault_after spared it)
(cd "$F" && ./llama-bench -m m.gguf -p 16 -n 0 -o jsonl > out0 2>&1); rc0=$?
(cd "$F" && ./llama-bench -m m.gguf -p 16 -n 0 -o jsonl > out 2>&1); rc=$?
check "fault_after = 1: the bench #0 works" test "$rc0" = 0 -a "$(grep -c '^{"build_commit":' "$F/out0")" = 1
check "fault_after = 1: the bench #1 fails" test "$rc" = 1 -a "$(grep -c 'llama_bench: error' "$F/out")" = 1 -a "$(wc -c < "$F/fake-counter")" = 2
fault_run "ppl.fault = exit1"
(cd "$F" && ./llama-perplexity -m m.gguf -f "$IN" -c 128 > out 2> err); rc=$?
check "ppl.fault = exit1: perplexity exits 1" test "$rc" = 1

# server launch lines as lvd-select writes them
scenario "$F" "device = CUDA0|NVIDIA H200|143155|142629" "server_check = 1"
(cd "$F" && GGML_VK_PREFER_HOST_MEMORY=1 ./llama-server -m m.gguf --device CUDA0 -ngl 99 --n-cpu-moe 2 -ub 256 -fa on -c 8192 -ctk q8_0 -ctv q8_0 --host 127.0.0.1 --port 8080 > out 2> err); rc=$?
check "server accepts a full launch line, no GPU warning" test "$rc" = 0 -a "$(grep -c warning "$F/err")" = 0 -a "$(grep -c 'n_ctx_slot = 8192' "$F/err")" = 1
for bad in "-ngl lots" "-fa maybe" "-ctk q3_0" "--device CUDA1" "-c"; do
  # shellcheck disable=SC2086
  (cd "$F" && ./llama-server -m m.gguf $bad > out 2> err); rc=$?
  check "server rejects '$bad'" test "$rc" = 1
done

# scenario mistakes fail loudly; the persona can be given as the first word
for bad in "bogus = 1" "dev.CUDA9.tg = 5" "noise = lots" "fault = explode" "tg.frob=1 = 2" "device = CUDA0|x|1"; do
  scenario "$F" "$bad"
  (cd "$F" && ./llama-bench --list-devices > out 2> err); rc=$?
  check "scenario '$bad' is refused with exit 99 and file:line" test "$rc" = 99 -a "$(grep -c 'fake-scenario:1:' "$F/err")" = 1
done
FAKE_SCENARIO=$F/none "$FAKE" llama-bench --list-devices > /dev/null 2>&1; rc=$?
check "FAKE_SCENARIO naming a missing file: exit 99" test "$rc" = 99
scenario "$F" "device = CUDA0|NVIDIA H200|143155|142629"
FAKE_SCENARIO=$F/fake-scenario "$FAKE" llama-bench --list-devices > "$F/out" 2> /dev/null
check "fake-engine llama-bench ... with FAKE_SCENARIO" test "$(grep -c CUDA0 "$F/out")" = 1
"$FAKE" --list-devices > /dev/null 2>&1; rc=$?
check "unknown persona: exit 2" test "$rc" = 2

e2e_finish
