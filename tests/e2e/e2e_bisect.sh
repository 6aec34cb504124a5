#!/usr/bin/env bash
# e2e_bisect.sh: lvd bisect end to end (man lvd-bisect) on a loopback
# release server (tests/support/httpd.py) with builds b100..b131, each the fake engine
# with its own scenario: b117 makes tg 10 % slower. Cases:
#   clean: b117 found in at most log2(32) + 1 = 6 downloads, commits and the
#     compare link reported, bench dirs removed (kept with --keep);
#   faults: b115 publishes a lying digest (skipped, its reason said), b122 sits
#     between good and bad (-5 %: skipped as between), b117 still found;
#   resume: the hunt interrupted by a download failure, rerun: the steps
#     already measured are not redone.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_SOURCE LVD_FAKE_ENGINE
export XDG_DATA_HOME="$tmp/xdg" LVD_HOST=e2e-box
FLAVOUR=bin-ubuntu-vulkan-x64
SRV="$tmp/srv"
mkdir -p "$SRV/files"
echo '{}' >"$SRV/faults.json"
MODEL="$tmp/tiny.gguf"
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$MODEL"

# build TAG TG: a release archive whose engine is the fake with that decode speed
build() {
    fake_release "$SRV" "$1" $FLAVOUR "device = Vulkan0|NVIDIA GeForce RTX 3060|12288|11000" \
        "cpu.pp = 400" "cpu.tg = 50" "dev.Vulkan0.pp = 5000" "dev.Vulkan0.tg = $2" "noise = 0.002"
}
# releases [LIAR]: b131 .. b100 (newest first); LIAR's digest is wrong
releases() { fake_releases_json "$SRV" $FLAVOUR "${1:-}" $(seq -f 'b%g' 131 -1 100); }
for n in $(seq 100 131); do
    if [ $n -lt 117 ]; then build b$n 500; else build b$n 450; fi
done
releases
start_httpd "$SRV"
export LVD_RELEASES_API="http://127.0.0.1:$HTTPD_PORT/api" LVD_RELEASES_DOWNLOAD="http://127.0.0.1:$HTTPD_PORT/download"

# hunt NAME ARGS...: a fresh store and builds dir with good and bad fetched, then lvd bisect
hunt_world() {
    export LVD_STORE="$tmp/$1.db" LVD_BUILDS_DIR="$tmp/$1-builds"
    "$LVD_BIN/lvd" fetch b100 --flavour $FLAVOUR >/dev/null 2>&1 || fail "$1: fetch b100"
    "$LVD_BIN/lvd" fetch b131 --flavour $FLAVOUR >/dev/null 2>&1 || fail "$1: fetch b131"
}
bisect() { lvd bisect --good b100 --bad b131 -m "$MODEL" --flavour $FLAVOUR --test tg128 --budget 10m --json "$@"; }

# --- clean ---------------------------------------------------------------------
hunt_world clean
bisect
cat "$tmp/err"
expect_rc "clean: exit 0" 0
check "clean: first bad b117, last good b116" is "d['first_bad'] + ' ' + d['last_good']" "b117 b116"
check "clean: at most log2(32) + 1 = 6 downloads" is "d['downloads'] <= 6 and d['downloads'] == len(d['steps'])" True
check "clean: 30 candidates between" is "d['candidates']" 30
check "clean: commits" is "d['good_commit'] + ' ' + d['bad_commit']" "c0ffee116 c0ffee117"
check "clean: compare link" is "d['compare']" "https://github.com/ggml-org/llama.cpp/compare/b116...b117"
check "clean: boundary ratio about -10 % with its CI" is \
    "0.88 < d['ratio'] < 0.92 and d['ci'][0] <= d['ratio'] <= d['ci'][1]" True
check "clean: nothing skipped" is "len(d['skipped'])" 0
check "clean: every step has figures" is "all(s['vs_good'] and s['vs_bad'] for s in d['steps'])" True
left=$(ls "$LVD_BUILDS_DIR")
[ "$left" = "$(printf 'b100-bin-ubuntu-vulkan-x64\nb131-bin-ubuntu-vulkan-x64')" ] && ok "clean: fetched bench dirs removed, good and bad kept" \
    || fail "clean: bench dirs left: $left"
# a rerun is served from the store: nothing downloaded, same answer
bisect
check "clean: rerun resumes every step" is "(d['first_bad'], d['downloads'], d['resumed'])" "('b117', 0, $(q "len(d['steps'])"))"

# --- faults: a lying digest, a build between ---------------------------------
build b122 475
releases b115
hunt_world faults
bisect --keep
cat "$tmp/err"
expect_rc "faults: exit 0" 0
check "faults: first bad still b117" is "d['first_bad']" b117
check "faults: b115 skipped as not verified" is \
    "[s['reason'][:12] for s in d['skipped'] if s['build'] == 'b115']" "['not verified']"
check "faults: b122 skipped as between" is \
    "[s['reason'][:7] for s in d['skipped'] if s['build'] == 'b122']" "['between']"
check "faults: within 6 downloads with the skips" is "d['downloads'] <= 6" True
[ -d "$LVD_BUILDS_DIR/b114-bin-ubuntu-vulkan-x64" ] && ok "faults: --keep keeps the bench dirs" || fail "faults: --keep removed them"
[ ! -e "$LVD_BUILDS_DIR/b115-bin-ubuntu-vulkan-x64" ] && ok "faults: the unverified build left nothing" || fail "faults: b115 landed"

# --- resume: interrupted by a download failure, rerun --------------------------
# b110 a prerelease, b111 without the flavour's asset: neither is a candidate
python3 - "$SRV/releases.json" <<'PY'
import json, sys
rels = json.load(open(sys.argv[1]))
for r in rels:
    if r["tag_name"] == "b110":
        r["prerelease"] = True
    if r["tag_name"] == "b111":
        r["assets"][0]["name"] = "llama-b111-bin-win-cpu-x64.zip"
json.dump(rels, open(sys.argv[1], "w"))
PY
hunt_world resume
echo '{"b117/llama-b117-'$FLAVOUR'.tar.gz": "500"}' >"$SRV/faults.json"
bisect
expect_rc "resume: a failed download interrupts the hunt (exit 7)" 7
has_err "interrupted|HTTP 500|500" && ok "resume: says why" || { cat "$tmp/err"; fail "resume: no reason"; }
done1=$(sqlite3 "$LVD_STORE" "SELECT count(*) FROM bisect_steps WHERE build NOT IN ('b100', 'b131')")
[ "$done1" -ge 3 ] && ok "resume: $done1 steps recorded before the interruption" || fail "resume: $done1 steps recorded"
echo '{}' >"$SRV/faults.json"
bisect
cat "$tmp/err"
expect_rc "resume: the rerun finishes" 0
check "resume: steps from the store not redone" is "d['resumed'] == $done1 and d['downloads'] == len(d['steps']) - $done1" True
check "resume: first bad b117" is "d['first_bad']" b117
check "resume: a prerelease and a build without the asset are no candidates" is "d['candidates']" 28

# --- usage ---------------------------------------------------------------------
lvd bisect --good b131 --bad b100 -m "$MODEL"
expect_rc "good newer than bad: usage" 2
lvd bisect --good b100 --bad b999 -m "$MODEL" --flavour $FLAVOUR
expect_rc "a bad build that is not released: usage" 2
has_err "b999" && ok "names the build" || fail "$(cat "$tmp/err")"
e2e_finish
