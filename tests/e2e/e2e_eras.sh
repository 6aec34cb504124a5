#!/usr/bin/env bash
# e2e_eras.sh: engines of every llama.cpp era through lvd probe --discover,
# lvd fetch --register and lvd probe, on real captured output: each engine
# here is a script replaying a real build's own answers from
# tests/fixtures/llama.cpp/ (`--version`, `--list-devices` of llama-server and
# llama-bench, exit statuses included), and the fake engine where a case has
# no capture (a Mac's BLAS device). Cases:
#   b4547 (Jan 2025): `version: 4547 (c5d9effb4)`; its llama-bench has no
#     --list-devices, its llama-server prints "Available devices:" and nothing:
#     a CPU engine, "b4547-cpu"; with a CUDA backend among its files that
#     listed no device, "backend present, no device" and named b4547-cuda;
#   b10587 (the SemVer era): `version: 0.2.0-dev (build 10587, commit
#     3f545becc)`: named b10587-cpu from its own --version, registered
#     without --build with its commit and version; its Vulkan build, lavapipe
#     hidden, is b10587-vulkan with the no-device note;
#   a host accelerator (BLAS: Accelerate) is no device: a CPU engine, and
#     lvd bench passes it no GPU flag;
#   a version line no form reads: one line quoting it, exit 3, nothing
#     registered; discovery calls the engine unidentified, quoting it.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FIXTURES LVD_FAKE_ENGINE LVD_SOURCE
export LVD_STORE="$tmp/store.db" XDG_DATA_HOME="$tmp/xdg" LVD_DISCOVER_PLACES= LVD_BUILDS_DIR="$tmp/none"
unset GGML_VK_VISIBLE_DEVICES
FX="$LVD_FIXTURES/llama.cpp"

# replay DIR CAPTURES [BENCH_LIST]: DIR holds llama-server and llama-bench
# scripts answering --version and --list-devices with the captures in
# CAPTURES (server-version, server-list-devices; llama-bench's
# --list-devices: BENCH_LIST, default list-devices), stdout, stderr and exit
# status as the real build printed them
replay() {
    local d=$1 c=$2 bl=${3:-list-devices} t
    mkdir -p "$d"
    for t in llama-server llama-bench; do
        local list=server-list-devices
        [ $t = llama-bench ] && list=$bl
        cat >"$d/$t" <<EOF
#!/bin/sh
case "\$*" in
--version) n=server-version ;;
--list-devices) n=$list ;;
*) echo "replay: no capture for \$*" >&2; exit 99 ;;
esac
[ $t = llama-bench ] && [ "\$n" = server-version ] && { echo "error: invalid parameter for argument: --version" >&2; exit 1; }
cat "$c/\$n.stdout"; cat "$c/\$n.stderr" >&2; exit \$(cat "$c/\$n.exit")
EOF
        chmod +x "$d/$t"
    done
}
# no_device WHAT DIR CAPTURES BACKEND FOUND: DIR replays CAPTURES (which
# list no device) beside a libggml-BACKEND.so; a dry-run discovery of DIR
# finds FOUND, its (name, backend, no_device)
no_device() {
  replay "$tmp/$2/bin" "$FX/$3"
  printf 'not really a library\n' >"$tmp/$2/bin/libggml-$4.so"
  lvd probe --discover "$tmp/$2/bin" --dry-run --json
  check "$1" is "[(f['name'], f['backend'], f['no_device']) for f in d['found'] if f['path'].endswith('$2/bin')]" "$5"
}
engines() { "$LVD_BIN/lvd-store" info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["counts"]["engines"])'; }

# --- b4547: the empty device list of llama-server before "(none)" -----------------------
replay "$tmp/b4547/bin" "$FX/cpu-build-b4547"
lvd probe --discover "$tmp/b4547/bin" --dry-run --json
expect_rc "discover b4547 (dry run)" 0
check "b4547: named b4547-cpu from its own --version, a CPU engine" is \
    "[(f['name'], f['build'], f['commit'], f['semver'], f['backend'], f['status']) for f in d['found']]" \
    "[('b4547-cpu', 'b4547', 'c5d9effb4', None, 'cpu', 'new')]"
lvd fetch --register "$tmp/b4547/bin" --json
expect_rc "register b4547 without --build" 0
check "b4547: registered as build b4547 with its commit, a CPU engine, no device" is \
    "(d['engine']['build'], d['engine']['commit'], d['probe']['backend'], len(d['probe']['devices']))" \
    "('b4547', 'c5d9effb4', 'cpu', 0)"
lvd probe --json
check "b4547: probed through its llama-server (its llama-bench has no --list-devices), cached" is \
    "[(p['backend'], p['reason'], p['cached']) for p in d['probes']]" "[('cpu', None, True)]"
# the same build with a CUDA backend among its files that listed no device
no_device "b4547 with a CUDA backend and no device: backend present, no device" b4547-cuda \
    cpu-build-b4547 cuda "[('b4547-cuda', 'cpu', 'CUDA backend present, no CUDA device (driver missing?)')]"

# --- b10587: the SemVer era's version line ----------------------------------------------
export LVD_STORE="$tmp/semver.db"
replay "$tmp/b10587/bin" "$FX/cpu-build-b10587"
lvd probe --discover "$tmp/b10587/bin" --dry-run --json
expect_rc "discover b10587 (dry run)" 0
check "b10587: named b10587-cpu from its SemVer version line" is \
    "[(f['name'], f['build'], f['commit'], f['semver'], f['backend']) for f in d['found']]" \
    "[('b10587-cpu', 'b10587', '3f545becc', '0.2.0-dev', 'cpu')]"
lvd fetch --register "$tmp/b10587/bin"
expect_rc "register b10587 without --build" 0
grep -q "^  build   b10587$" "$tmp/out" && grep -q "^  version 0.2.0-dev$" "$tmp/out" && grep -q "^  commit  3f545becc$" "$tmp/out" &&
    ok "b10587: registered with its build, version and commit" || fail "register b10587: $(cat "$tmp/out")"
lvd probe
grep -q "version: 0.2.0-dev" "$tmp/out" && ok "lvd probe shows the version" || fail "probe table: $(cat "$tmp/out")"
no_device "b10587 Vulkan, lavapipe hidden: b10587-vulkan, no Vulkan device" b10587-vk \
    vulkan-build-b10587 vulkan "[('b10587-vulkan', 'cpu', 'Vulkan backend present, no Vulkan device (driver missing?)')]"

# --- a host accelerator is no device ------------------------------------------------------
export LVD_STORE="$tmp/blas.db"
fake_engine "$tmp/blas" "device = BLAS|Accelerate|0|0" "build_number = 6600" "build_commit = 0badc0de"
lvd fetch --register "$tmp/blas" --json
expect_rc "register a build listing BLAS" 0
check "BLAS: Accelerate (0 MiB, 0 MiB free) is no device: a CPU engine" is \
    "(d['engine']['build'], d['probe']['backend'], len(d['probe']['devices']))" "('b6600', 'cpu', 0)"
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$tmp/tiny.gguf"
lvd bench -m "$tmp/tiny.gguf" --tests tg16 -r 2 --budget 60s
expect_rc "lvd bench on it" 0
grep -- "llama-bench" "$tmp/blas/calls.log" | grep -Eq -- "(-ngl|--n-gpu-layers|-dev|--device|-sm) " &&
    fail "GPU flags passed to a build whose only device is BLAS: $(grep llama-bench "$tmp/blas/calls.log")" ||
    ok "no GPU flag passed to a build whose only device is BLAS"

# --- a version line no form reads ------------------------------------------------------
export LVD_STORE="$tmp/bad.db"
mkdir -p "$tmp/bad"
printf '#!/bin/sh\necho "version: 0.4.1-dev build 10991" >&2\n' >"$tmp/bad/llama-server"
cp "$tmp/bad/llama-server" "$tmp/bad/llama-bench"
chmod +x "$tmp/bad/llama-server" "$tmp/bad/llama-bench"
expect_exit 3 "cannot tell its build: llama-server --version: unrecognised version line 'version: 0.4.1-dev build 10991'; give --build ID" \
    "$LVD_BIN/lvd" fetch --register "$tmp/bad"
[ "$(engines)" = 0 ] && ok "nothing registered" || fail "an engine was registered"
lvd probe --discover "$tmp/bad" --dry-run --json
check "discovery: unidentified, the line quoted" is "[(f['status'], f['reason']) for f in d['found']]" \
    "[('unidentified', \"cannot tell its build: llama-server --version: unrecognised version line 'version: 0.4.1-dev build 10991'\")]"
e2e_finish
