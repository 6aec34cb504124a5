#!/usr/bin/env bash
# tests/real/run.sh: the whole loop against real llama.cpp engines.
#
#   LVD_REAL_ENGINES=DIR[:DIR...] tests/real/run.sh
#
# Each DIR is a real llama.cpp build (llama-bench, llama-perplexity,
# llama-server). Without LVD_REAL_ENGINES the suite prints one line saying it
# was skipped and exits 0 ($LVD_REAL_SKIP_RC instead, when set: ctest sets 77
# and reports the test as skipped). Nothing here is needed by the other tests,
# and no default test depends on real engines.
#
# The loop, on a private store, with the engines only ever run by the tools
# (except the ground truth below and the llama-server the launch line starts):
#   discover  lvd probe --discover --dry-run through LVD_ENGINE_* (without the
#             device-visibility variable: a Vulkan build listing no device is
#             named <build>-vulkan, backend cpu, its no_device note), then lvd
#             probe --discover DIR... (registers), then again (nothing new)
#   probe     lvd probe (cached) and --refresh: the devices each engine's own
#             `llama-bench --list-devices` prints, a CPU-only build none;
#             software rasterizers (lavapipe) marked software
#   check     lvd check: the real llama-perplexity, KL divergence of every
#             device against the CPU reference of its engine family (one per
#             family: mainline llama.cpp, ik_llama.cpp)
#   bench     lvd bench -p 16 -n 4 -c 512 (depth 256 beside 0) -r 5 with a budget: no failed run, no
#             ignored GPU flags, a CPU-only build never offered GPU flags,
#             llama-fit-params' figures recorded for each engine that has it;
#             then on the default -r (the cost model) with a budget: the
#             session ends within the budget plus its longest sample, and a
#             CPU build against lavapipe is a CPU win within the first round
#   select    lvd select --record: the verdict is the bench's leader; the
#             printed line starts the real llama-server (tests/real/serve.py:
#             split with shlex, never through a shell; a free loopback port;
#             /health 200; a short completion; the process group ended), and
#             so does a profile's line for each engine's first device (all
#             layers offloaded to it); the heuristic, for a model without a
#             verdict, offers no GPU flags when every device is a software one
#   evidence  lvd evidence: the page names every engine, shows the launch
#             line, the correctness of every device, and its SVGs parse; its
#             estimator table's compute and total ratios are near 1
#   serve     lvd serve on the select line at -np 1 and 4 (recorded, no server
#             left); an independent client (tests/real/serve_client.py)
#             between lvd serve --url and the line's server times the same
#             requests: TTFT p50 and aggregate t/s agree within 20 %; every
#             engine's leading arm served; SIGKILL of lvd serve takes its
#             server along
#   nightly   lvd nightly on a second store (fetch off, no candidate, its own
#             discover step): exit 0, the page names the engines
#   visibility lvd probe without GGML_VK_VISIBLE_DEVICES: another probe, not
#             the cache made with it (each engine's own list without it; a GPU
#             build listing no device says "<B> backend present, no <B>
#             device"), then its own cache; back with it, the first cache;
#             the Vulkan profile line carries the variable and serves on the
#             device from an environment without it (in select, above)
#   identity  a copy of the CPU build on a third store, with a verdict: one
#             byte appended to its libggml-cpu.so.0 re-probes naming the
#             file, changes the registered digest (sha256sum over the file
#             set), and makes the verdict stale in lvd select --explain
#   fit       lvd fit of the tiny llama on the CPU build under ulimit -v
#             (tests/real/fit.sh): the ceiling matches the engine's own
#             llama-bench run by hand under the same limit
#   split     small-llama in 3 shards (LVD_SPLIT_KEEP, tests/common/test_split.c):
#             lvd store model (identity, size, shape), a tiny bench on the
#             CPU build, select --record names the first shard, and serves
# Ground truth comes from the engines themselves, never from this script's
# expectations: `--version` (build, commit, and the SemVer version since
# llama.cpp's SemVer releases), the family (ik_llama.cpp's llama-bench --help
# lists -fmoe: its build is ik<N>, never older than a mainline pin, probed
# without --list-devices) and `llama-bench --list-devices`
# with and without the visibility variable. Figures are printed as
# "figure - ..." lines (docs/testing.md, "Real engines").
#
# Environment: LVD_REAL_ENGINES (required), LVD_REAL_MODEL (default
# tests/fixtures/models/small-llama-q8_0.gguf), LVD_REAL_BUDGET (lvd bench
# --budget, default 120s), LVD_REAL_NIGHTLY_BUDGET (the night's, default 60s),
# LVD_REAL_FIRST_BUDGET (the bench-first-round step's --budget, seconds, default 300),
# GGML_VK_VISIBLE_DEVICES (default 0: Mesa's lavapipe
# is a CPU-type Vulkan device that llama.cpp hides unless named), LVD_BIN,
# LVD_SOURCE, LVD_FIXTURES, LVD_TEST_BIN (ctest sets them; else this tree's
# build/bin and build/tests: test_split makes the shards).
# (test_split, for the shards; default $LVD_BIN/../tests).
if [ -z "${LVD_REAL_ENGINES:-}" ]; then
  echo "tests/real: skipped (LVD_REAL_ENGINES not set)"
  exit "${LVD_REAL_SKIP_RC:-0}"
fi

here=$(cd "$(dirname "$0")" && pwd)
: "${LVD_SOURCE:=$(cd "$here/../.." && pwd)}"
: "${LVD_BIN:=$LVD_SOURCE/build/bin}"
: "${LVD_FIXTURES:=$LVD_SOURCE/tests/fixtures}"
export LVD_SOURCE LVD_BIN LVD_FIXTURES
. "$LVD_SOURCE/tests/e2e/e2e_lib.sh"
e2e_needs LVD_BIN LVD_SOURCE LVD_FIXTURES
[ -x "$LVD_BIN/lvd" ] || { echo "tests/real: no $LVD_BIN/lvd (build first: scripts/build build)" >&2; exit 1; }

T0=$SECONDS
# step NAME: a heading with the time spent so far
step() { echo "== $1 (+$((SECONDS - T0)) s)"; }
note() { echo "note - $*"; }
figure() { echo "figure - $*"; }
# jf FILE EXPR: a python expression over the JSON in FILE (as d)
jf() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# run_lvd ARGS...: lvd, captured, never longer than 15 minutes
run_lvd() { capture timeout -k 10 900 "$LVD_BIN/lvd" "$@"; }

# ------------------------------------------------------------ the environment
# A private store and data dirs; discovery sees only the engines named here:
# no places, no bench dirs, no LVD_ENGINE_*/AIDE_LLAMA_SERVER* of the caller,
# no PATH entry holding an engine.
export LVD_STORE=$tmp/store.db XDG_DATA_HOME=$tmp/xdg XDG_CACHE_HOME=$tmp/cache LVD_BUILDS_DIR=$tmp/builds
export LVD_DISCOVER_PLACES=
unset LVD_HOST
for v in $(env | sed -n 's/^\(LVD_ENGINE_[^=]*\|AIDE_LLAMA_SERVER[^=]*\)=.*/\1/p'); do unset "$v"; done
clean_path=
IFS=: read -r -a path_dirs <<<"$PATH"
for p in "${path_dirs[@]}"; do
  [ -n "$p" ] && [ ! -x "$p/llama-server" ] && [ ! -x "$p/llama-bench" ] && clean_path=${clean_path:+$clean_path:}$p
done
export PATH=$clean_path
# The device-visibility variable: lavapipe (llama.cpp hides CPU-type Vulkan
# devices) computes only when named. Every engine the tools run inherits it.
export GGML_VK_VISIBLE_DEVICES=${GGML_VK_VISIBLE_DEVICES-0}

# The model, in a folder whose name has a space: the launch line must quote it.
MODEL_SRC=${LVD_REAL_MODEL:-$LVD_FIXTURES/models/small-llama-q8_0.gguf}
mkdir -p "$tmp/models dir"
cp "$MODEL_SRC" "$tmp/models dir/" || { echo "tests/real: cannot copy $MODEL_SRC" >&2; exit 1; }
M="$tmp/models dir/$(basename "$MODEL_SRC")"
# a second model that gets no verdict (the heuristic's case)
M2=$tmp/tiny-llama-q4_0.gguf
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$M2"

# ------------------------------------------------------------ the engines and their own answers
step "engines"
IFS=: read -r -a RAW <<<"$LVD_REAL_ENGINES"
E=()        # real paths
for d in "${RAW[@]}"; do
  [ -n "$d" ] || continue
  r=$(realpath -e -- "$d" 2>/dev/null) || { fail "LVD_REAL_ENGINES: $d does not exist"; continue; }
  if [ -x "$r/llama-bench" ] && [ -x "$r/llama-perplexity" ] && [ -x "$r/llama-server" ]; then E+=("$r")
  else fail "LVD_REAL_ENGINES: $d lacks llama-bench, llama-perplexity or llama-server"; fi
done
[ "${#E[@]}" -gt 0 ] || { fail "no usable engine in LVD_REAL_ENGINES"; e2e_finish; exit 1; }
# every path is absolute from here on: the engines run in the private folder
# (ik_llama.cpp's llama-server writes llama.log into its working directory)
cd "$tmp" || exit 1

# own_devices DIR [env -u VAR]: the lines `SEL: NAME (TOTAL MiB, FREE MiB free)`
# the engine's own llama-bench --list-devices prints (llama-server's, for a
# llama-bench older than the option, b6522), as "SEL|NAME|TOTAL|FREE"
own_devices() {
  local d=$1 out; shift
  out=$(timeout -k 5 60 "$@" "$d/llama-bench" --list-devices 2>/dev/null) ||
    out=$(timeout -k 5 60 "$@" "$d/llama-server" --list-devices 2>/dev/null)
  sed -nE 's/^ +([A-Za-z]+[0-9]+): (.*) \(([0-9]+) MiB, ([0-9]+) MiB free\)$/\1|\2|\3|\4/p' <<<"$out"
}
# gpu_libs DIR: the GPU backends the build carries (libggml-<backend>.so*)
gpu_libs() {
  local f b out=
  for f in "$1"/libggml-*.so*; do
    [ -e "$f" ] || continue
    b=${f##*/libggml-}; b=${b%%.so*}
    case $b in vulkan|cuda|hip|metal|sycl|opencl|musa|cann) case " $out " in *" $b "*) ;; *) out="$out $b" ;; esac ;; esac
  done
  echo "${out# }"
}
BUILD=() COMMIT=() SEMVER=() LIBS=() DEV_VIS=() DEV_NOVIS=()
for i in "${!E[@]}"; do
  # `version: N (commit)`, or since the SemVer releases `version: X.Y.Z[-dev] (build N, commit C)`
  v=$("${E[i]}/llama-server" --version 2>&1 | sed -nE \
      -e 's/^version: ([0-9]+) \(([0-9a-f]+)\).*/b\1 \2 -/p' \
      -e 's/^version: ([0-9]+\.[0-9]+\.[0-9]+[^ ]*) \(build ([0-9]+), commit ([0-9a-f]+)\).*/b\2 \3 \1/p' | head -1)
  read -r BUILD[i] COMMIT[i] SEMVER[i] <<<"$v"
  [ "${SEMVER[i]}" != - ] || SEMVER[i]=
  # ik_llama.cpp prints mainline's old form with a number of its own history:
  # its llama-bench lists its own knobs (-fmoe), and its tag is ik<N>, not b<N>
  FAMILY[i]=llama.cpp
  if timeout -k 5 60 "${E[i]}/llama-bench" --help 2>/dev/null | grep -qE '^ +-fmoe, --fused-moe'; then
    FAMILY[i]=ik_llama.cpp BUILD[i]=ik${BUILD[i]#b}
  fi
  BCELL[i]=${BUILD[i]}${SEMVER[i]:+, ${SEMVER[i]}}  # the evidence page's build cell (its family when not mainline's)
  [ "${FAMILY[i]}" = llama.cpp ] || BCELL[i]="${BUILD[i]}, ${FAMILY[i]}"
  [ -n "$v" ] || fail "${E[i]}/llama-server --version says no 'version: N (commit)' nor 'version: X.Y.Z (build N, commit C)'"
  LIBS[i]=$(gpu_libs "${E[i]}")
  DEV_VIS[i]=$(own_devices "${E[i]}")
  DEV_NOVIS[i]=$(own_devices "${E[i]}" env -u GGML_VK_VISIBLE_DEVICES)
  echo "engine $i: ${E[i]}: ${FAMILY[i]} ${BUILD[i]} (${COMMIT[i]}${SEMVER[i]:+, version ${SEMVER[i]}}), GPU backends: ${LIBS[i]:-none}; devices:" \
    "$(tr '\n' ' ' <<<"${DEV_VIS[i]:-(none)}")(without GGML_VK_VISIBLE_DEVICES: $(tr '\n' ' ' <<<"${DEV_NOVIS[i]:-(none)}"))"
  # the ground truth itself: a build without a GPU backend lists no device;
  # a Vulkan build lists a Vulkan device once the visibility variable names it
  if [ -z "${LIBS[i]}" ]; then
    check "engine $i (no GPU backend) lists no device itself" test -z "${DEV_VIS[i]}"
  fi
  case " ${LIBS[i]} " in *" vulkan "*)
    check "engine $i (Vulkan) lists a Vulkan device with GGML_VK_VISIBLE_DEVICES=$GGML_VK_VISIBLE_DEVICES (lavapipe: mesa-vulkan-drivers)" \
      grep -qE '^Vulkan[0-9]+\|' <<<"${DEV_VIS[i]}" ;;
  esac
done
# sel_list DEVLINES: the selectors, space-separated
sel_list() { cut -d'|' -f1 <<<"$1" | tr '\n' ' ' | sed 's/ *$//'; }
# py_devs DEVLINES: the device lines as a python list of [sel, name, total, free]
py_devs() { python3 -c 'import sys; print([l.split("|")[:2] + [int(x) for x in l.split("|")[2:]] for l in sys.argv[1].splitlines() if l])' "$1"; }
# lvd_backend LIB: the backend name lvd gives a libggml-LIB (hip is rocm)
lvd_backend() { case $1 in hip) echo rocm ;; *) echo "$1" ;; esac; }
# want_backends "LIBS": the accelerator backends as a sorted python list
want_backends() { python3 -c 'import sys; print(sorted(set(sys.argv[1:])))' $(for b in $1; do lvd_backend "$b"; done); }
# accel_name "LIBS": the name part discovery gives a build of these backends with no device ("vulkan", "cuda+vulkan")
accel_name() { for b in $1; do lvd_backend "$b"; done | sort -u | paste -sd+; }
# no_device_text "LIBS": the probe's note for these backends with no device listed
no_device_text() {
  local b out=
  for b in $(for x in $1; do lvd_backend "$x"; done | sort -u); do
    case $b in cuda) b=CUDA ;; vulkan) b=Vulkan ;; rocm) b=ROCm ;; metal) b=Metal ;; sycl) b=SYCL ;;
      opencl) b=OpenCL ;; musa) b=MUSA ;; cann) b=CANN ;; esac
    out="${out:+$out; }$b backend present, no $b device (driver missing?)"
  done
  echo "$out"
}

# ------------------------------------------------------------ discover
step "discover"
# 1. a dry run, the engines named by LVD_ENGINE_REAL<i>, without the visibility
# variable: each found from its variable, identified by its own --version, the
# devices it lists itself; nothing written.
envs=()
for i in "${!E[@]}"; do envs+=("LVD_ENGINE_REAL$i=${E[i]}"); done
capture env -u GGML_VK_VISIBLE_DEVICES "${envs[@]}" timeout -k 10 300 "$LVD_BIN/lvd" probe --discover --dry-run --json
expect_rc "discover --dry-run through LVD_ENGINE_* (no visibility variable)" 0
cp "$tmp/out" "$tmp/dry.json"
check "the dry run writes no store" test ! -e "$LVD_STORE"
for i in "${!E[@]}"; do
  f="[f for f in d['found'] if f['path'] == '${E[i]}']"
  check "dry run: engine $i found once, from env:LVD_ENGINE_REAL$i, new" \
    is "[(f['source'], f['status']) for f in $f]" "[('env:LVD_ENGINE_REAL$i', 'new')]"
  check "dry run: engine $i is ${FAMILY[i]} ${BUILD[i]} (${COMMIT[i]}${SEMVER[i]:+, version ${SEMVER[i]}}), as its --version and --help say" \
    is "[(f['family'], f['build'], f['commit'], f['semver'] or '') for f in $f]" \
    "[('${FAMILY[i]}', '${BUILD[i]}', '${COMMIT[i]}', '${SEMVER[i]}')]"
  check "dry run: engine $i's devices are those it lists itself without the variable ($(sel_list "${DEV_NOVIS[i]}"))" \
    is "[f['devices'] for f in $f]" "[$(python3 -c 'import sys; print([s for s in sys.argv[1].split()])' "$(sel_list "${DEV_NOVIS[i]}")")]"
  check "dry run: engine $i carries the backends its files name (cpu${LIBS[i]:+ ${LIBS[i]}})" \
    is "[sorted(set(f['backends']) - {'cpu'}) for f in $f]" "[$(want_backends "${LIBS[i]}")]"
  if [ -n "${LIBS[i]}" ] && [ -z "${DEV_NOVIS[i]}" ]; then
    # a GPU build that lists no device without the variable is still that
    # backend's build: named so, its label cpu, the note saying why
    check "dry run: engine $i (${LIBS[i]}, no device listed) is named ${BUILD[i]}-$(accel_name "${LIBS[i]}"), backend cpu" \
      is "[(f['name'], f['backend']) for f in $f]" "[('${BUILD[i]}-$(accel_name "${LIBS[i]}")', 'cpu')]"
    check "dry run: engine $i says $(no_device_text "${LIBS[i]}")" \
      is "[f['no_device'] for f in $f]" "['$(no_device_text "${LIBS[i]}")']"
  fi
done

# 2. discovery by operand, with the variable: registered, named from the probe
run_lvd probe --discover --json "${E[@]}"
expect_rc "discover DIR... registers the engines" 0
cp "$tmp/out" "$tmp/discover.json"
check "${#E[@]} new, none known" is "(d['new'], d['known'])" "(${#E[@]}, 0)"
NAME=()
for i in "${!E[@]}"; do
  f="[f for f in d['found'] if f['path'] == '${E[i]}']"
  check "engine $i: found once from its operand, new, ${BUILD[i]} (${COMMIT[i]})" \
    is "[(f['source'], f['status'], f['build'], f['commit']) for f in $f]" \
    "[('operand', 'new', '${BUILD[i]}', '${COMMIT[i]}')]"
  NAME[i]=$(q "${f}[0]['name']")
  want_backend=cpu
  [ -z "${DEV_VIS[i]}" ] || want_backend=$(cut -d'|' -f1 <<<"${DEV_VIS[i]}" | sed -E 's/[0-9]+$//' | tr '[:upper:]' '[:lower:]' | sort -u | paste -sd+)
  check "engine $i: named ${NAME[i]}, backend $want_backend from its devices ($(sel_list "${DEV_VIS[i]}"))" \
    is "[(f['backend'], f['devices']) for f in $f]" \
    "[('$want_backend', $(python3 -c 'import sys; print(sys.argv[1].split())' "$(sel_list "${DEV_VIS[i]}")"))]"
  check "engine $i: the name is ${BUILD[i]}-<backend>[-N]" grep -qE "^${BUILD[i]}-" <<<"${NAME[i]}"
done
check "the names are distinct (${NAME[*]})" test "$(printf '%s\n' "${NAME[@]}" | sort -u | wc -l)" -eq "${#E[@]}"

# 3. again: nothing new
run_lvd probe --discover "${E[@]}"
expect_rc "discover again" 0
plural=s; [ "${#E[@]}" -gt 1 ] || plural=  # discover's summaries: "1 engine found", "2 engines found"
check "discover again: nothing new: ${#E[@]} engine$plural found, ${#E[@]} already registered" \
  grep -qF "nothing new: ${#E[@]} engine$plural found, ${#E[@]} already registered" "$tmp/out"

# ------------------------------------------------------------ probe
step "probe"
# the probe discovery recorded is served from the cache, and a refresh asks
# again; both give each engine's own list (selector, name, MiB total and free)
for mode in cached refresh; do
  args=(--json); [ $mode = refresh ] && args+=(--refresh)
  t=$SECONDS
  run_lvd probe "${args[@]}"
  expect_rc "lvd probe ${args[*]}" 0
  [ $mode = refresh ] && figure "lvd probe --refresh of ${#E[@]} engines: $((SECONDS - t)) s"
  for i in "${!E[@]}"; do
    p="[p for p in d['probes'] if p['engine'] == '${NAME[i]}'][0]"
    check "probe $mode: ${NAME[i]} is $( [ $mode = cached ] && echo served from the cache || echo asked again)" \
      is "${p}['cached']" "$( [ $mode = cached ] && echo True || echo False)"
    check "probe $mode: ${NAME[i]}'s devices are its own list ($(sel_list "${DEV_VIS[i]}"))" \
      is "[[x['selector'], x['name'], x['total_mib'], x['free_mib']] for x in ${p}['devices']]" "$(py_devs "${DEV_VIS[i]}")"
    if [ -z "${DEV_VIS[i]}" ]; then
      check "probe $mode: ${NAME[i]} lists none: backend cpu, not unknown" is "(${p}['backend'], ${p}['reason'])" "('cpu', None)"
    fi
    check "probe $mode: ${NAME[i]} is of the family ${FAMILY[i]}" is "${p}['family']" "${FAMILY[i]}"
  done
done
cp "$tmp/out" "$tmp/probe.json"
# build numbers are compared only within a family: under a mainline pin, an
# ik_llama.cpp build (its own count, ik4840) is never older, whatever its number
printf 'build = b10715\nflavour = bin-ubuntu-x64\n' >"$tmp/b10715.pin"
LVD_PIN_FILE="$tmp/b10715.pin" run_lvd probe --json
for i in "${!E[@]}"; do
  [ "${FAMILY[i]}" = llama.cpp ] && continue
  check "probe: ${NAME[i]} (${FAMILY[i]} ${BUILD[i]}) is never older than mainline's pin b10715" \
    is "[p.get('older_than_pin') for p in d['probes'] if p['engine'] == '${NAME[i]}']" "[None]"
done
cp "$tmp/probe.json" "$tmp/out"
# software devices (Mesa's llvmpipe/lavapipe, SwiftShader, softpipe: named so
# by the engine itself) are marked as such, every other device is not
SOFT_PY="any(w in x['name'].lower() for w in ('llvmpipe', 'lavapipe', 'swiftshader', 'softpipe'))"
for i in "${!E[@]}"; do
  p="[p for p in d['probes'] if p['engine'] == '${NAME[i]}'][0]"
  [ -n "${DEV_VIS[i]}" ] || continue
  check "probe: ${NAME[i]}'s devices are marked software exactly when the engine names a software rasterizer" \
    is "[(x['selector'], x['software']) for x in ${p}['devices']]" "$(q "[(x['selector'], $SOFT_PY) for x in ${p}['devices']]")"
done
N_SOFT=$(q "sum($SOFT_PY for p in d['probes'] for x in p['devices'])")
capture "$LVD_BIN/lvd" probe
sed 's/^/  /' "$tmp/out"
if [ "$N_SOFT" -gt 0 ]; then
  check "lvd probe's table says each software device ($N_SOFT) runs on the CPU" \
    test "$(grep -c -- ' -- software rasterizer on the CPU, no accelerator$' "$tmp/out")" -eq "$N_SOFT"
fi

# ------------------------------------------------------------ check
step "check"
run_lvd check --model "$M" --json
expect_rc "lvd check: every device against the CPU" 0
cp "$tmp/out" "$tmp/check.json"
# one CPU reference per engine family (ik_llama.cpp's numerics are its own)
FAMILIES=$(printf '%s\n' "${FAMILY[@]}" | sort -u)
check "one CPU reference per family ($(echo $FAMILIES))" is "len([c for c in d['checks'] if c['reference']])" \
  "$(wc -l <<<"$FAMILIES")"
ref=$(q "[c['engine'] for c in d['checks'] if c['reference']][0]")
for fam in $FAMILIES; do
  for i in "${!E[@]}"; do
    [ "${FAMILY[i]}" = "$fam" ] && [ -z "${LIBS[i]}" ] || continue
    fref=$(q "[c['engine'] for c in d['checks'] if c['reference']]")
    check "$fam's reference is a build of it without a GPU backend ($fref)" \
      python3 -c 'import sys, ast; sys.exit(not set(ast.literal_eval(sys.argv[1])) & set(sys.argv[2:]))' "$fref" \
      $(for j in "${!E[@]}"; do [ -z "${LIBS[j]}" ] && [ "${FAMILY[j]}" = "$fam" ] && echo "${NAME[j]}"; done)
    break
  done
done
for i in "${!E[@]}"; do
  for sel in $(sel_list "${DEV_VIS[i]}"); do
    c="[c for c in d['checks'] if c['engine'] == '${NAME[i]}' and c['device'] == '$sel']"
    check "check ${NAME[i]} $sel: one row, pass" is "[c['status'] for c in $c]" "['pass']"
    check "check ${NAME[i]} $sel: the KL divergence was measured and is <= 0.01" \
      is "[c['mean_kld'] is not None and 0 <= c['mean_kld'] <= 0.01 for c in $c]" "[True]"
    check "check ${NAME[i]} $sel: |PPL ratio - 1| <= 0.01, both PPLs finite and > 0" \
      is "[abs(c['ppl_ratio'] - 1) <= 0.01 and 0 < c['ppl'] < 1e300 and 0 < c['ppl_base'] < 1e300 for c in $c]" "[True]"
    figure "check ${NAME[i]} $sel: $(q "'mean KLD %.6f, same top p %.3f %%, PPL %.4f, PPL ratio %.5f' % tuple(($c)[0][k] for k in ('mean_kld', 'same_top_p', 'ppl', 'ppl_ratio'))")"
  done
done
figure "check reference $ref: PPL $(q "[c['ppl'] for c in d['checks'] if c['reference']][0]")"

# ------------------------------------------------------------ bench
step "bench"
BUDGET=${LVD_REAL_BUDGET:-120s}
t=$SECONDS
run_lvd bench --model "$M" -p 16 -n 4 -c 512 -r 5 --budget "$BUDGET" --json
expect_rc "lvd bench -p 16 -n 4 -r 5 --budget $BUDGET" 0
figure "lvd bench: $((SECONDS - t)) s, stop $(q "d['stop']"), $(q "d['rounds']") rounds, runs $(q "d['runs']")"
cp "$tmp/out" "$tmp/bench.json"
check "no run failed, no GPU flags ignored" is "(d['runs']['failed'], d['runs']['gpu_ignored'])" "(0, 0)"
check "every engine benched (no skipped engine)" is "d['skipped']" "[]"
for i in "${!E[@]}"; do
  a="[a for a in d['arms'] if a['engine'] == '${NAME[i]}']"
  if [ -z "${DEV_VIS[i]}" ]; then
    check "bench ${NAME[i]} (no device): one bare CPU arm, no GPU flags" \
      is "[(a['device'], a['params']['ngl'], a['params']['fa']) for a in $a]" "[(None, None, None)]"
  else
    check "bench ${NAME[i]}: GPU arms on its probe's devices only ($(sel_list "${DEV_VIS[i]}")), with -ngl" \
      is "len($a) > 0 and all(a['device'] in '$(sel_list "${DEV_VIS[i]}")'.split() and a['params']['ngl'] for a in $a)" True
  fi
done
check "every arm active, none excluded" is "sorted(set(a['status'] for a in d['arms']))" "['active']"
for i in "${!E[@]}"; do # llama.cpp's own memory figures, asked once per engine and setting
  [ -x "${E[i]}/llama-fit-params" ] || continue
  check "bench ${NAME[i]}: llama-fit-params --fit-print's figures noted and recorded" \
    is "any(n.startswith(\"llama.cpp's memory for ${NAME[i]} \") for n in d['placement']['notes']) and $(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM fit_prints f JOIN engines e ON e.id = f.engine_id WHERE e.name = ?', (sys.argv[2],)).fetchone()[0])" "$LVD_STORE" "${NAME[i]}") > 0" True
done
for test in pp16 tg4; do
  tq="[t for t in d['tests'] if t['test'] == '$test'][0]"
  check "$test: every arm ranked with at least 2 kept samples" \
    is "len(${tq}['ranking']) == len(d['arms']) and min(r['kept'] for r in ${tq}['ranking']) >= 2" True
  python3 - "$tmp/bench.json" "$test" <<'PY' | while IFS= read -r l; do figure "$l"; done
import json, sys
d = json.load(open(sys.argv[1])); test = sys.argv[2]
t = [t for t in d["tests"] if t["test"] == test][0]
for r in t["ranking"]:
    a = d["arms"][r["arm"]]
    print("bench %s %s %-24s median %10.2f t/s, kept %d (+%d warm-up), %s" % (
        test, a["engine"], a["label"][len(a["engine"]) + 1:], r["median"], r["kept"], r["dropped"], r["status"]))
print("bench %s: state %s" % (test, t["state"]))
PY
done
TG="[t for t in d['tests'] if t['test'] == 'tg4'][0]"
TG_STATE=$(q "${TG}['state']")
LEADER=$(q "d['arms'][${TG}['leader']]['engine']")
LEADER_DEV=$(q "d['arms'][${TG}['leader']]['device']")

# ------------------------------------------------------------ select --record, and the launch line runs
step "select"
run_lvd select --model "$M" --record --explain
expect_rc "lvd select --record" 0
cp "$tmp/out" "$tmp/record.txt"
head -1 "$tmp/record.txt" > "$tmp/select.line"
figure "select: $(cat "$tmp/select.line")"
check "decided by the verdict" grep -qxF "# decided by rule: verdict" "$tmp/record.txt"
run_lvd select --model "$M"
check "lvd select prints the line --record printed" same "$tmp/out" "$tmp/select.line"
run_lvd select --model "$M" --json
cp "$tmp/out" "$tmp/select.json"
check "select --json: rule verdict" is "d['rule']" verdict
if [ "$TG_STATE" = win ]; then
  check "the verdict is the bench's tg4 leader ($LEADER ${LEADER_DEV})" \
    is "(d['engine'], d['device'] or 'None')" "('$LEADER', '$LEADER_DEV')"
else
  note "tg4 was not decided ($TG_STATE): the verdict's engine is not compared with the leader"
fi
check "argv[0] is a registered engine's llama-server" \
  grep -qxF "$(q "d['argv'][0]")" < <(for i in "${!E[@]}"; do echo "${E[i]}/llama-server"; done)
check "argv names the model (its folder has a space)" is "d['argv'][1:3]" "['-m', '$M']"

# serve LABEL LINE_FILE JSON_FILE [PREFIX...]: the launch line runs (serve.py
# started through PREFIX, e.g. env -u VAR): /health 200, a completion, the
# group ended; layers on the device when it names one, else none offloaded
serve() {
  local label=$1 line=$2 js=$3 dev
  shift 3
  capture "$@" timeout -k 10 300 python3 "$here/serve.py" "$line" "$js" "$tmp/$label.server.log" --timeout 120 --predict 4
  cp "$tmp/out" "$tmp/$label.serve.json"
  expect_rc "$label: the printed line starts the real llama-server, /health 200, ended" 0
  [ "$rc" -eq 0 ] || { cat "$tmp/out"; tail -20 "$tmp/$label.server.log"; }
  check "$label: POST /completion answers 4 tokens" is "(d['completion'], d['tokens'])" "(200, 4)"
  check "$label: the server's process group is gone" is "d['group_gone']" True
  dev=$(jf "$js" "d['device'] or ''")
  if [ -n "$dev" ]; then
    check "$label: all layers offloaded to $dev (server log: $(q "d['offloaded']"), using ${dev})" \
      is "(d['offloaded'] is not None and d['offloaded'].split('/')[0] == d['offloaded'].split('/')[1], d['using_devices'])" \
      "(True, ['$dev'])"
  else
    check "$label: a CPU line: nothing offloaded, no device used" \
      is "(d['offloaded'] in (None, '0/' + (d['offloaded'] or '/').split('/')[1]), d['using_devices'])" "(True, [])"
  fi
  figure "$label: /health 200 after $(q "d['health_s']") s on port $(q "d['port']")"
}
# the variables the line carries are those its device needs: a Vulkan device
# the visibility variable in force, a CPU-only build's line none
VIS=GGML_VK_VISIBLE_DEVICES=$GGML_VK_VISIBLE_DEVICES
case $(jf "$tmp/select.json" "d['device'] or ''") in
  Vulkan*) check "the verdict's Vulkan line carries $VIS" is "'$VIS' in d['env']" True ;;
  '') for i in "${!E[@]}"; do
        [ "${NAME[i]}" = "$(jf "$tmp/select.json" "d['engine']")" ] && [ -z "${LIBS[i]}" ] &&
          check "the verdict's line (a CPU-only build) carries no visibility variable" \
            is "[w for w in d['env'] if w.split('=')[0].endswith('VISIBLE_DEVICES')]" "[]"
      done ;;
esac
serve verdict "$tmp/select.line" "$tmp/select.json"

# each engine's first device, forced by a profile: that line runs too
for i in "${!E[@]}"; do
  sel=$(sel_list "${DEV_VIS[i]}" | awk '{print $1}')
  [ -n "$sel" ] || continue
  printf 'engine = %s\ndevice = %s\n' "${NAME[i]}" "$sel" > "$tmp/profile.$i"
  run_lvd select --model "$M" --profile "$tmp/profile.$i"
  expect_rc "select --profile (engine ${NAME[i]}, device $sel)" 0
  cp "$tmp/out" "$tmp/profile.$i.line"
  figure "profile ${NAME[i]} $sel: $(cat "$tmp/profile.$i.line")"
  run_lvd select --model "$M" --profile "$tmp/profile.$i" --json
  cp "$tmp/out" "$tmp/profile.$i.json"
  check "profile ${NAME[i]} $sel: rule profile, --device $sel on ${E[i]}/llama-server" \
    is "(d['rule'], d['device'], d['argv'][0], '--device' in d['argv'])" "('profile', '$sel', '${E[i]}/llama-server', True)"
  # a device the engine lists only under the visibility variable: the line
  # carries it, and so runs on the device from an environment without it
  # (as a service started from the printed line alone would)
  case $sel in Vulkan*)
    check "profile ${NAME[i]} $sel: the line starts with $VIS, --json's env carries it" \
      is "(open('$tmp/profile.$i.line').read().startswith('$VIS '), '$VIS' in d['env'])" "(True, True)" ;;
  esac
  serve "profile-${NAME[i]}-$sel" "$tmp/profile.$i.line" "$tmp/profile.$i.json"
  if [ "${DEV_VIS[i]}" != "${DEV_NOVIS[i]}" ]; then
    serve "profile-${NAME[i]}-$sel-noenv" "$tmp/profile.$i.line" "$tmp/profile.$i.json" env -u GGML_VK_VISIBLE_DEVICES
  fi
done

# the heuristic (a model without a verdict): when every device any engine
# lists is a software one (lavapipe, SwiftShader), it offers no GPU flags
run_lvd select --model "$M2" --json
expect_rc "select for a model without a verdict" 0
cp "$tmp/out" "$tmp/heuristic.json"
note "no verdict: rule $(q "d['rule']"), $(q "d['engine']") $(q "d['device']"): $(q "' '.join(d['argv'])")"
if jf "$tmp/probe.json" "all(any(w in x['name'].lower() for w in ('llvmpipe', 'lavapipe', 'swiftshader', 'softpipe')) for p in d['probes'] for x in p['devices'])" | grep -qx True; then
  check "no verdict, only software devices: the heuristic's line has no --device and no -ngl" \
    is "(d['rule'] != 'verdict', d['device'], '--device' in d['argv'], '-ngl' in d['argv'])" "(True, None, False, False)"
fi

# ------------------------------------------------------------ evidence
step "evidence"
run_lvd evidence --out "$tmp/evidence/page.md"
expect_rc "lvd evidence" 0
P=$tmp/evidence/page.md
for i in "${!E[@]}"; do
  check "the page names ${NAME[i]} (${BCELL[i]})" grep -qF "${NAME[i]} (${BCELL[i]})" "$P"
  for sel in $(sel_list "${DEV_VIS[i]}"); do
    check "the page's row for ${NAME[i]} $sel says pass" grep -qE "\| ${NAME[i]} \(${BCELL[i]}\) \|.*\| pass \(" \
      < <(grep -F "$sel" "$P")
    # a real device's KLD is tiny (lavapipe: 0.000005): the page once rounded it to 0.0000
    kld=$(jf "$tmp/check.json" "[c['mean_kld'] for c in d['checks'] if c['engine'] == '${NAME[i]}' and c['device'] == '$sel'][0]")
    if python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > 0)' "$kld"; then
      check "the page's row for ${NAME[i]} $sel shows its KLD ($kld) as more than 0.0000" \
        grep -qE "\| ${NAME[i]} \(${BCELL[i]}\) \|.*KLD 0\.0*[1-9]" < <(grep -F "$sel" "$P")
    fi
  done
done
check "the page shows the launch line lvd select printed" grep -qxF "  $(cat "$tmp/select.line")" "$P"
svgs=$(grep -oE '\(page-[^)]*\.svg\)' "$P" | tr -d '()')
check "the page has charts" test -n "$svgs"
for s in $svgs; do
  check "chart $s is there and is well-formed XML" python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$tmp/evidence/$s"
done
note "the page's correctness column: $(grep -oE 'pass \([^)]*\)' "$P" | sort -u | tr '\n' ';')"
# the estimator against what the engines allocated (docs/placement-compute.md):
# per backend, the median actual/predicted of the compute buffer and of the
# device's total, each within the goal (15 %, 10 %)
estimator_rows() { python3 - "$P" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n## Placement estimator error", 1)[-1].split("\n## ", 1)[0].splitlines()
for l in lines:
    f = [x.strip() for x in l.split("|")]
    if len(f) > 8 and f[2].isdigit():
        ok = all(c == "–" or abs(float(c) - 1) <= lim for c, lim in ((f[5], 0.15), (f[7], 0.10)))
        print(f"{f[1]} {f[2]} runs: weights {f[3]}, compute {f[5]} ({f[6]}), total {f[7]} ({f[8]}) {ok}")
PY
}
while IFS= read -r row; do
  figure "estimator ${row% *}"
  check "the estimator's compute buffer and total near 1: ${row%% *}" test "${row##* }" = True
done < <(estimator_rows)

# ------------------------------------------------------------ serve: the line under load
step "serve"
# lvd serve runs the launch line lvd select prints as a real llama-server at
# -np 1 and 4 (recorded), and leaves no server behind. Then for N = 1 and 4
# an independent client (tests/real/serve_client.py: python's http.client)
# starts that line itself at -np N and stands between it and `lvd serve
# --url` (LVD_REAL_SERVE_PER_CLIENT requests a client, default 4): it sends
# each of lvd serve's requests on and times it itself, so both time the same
# requests at the same moments (this host's speed wanders several times over
# within seconds: only requests timed side by side can be compared). lvd
# serve's TTFT p50 and aggregate t/s must be within 20 % of the client's, and
# its requests what it was asked for. Every engine's leading arm is served
# once (recorded), and a SIGKILL of lvd serve mid-run must take its server
# with it.
SP=${LVD_REAL_SERVE_P:-32} SG=${LVD_REAL_SERVE_G:-16} SR=${LVD_REAL_SERVE_REQ:-8} SPER=${LVD_REAL_SERVE_PER_CLIENT:-4}
# servers_left: this run's llama-servers (of its model: other runs may share the
# engines), by pgrep alone (a grep beside it would see its own pattern)
servers_left() { pgrep -f -- "/llama-server -m $M( |\$)" || true; }
run_lvd serve --model "$M" --load "1:$SP:$SG,4:$SP:$SG" --requests "$SR" --json
expect_rc "lvd serve: the select line at -np 1 and 4" 0
cp "$tmp/out" "$tmp/serve.json"
check "lvd serve: no llama-server left" test -z "$(servers_left)"
figure "lvd serve: $(q "'; '.join('%s TTFT p50 %.1f ms p95 %.1f ms, %.1f t/s, healthy in %.2f s' % (c['load'], c['figures']['ttft_ms']['p50'], c['figures']['ttft_ms']['p95'], c['figures']['aggregate_tps'], c['figures']['healthy_ms'] / 1e3) for c in d['cells'])")"
for n in 1 4; do
  LVD_BIN=$LVD_BIN timeout -k 10 1200 python3 "$here/serve_client.py" "$tmp/serve.json" 1 "$n" "$SP" "$SG" "$((SPER * n))" \
    "$tmp/serve-client.log" >"$tmp/client-$n.json"
  figure "serve N = $n, lvd serve --url / the independent client on the same requests: $(jf "$tmp/client-$n.json" "'TTFT p50 %.1f/%.1f ms, %.2f/%.2f t/s aggregate, %d requests' % (d['lvd']['ttft_ms_p50'], d['client']['ttft_ms_p50'], d['lvd']['aggregate_tps'], d['client']['aggregate_tps'], d['client']['requests']) if d['client'] else d['error']")"
  check "N = $n: lvd serve's TTFT p50 and aggregate t/s within 20 % of the independent client's (ratios $(jf "$tmp/client-$n.json" "'%s, %s' % (d['ttft_ratio'], d['tps_ratio'])"))" \
    test "$(jf "$tmp/client-$n.json" "d['ttft_ratio'] is not None and abs(d['ttft_ratio'] - 1) <= 0.2 and abs(d['tps_ratio'] - 1) <= 0.2")" = True
  check "N = $n: every request as asked, $SP prompt tokens and $SG generated ($(jf "$tmp/client-$n.json" "d['bodies'][:1]"))" \
    test "$(jf "$tmp/client-$n.json" "d['bodies']")" = "[]"
  check "N = $n: both counted the same failed requests ($(jf "$tmp/client-$n.json" "d['lvd'] and d['lvd']['errors']"))" \
    test "$(jf "$tmp/client-$n.json" "d['lvd'] and d['lvd']['errors'] == d['client']['errors']")" = True
  check "N = $n: the client's server group is gone" test "$(jf "$tmp/client-$n.json" "d['group_gone']")" = True
done
run_lvd serve --model "$M" --arms "${#E[@]}" --load "1:$SP:$SG" --requests "$SR" --rounds 1 --json
expect_rc "lvd serve --arms ${#E[@]}: every engine's leading arm, recorded" 0
for i in "${!E[@]}"; do
  check "${NAME[i]} served (${BUILD[i]})" is "any(a['engine'] == '${NAME[i]}' for a in d['arms'])" True
done
figure "lvd serve --arms: $(q "'; '.join('%s %s TTFT p50 %.1f ms, %.1f t/s' % (d['arms'][c['arm'] - 1]['engine'], c['load'], c['figures']['ttft_ms']['p50'] or 0, c['figures']['aggregate_tps'] or 0) for c in d['cells'])")"
"$LVD_BIN/lvd" serve --model "$M" --load "1:$SP:2000" --duration 120s --no-record >/dev/null 2>&1 &
spid=$!
for _ in $(seq 600); do [ -n "$(servers_left)" ] && break; sleep 0.1; done
check "SIGKILL mid-run: its llama-server was up" test -n "$(servers_left)"
sleep 2
kill -KILL "$spid"
wait "$spid" 2>/dev/null
for _ in $(seq 100); do [ -z "$(servers_left)" ] && break; sleep 0.1; done
check "SIGKILL of lvd serve mid-run: its llama-server is gone" test -z "$(servers_left)"

# ------------------------------------------------------------ first round, budget
step "bench-first-round"
# what the cost model promises on the default repetitions (the cost model, no -r): a
# CPU build against a software Vulkan device (lavapipe) is decided for the CPU
# within the first round, and a budget is a bound: the session ends within
# the budget plus its longest sample (+1 s for the kill and the store). The
# budget: LVD_REAL_FIRST_BUDGET seconds (default 300).
B2=${LVD_REAL_FIRST_BUDGET:-300}
t=$SECONDS
# at depth 0: the first-round win is on the empty-context tests (with depth arms it came in
# round 2 once under load: docs/testing.md, "Real engines")
run_lvd bench --model "$M" -p 16 -n 4 --depth 0 --budget "${B2}s" --json
expect_rc "lvd bench -p 16 -n 4 --budget ${B2}s (default -r)" 0
cp "$tmp/out" "$tmp/bench-first.json"
LONGEST="max([a['sample_max_ms'] for a in d['costs']['arms']] + [0])"
figure "lvd bench (default -r, --budget ${B2}s): wall $(q "'%.1f' % (d['wall_ms'] / 1000)") s, longest sample $(q "'%.1f' % ($LONGEST / 1000)") s, stop $(q "d['stop']"), $(q "d['rounds']") rounds; -r: $(q "', '.join('%s -r %d x %d' % (c['process'].split()[1].split('/')[-2], c['reps'], c['instances_per_arm']) for c in d['costs']['invocations'])")"
check "the session ended within the budget plus its longest sample (+1 s)" \
  is "d['wall_ms'] <= $B2 * 1000 + $LONGEST + 1000" True
TG1="[t for t in d['tests'] if t['test'] == 'tg4'][0]"
if [ "$N_SOFT" -gt 0 ] && [ "$(q "sorted(set(a['backend'] for a in d['arms']))")" = "['cpu', 'vulkan']" ]; then
  check "tg4: a win for the CPU build over the software Vulkan device, within the first round" \
    is "(${TG1}['state'], d['arms'][${TG1}['leader']]['backend'], d['rounds'])" "('win', 'cpu', 1)"
else
  note "not a CPU build against a software Vulkan device only: the first-round win is not asserted"
fi

# ------------------------------------------------------------ nightly
step "nightly"
# One night on a second private store, as a box without network runs it: fetch
# off, no candidate, the engines found by its own discover step through
# LVD_ENGINE_REAL<i>; then check, bench (a smaller budget), select, pin,
# evidence, each as its own process. The night ends 0, every step but pin 0
# (pin: no candidate), and the page names the engines and shows the line the
# night's verdict gives.
N=$tmp/night
mkdir -p "$N"
cp "$LVD_SOURCE/share/pin.default" "$N/pin.conf"
cat > "$N/nightly.conf" <<EOF2
model = $M
pin_file = pin.conf
candidate = none
fetch = off
promote = off
tests = pp16,tg4
ctx = 512
reps = 5
budget = ${LVD_REAL_NIGHTLY_BUDGET:-60s}
builds_dir = builds
evidence = evidence/page.md
log = nightly.log
EOF2
t=$SECONDS
capture env "${envs[@]}" LVD_STORE="$N/store.db" timeout -k 10 900 "$LVD_BIN/lvd" nightly --config "$N/nightly.conf" --json
expect_rc "lvd nightly (fetch off, no candidate, discover through LVD_ENGINE_*)" 0
[ "$rc" -eq 0 ] || { cat "$tmp/out"; tail -40 "$N/nightly.log"; }
figure "lvd nightly: $((SECONDS - t)) s; step exit (time): $(q "', '.join('%s %s (%.1f s)' % (s['step'], s['exit'], s['ms'] / 1000) for s in d['steps'])")"
check "nightly: exit 0, every step but pin exited 0" \
  is "(d['exit'], sorted(set(s['exit'] for s in d['steps'] if s['step'] != 'pin')))" "(0, [0])"
# pin has no candidate to weigh (candidate = none): it says so, and the night is not failed for it
check "nightly: pin keeps the pin: no candidate measured" \
  is "[s['outcome'].startswith('no candidate measured') for s in d['steps'] if s['step'] == 'pin']" "[True]"
for want in discover probe check bench select evidence; do
  check "nightly: a $want step ran" is "any(s['step'].split()[0] == '$want' for s in d['steps'])" True
done
check "nightly: its discover step registered the ${#E[@]} engine$plural" \
  is "[s['outcome'] for s in d['steps'] if s['step'] == 'discover']" \
  "['registered ${#E[@]} new engine$plural (${#E[@]} found, 0 already registered)']"
for i in "${!E[@]}"; do
  check "nightly page names ${NAME[i]} (${BCELL[i]})" grep -qF "${NAME[i]} (${BCELL[i]})" "$N/evidence/page.md"
done
capture env LVD_STORE="$N/store.db" "$LVD_BIN/lvd" select --model "$M"
check "nightly page shows the line lvd select gives on the night's store" \
  grep -qxF "  $(head -1 "$tmp/out")" "$N/evidence/page.md"

# ------------------------------------------------------------ the probe and the visibility variable
step "visibility"
# The probe cache is keyed by the visibility variables: a probe without
# GGML_VK_VISIBLE_DEVICES is another probe (never served from the cache made
# with it) and sees what the engine lists itself without it; a second one is
# served from its own cache; back with the variable, the first cache answers.
# A GPU build that lists no device without it says so (no_device).
capture env -u GGML_VK_VISIBLE_DEVICES "$LVD_BIN/lvd" probe --json
expect_rc "lvd probe without GGML_VK_VISIBLE_DEVICES" 0
for i in "${!E[@]}"; do
  p="[p for p in d['probes'] if p['engine'] == '${NAME[i]}'][0]"
  check "without the variable: ${NAME[i]} is probed again (not the cache made with it), env {}, its own list ($(sel_list "${DEV_NOVIS[i]}"))" \
    is "(${p}['cached'], ${p}['env'], [[x['selector'], x['name']] for x in ${p}['devices']])" \
    "(False, {}, $(python3 -c 'import sys; print([l.split("|")[:2] for l in sys.argv[1].splitlines() if l])' "${DEV_NOVIS[i]}"))"
  check "without the variable: ${NAME[i]} carries its backends (cpu${LIBS[i]:+ ${LIBS[i]}})" \
    is "sorted(set(${p}['backends']) - {'cpu'})" "$(want_backends "${LIBS[i]}")"
  if [ -n "${LIBS[i]}" ] && [ -z "${DEV_NOVIS[i]}" ]; then
    check "without the variable: ${NAME[i]} says $(no_device_text "${LIBS[i]}"), backend cpu" \
      is "(${p}['no_device'], ${p}['backend'])" "('$(no_device_text "${LIBS[i]}")', 'cpu')"
  fi
done
capture env -u GGML_VK_VISIBLE_DEVICES "$LVD_BIN/lvd" probe
if grep -q "backend present, no" "$tmp/out"; then
  check "the table without the variable shows the note" grep -qE '^ +note: [A-Za-z]+ backend present, no [A-Za-z]+ device \(driver missing\?\)$' "$tmp/out"
fi
capture env -u GGML_VK_VISIBLE_DEVICES "$LVD_BIN/lvd" probe --json
check "without the variable again: every engine served from its own cache" is "[p['cached'] for p in d['probes']]" \
  "$(python3 -c "print([True] * ${#E[@]})")"
run_lvd probe --json
for i in "${!E[@]}"; do
  p="[p for p in d['probes'] if p['engine'] == '${NAME[i]}'][0]"
  check "back with $VIS: ${NAME[i]} served from the cache made with it ($(sel_list "${DEV_VIS[i]}"))" \
    is "(${p}['cached'], ${p}['env'], [x['selector'] for x in ${p}['devices']])" \
    "(True, {'GGML_VK_VISIBLE_DEVICES': '$GGML_VK_VISIBLE_DEVICES'}, $(python3 -c 'import sys; print(sys.argv[1].split())' "$(sel_list "${DEV_VIS[i]}")"))"
done

# ------------------------------------------------------------ an engine is every file it loads
step "identity"
# The launchers (llama-bench, llama-server: 18 KB each) hold no engine code;
# the libraries do. A copy of the CPU-only build (else the first) is
# registered on a store of its own and gets a verdict; then one byte is
# appended to its libggml-cpu.so.0 (new size and mtime, still loadable).
src=${E[0]} srci=0
for i in "${!E[@]}"; do if [ -z "${LIBS[i]}" ]; then src=${E[i]} srci=$i; break; fi; done
C="$tmp/engine copy"
cp -r "$src" "$C" && chmod -R u+w "$C"
C=$(realpath "$C")
# set_digest: the registered digest by its definition (man lvd-fetch, engine/files.h):
# sha256sum over the file set (the launchers, every *.so and *.so.* of the
# folder; a symlink, as libggml-cpu.so -> libggml-cpu.so.0.21.0 of a build's
# bin/, counts as the file it points at), bytewise order
set_digest() {
  (cd "$C" && find -L . -maxdepth 1 -type f \( -name 'llama-bench' -o -name 'llama-server' -o -name 'llama-perplexity' \
    -o -name 'llama-cli' -o -name '*.so' -o -name '*.so.*' \) -printf '%f\n' | LC_ALL=C sort |
    xargs -d '\n' sha256sum | sha256sum | cut -d' ' -f1)
}
IDS=(env LVD_STORE="$tmp/ident.db")
capture "${IDS[@]}" "$LVD_BIN/lvd" fetch --register "$C" --build "${BUILD[srci]}" --name copy --json
expect_rc "register a copy of ${E[srci]}" 0
digest=$(q "d['engine']['digest']")
check "its digest is over the whole file set ($(q "d['probe']['n_files']") files), as sha256sum gives it" test "$digest" = "$(set_digest)"
# the library changed, and the name lvd gives it: the first of its names
# (the file and its symlinks) in the set's bytewise order
lib=$(find "$C" -maxdepth 1 -name 'libggml-cpu.so*' -type f | head -1)
[ -n "$lib" ] || lib=$(find "$C" -maxdepth 1 -name 'libggml*.so*' -type f | head -1)
L=$(cd "$C" && for f in libggml*.so*; do [ "$(realpath "$f")" = "$(realpath "$lib")" ] && echo "$f"; done | LC_ALL=C sort | head -1)
capture "${IDS[@]}" "$LVD_BIN/lvd" probe --json
check "the copy: probe served from the cache registration made" is "d['probes'][0]['cached']" True
capture "${IDS[@]}" timeout -k 10 300 "$LVD_BIN/lvd" check --model "$M" --json
expect_rc "the copy: lvd check" 0
capture "${IDS[@]}" timeout -k 10 300 "$LVD_BIN/lvd" bench --model "$M" -p 16 -n 4 -r 3 --budget 30s --json
expect_rc "the copy: lvd bench" 0
capture "${IDS[@]}" "$LVD_BIN/lvd" select --model "$M" --record --json
expect_rc "the copy: a verdict" 0
check "the copy: decided by its verdict" is "(d['rule'], d['engine'])" "('verdict', 'copy')"
printf '\0' >> "$lib"
# before the probe asks again, select serves nothing from the changed files
capture "${IDS[@]}" "$LVD_BIN/lvd" select --model "$M" --explain
check "after $L changed: select refuses the engine until it is probed again, naming the file (exit $rc)" \
  grep -qF "copy: $L changed since the last probe (size)" "$tmp/err"
capture "${IDS[@]}" "$LVD_BIN/lvd" probe --json
check "after $L changed: lvd probe asks again and names the file" \
  is "(d['probes'][0]['cached'], d['probes'][0]['reprobed_because'])" "(False, '$L changed since the last probe (size)')"
capture "${IDS[@]}" "$LVD_BIN/lvd" fetch --register "$C" --build "${BUILD[srci]}" --json
expect_rc "register the copy again" 0
check "the registered digest changed (${digest:0:12}… -> $(q "d['engine']['digest'][:12]")…), and is the file set's" \
  is "(d['engine']['digest'] != '$digest', d['engine']['digest'])" "(True, '$(set_digest)')"
capture "${IDS[@]}" "$LVD_BIN/lvd" select --model "$M" --explain --json
expect_rc "the copy: select after the change" 0
check "the verdict is stale in --explain, naming $L; the next rule decides" \
  is "(any(\"is stale: engine copy: $L changed since the verdict (size)\" in e for e in d['explain']), d['rule'] != 'verdict')" "(True, True)"

# ------------------------------------------------------------ a split model
step "split"
# small-llama-q8_0 in 3 shards (tests/common/test_split.c's splitter, laid out as
# gguf-split lays them out; LVD_SPLIT_KEEP leaves them in a folder): one
# artifact whose identity is the SHA-256 of its shards' digests, the single
# file's shape; benched and served by the real CPU build from its first shard.
SP="$tmp/split dir"
mkdir -p "$SP"
: "${LVD_TEST_BIN:=$LVD_BIN/../tests}"
capture env LVD_SPLIT_KEEP="$SP" LVD_SOURCE="$LVD_SOURCE" LVD_FIXTURES="$LVD_FIXTURES" "$LVD_TEST_BIN/test_split"
S1="$SP/small-00001-of-00003.gguf"
check "the shards are made (LVD_SPLIT_KEEP=DIR $LVD_TEST_BIN/test_split, exit $rc)" test -s "$S1" -a -s "$SP/small-00003-of-00003.gguf"
if [ -s "$S1" ]; then
  run_lvd store model "$M" --json
  single=$(q "(d['shape']['n_tensors'], d['shape']['n_block'], d['shape']['tensor_bytes'])")
  run_lvd store model "$SP/small-00002-of-00003.gguf" --json
  expect_rc "lvd store model (its second shard)" 0
  check "the split model is one artifact: identity the SHA-256 of its shards' digests, path the first shard" \
    is "(d['sha256'], d['path'])" "('$(for f in "$SP"/small-0000?-of-00003.gguf; do sha256sum "$f" | cut -d' ' -f1; done | sha256sum | cut -d' ' -f1)', '$S1')"
  check "its size is the shards' and its shape the single file's $single" \
    is "(d['size'], (d['shape']['n_tensors'], d['shape']['n_block'], d['shape']['tensor_bytes']))" \
    "($(cat "$SP"/small-0000?-of-00003.gguf | wc -c), $single)"
  cpu=${NAME[srci]}
  t=$SECONDS
  run_lvd bench --model "$S1" --engines "$cpu" -p 16 -n 4 -r 3 --budget 30s --json
  expect_rc "lvd bench of the split model on $cpu" 0
  figure "split: lvd bench on $cpu: $((SECONDS - t)) s, $(q "['%s %.2f t/s' % (t['test'], t['ranking'][0]['median']) for t in d['tests'] if t['ranking']]")"
  check "split: no run failed, every test ranked" \
    is "(d['runs']['failed'], all(len(t['ranking']) == 1 for t in d['tests']))" "(0, True)"
  run_lvd select --model "$SP/small-00003-of-00003.gguf" --record --json
  expect_rc "select --record for the split model (named by its last shard)" 0
  cp "$tmp/out" "$tmp/split.json"
  check "split: the verdict's line loads the first shard on $cpu" \
    is "(d['rule'], d['engine'], d['argv'][1:3])" "('verdict', '$cpu', ['-m', '$S1'])"
  run_lvd select --model "$S1"
  cp "$tmp/out" "$tmp/split.line"
  serve split "$tmp/split.line" "$tmp/split.json"
fi

# ------------------------------------------------------------ ik_llama.cpp's knobs as arms
for i in "${!E[@]}"; do
  [ "${FAMILY[i]}" = ik_llama.cpp ] || continue
  step "knobs"
  t=$SECONDS
  run_lvd bench --model "$M" --engines "${NAME[i]}" -p 16 -n 4 -c 512 -r 3 -fmoe 0,1 -rtr 0,1 --budget 60s --json
  expect_rc "lvd bench -fmoe 0,1 -rtr 0,1 on ${NAME[i]}" 0
  figure "knobs: lvd bench on ${NAME[i]}: $((SECONDS - t)) s, $(q "['%s %s %.2f t/s' % (t['test'], d['arms'][t['ranking'][0]['arm']]['label'], t['ranking'][0]['median']) for t in d['tests'] if t['ranking'] and t['ranking'][0]['median'] is not None]")"
  check "knobs: one arm per value of each, none failed" \
    is "(sorted(a['label'].split(' ', 2)[2] for a in d['arms']), d['runs']['failed'])" \
    "(['fmoe=0 rtr=0', 'fmoe=0 rtr=1', 'fmoe=1 rtr=0', 'fmoe=1 rtr=1'], 0)"
  # what each process ran with, as ik's llama-bench reported it: the arm's values
  check "knobs: each run reported the values its arm asked" test "$(sqlite3 "$LVD_STORE" "SELECT count(*) FROM runs u
    JOIN results r ON r.run_id = u.id JOIN reported_heads h ON h.id = r.reported_head
    WHERE u.p_repack IS NOT NULL AND u.status = 'ok' AND (instr(h.head, '\"repack\":' || CASE u.p_repack WHEN 1
    THEN 'true' ELSE 'false' END) = 0 OR instr(h.head, '\"fused_moe\":' || CASE u.p_fused_moe WHEN 1 THEN 'true'
    ELSE 'false' END) = 0)")" = 0
  run_lvd select --model "$M" --record --json
  expect_rc "select --record after the knobs" 0
  cp "$tmp/out" "$tmp/knobs.json"
  run_lvd select --model "$M"
  cp "$tmp/out" "$tmp/knobs.line"
  figure "knobs: $(cat "$tmp/knobs.line")"
  serve knobs "$tmp/knobs.line" "$tmp/knobs.json"
  break
done

# ------------------------------------------------------------ context ceilings (tests/real/fit.sh)
. "$(dirname "$0")/fit.sh"

figure "tests/real: ${#E[@]} engines, model $(basename "$M"), $((SECONDS - T0)) s"
e2e_finish
