#!/usr/bin/env bash
# e2e_probe.sh: `lvd fetch --register` and `lvd probe` end to end, against
# engine directories holding copies of tests/fake-engine: a CPU-only build, a
# one-GPU CUDA build, a hung one, a crashing one and one whose binaries went
# missing. Checks the labels (cpu vs cuda vs unknown with the reason), that one
# failing engine never stops the others, the exit codes, the cache (no spawn
# on the second probe, counted through the fake's invocation log), its
# invalidation by a touched binary and by --refresh, and that a hung probe
# leaves no process behind. Not a test of the parser's corner cases
# (test_devices) or of the fake itself (e2e_fake_engine).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE
export LVD_STORE=$tmp/store.db

# row ENGINE: "BACKEND PROBE" from the probe table in $tmp/out
row() { awk -v e="$1" '$1 == e { print $2, $3 }' "$tmp/out"; }
is_row() { [ "$(row "$1")" = "$2" ] || { echo "  row of $1: '$(row "$1")', want '$2'"; return 1; }; }
# probes DIR: how often DIR's engine was asked for its devices
probes() { grep -c -- '--list-devices' "$1/calls.log" 2>/dev/null || true; }
is_probes() { [ "$(probes "$1")" = "$2" ] || { echo "  $1 asked $(probes "$1") times, want $2"; return 1; }; }

# the engine dirs (fake_engine: copies, so that each has its own mtime), not registered yet
C=$tmp/cpu G=$tmp/gpu H=$tmp/hung X=$tmp/crash M=$tmp/gone
fake_engine "$C"
fake_engine "$G" "device = CUDA0|NVIDIA H200|143155|142629|9.0"
fake_engine "$H" "device = CUDA0|NVIDIA H200|143155|142629|9.0" "list_devices_fault = hang" "hang_s = 120"
fake_engine "$X" "list_devices_fault = crash"
fake_engine "$M"

# ------------------------------------------------------------ registration
lvd fetch --register "$C" --build b9749 --json
expect_rc "register the CPU-only engine" 0
check "its commit comes from llama-server --version" has '"commit":[[:space:]]*"d32676d77"'
check "its digest is over its file set (the sha256sum lines of its launchers)" has "\"digest\":[[:space:]]*\"$(cd "$C" && sha256sum llama-bench llama-perplexity llama-server | sha256sum | cut -d' ' -f1)\""
check "it is probed at once: cpu" has '"backend":[[:space:]]*"cpu"'
check "with no devices" has '"devices":[[:space:]]*\[\]'

lvd fetch --register "$G" --build b9749
expect_rc "register the GPU engine" 0
check "probed: cuda" is_row b9749-gpu "cuda probed"
check "with CUDA0 and its compute capability" has 'CUDA0: NVIDIA H200 \(143155 MiB, 142629 MiB free\), cc 9\.0'

lvd fetch --register "$H" --build b9749 --probe-timeout 4
expect_rc "register the hung engine: registered, probe unknown" 5
check "its probe timed out" is_row b9749-hung "unknown failed"
check "the reason says so" has 'timed out after 4 s'

lvd fetch --register "$X" --build b9749 --no-probe
expect_rc "register the crashing engine without probing" 0
lvd fetch --register "$M" --build b9749 --no-probe
expect_rc "register an engine whose binaries will go" 0
rm "$M/llama-bench" "$M/llama-server"

check "registration asked the CPU engine once" is_probes "$C" 1
check "registration asked the GPU engine once" is_probes "$G" 1

# ------------------------------------------------------------ lvd probe
lvd probe --timeout 4
expect_rc "lvd probe with unknown engines is partial" 5
cat "$tmp/out"
check "cpu served from the cache" is_row b9749-cpu "cpu cached"
check "gpu served from the cache" is_row b9749-gpu "cuda cached"
check "gpu devices shown from the cache" has 'CUDA0: NVIDIA H200 \(143155 MiB, 142629 MiB free\), cc 9\.0'
check "hung: unknown" is_row b9749-hung "unknown failed"
check "hung: timed out" has 'b9749-hung .*llama-bench --list-devices timed out after 4 s'
check "crash: unknown" is_row b9749-crash "unknown failed"
check "crash: the signal named" has 'b9749-crash .*killed by signal 11'
check "missing binaries: unknown" is_row b9749-gone "unknown failed"
check "missing binaries: said so" has "b9749-gone .*no llama-bench or llama-server in $M"
check "the cache spared the CPU engine a spawn" is_probes "$C" 1
check "the cache spared the GPU engine a spawn" is_probes "$G" 1
check "an unknown probe is never cached: hung asked again" is_probes "$H" 2
check "no hung fake survives its probe" bash -c "! ps -eo args | grep -F '$H/llama-bench' | grep -v grep"

lvd probe --engine b9749-cpu --engine b9749-gpu --json
expect_rc "only the healthy engines: exit 0" 0
check "both from the cache" [ "$(grep -c '"cached":[[:space:]]*true' "$tmp/out")" = 2 ]
check "the GPU's compute capability in JSON" has '"compute_cap":[[:space:]]*"9.0"'
check "the CPU's absent devices are a fact: backend cpu" has '"backend":[[:space:]]*"cpu"'

# ------------------------------------------------------------ invalidation
touch -d '2020-01-01 00:00:00' "$G/llama-bench"
lvd probe --engine b9749-gpu
expect_rc "a touched binary" 0
check "is asked again" is_row b9749-gpu "cuda probed"
check "once more" is_probes "$G" 2
lvd probe --engine b9749-gpu
check "and then cached again" is_row b9749-gpu "cuda cached"

lvd probe --engine b9749-cpu --refresh
expect_rc "--refresh" 0
check "asks the CPU engine again" is_probes "$C" 2

lvd probe --engine nosuch
expect_rc "an unknown engine name" 1
check "is named in the error" grep -q "no engine named 'nosuch'" "$tmp/err"
lvd probe --timeout 0
expect_rc "a bad timeout is a usage error" 2

# The registered engines, as the store keeps them: re-registering updates.
lvd fetch --register "$C" --build b9750 --no-probe --json
expect_rc "re-register the CPU engine under a new build" 0
check "same engine (id 1)" has '"id":[[:space:]]*1,'
check "new build" has '"build":[[:space:]]*"b9750"'
check "it kept its name" has '"name":[[:space:]]*"b9749-cpu"'

e2e_finish
