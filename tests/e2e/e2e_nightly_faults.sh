#!/usr/bin/env bash
# e2e_nightly_faults.sh: the nightly under faults (docs/nightly.md: partial nights, timeouts, the lock). Registered fake
# engines crash, hang, print garbage, ignore -ngl, or vanish after their probe;
# the release server drops the pinned download (night A) and serves a
# candidate whose bytes do not match its published digest (night B). Each night
# must finish what it can, record every failure with its reason, exit 5
# (partial), leave no process behind, and show the failures on the evidence
# page, while the healthy engines still get their verdict.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_SOURCE LVD_FAKE_ENGINE
export XDG_DATA_HOME="$tmp/xdg" LVD_STORE="$tmp/store.db" LVD_HOST=faults-box
FLAVOUR=bin-ubuntu-vulkan-x64

# registered fake engines (engine NAME LINES...: under $W, every one registers)
W="$tmp/engines"
REGISTER_OK=0
engine cpu "noise = 0.002" "cpu.tg = 50"
engine good "noise = 0.002" "device = CUDA0|NVIDIA GeForce RTX 4090|24564|23000|8.9" "dev.CUDA0.tg = 900"
engine crash "noise = 0.002" "device = CUDA0|NVIDIA GeForce RTX 4090|24564|23000|8.9" "bench.fault = crash"
engine hang "noise = 0.002" "device = CUDA0|NVIDIA GeForce RTX 4090|24564|23000|8.9" "bench.fault = hang" "hang_s = 120"
engine garbage "noise = 0.002" "device = CUDA0|NVIDIA GeForce RTX 4090|24564|23000|8.9" "bench.fault = garbage"
engine ignores "noise = 0.002" "device = Vulkan0|NVIDIA GeForce RTX 4090|24564|23000" "ignore_ngl = 1"
engine vanish "noise = 0.002" "device = CUDA0|NVIDIA GeForce RTX 4090|24564|23000|8.9"
"$LVD_BIN/lvd" probe >/dev/null 2>&1
rm -f "$tmp/engines/vanish/llama-bench" "$tmp/engines/vanish/llama-server"   # gone before the night

# the release server: pinned b300 (its download drops on night A), candidate
# b301 whose published digest is not its bytes
SRV="$tmp/srv"
mkdir -p "$SRV/files/b300" "$SRV/files/b301" "$tmp/pkg/llama-b300"
cp "$LVD_FAKE_ENGINE" "$tmp/pkg/llama-b300/llama-bench"
tar -C "$tmp/pkg" -czf "$SRV/files/b300/llama-b300-$FLAVOUR.tar.gz" llama-b300
cp "$SRV/files/b300/llama-b300-$FLAVOUR.tar.gz" "$SRV/files/b301/llama-b301-$FLAVOUR.tar.gz"
D300=$(sha256sum "$SRV/files/b300/llama-b300-$FLAVOUR.tar.gz" | cut -d' ' -f1)
WRONG=$(printf 'not the bytes' | sha256sum | cut -d' ' -f1)
rel() { printf '{"tag_name": "%s", "draft": false, "prerelease": false, "published_at": "2026-11-01T00:00:00Z", "assets": [{"name": "llama-%s-%s.tar.gz", "digest": "sha256:%s", "browser_download_url": "{base}/download/%s/llama-%s-%s.tar.gz"}]}' \
    "$1" "$1" "$FLAVOUR" "$2" "$1" "$1" "$FLAVOUR"; }
echo "[$(rel b301 "$WRONG"), $(rel b300 "$D300")]" >"$SRV/releases.json"
echo "{\"b300/llama-b300-$FLAVOUR.tar.gz\": \"drop\"}" >"$SRV/faults.json"
start_httpd "$SRV"
BASE="http://127.0.0.1:$HTTPD_PORT"
export LVD_RELEASES_DOWNLOAD="$BASE/download"

mkdir -p "$tmp/repo"
printf 'build = b300\nflavour = %s\nsha256.%s = %s\n' "$FLAVOUR" "$FLAVOUR" "$D300" >"$tmp/repo/pin.conf"
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$tmp/repo/model.gguf"
cat >"$tmp/repo/nightly.conf" <<CONF
model = model.gguf
pin_file = pin.conf
candidate = latest
min_age = 1h
budget = 1m
max_samples = 12
run_timeout = 5s
evidence = evidence.md
log = nightly.log
builds_dir = $tmp/builds
discover = off
CONF
PAGE="$tmp/repo/evidence.md"
LOG="$tmp/repo/nightly.log"

night() { # night DATE API-PATH
    LVD_RELEASES_API="$BASE/$2" LVD_FAKE_NOW=$(date -u -d "$1 03:00" +%s) \
        timeout 300 "$LVD_BIN/lvd" nightly --config "$tmp/repo/nightly.conf" >"$tmp/night.out" 2>&1
}

# --- night A: API answers 500, the pinned download drops ----------------------
night 2026-11-10 api-500; rc=$?
cat "$tmp/night.out"
[ $rc -eq 5 ] && ok "night A partial (exit 5)" || fail "night A exit $rc (want 5)"
grep -q "^offline: " "$tmp/night.out" && ok "a dropped download is said in one line" || fail "no line about the dropped download"
[ -z "$(ls "$tmp/builds" 2>/dev/null)" ] && ok "no half bench dir" || fail "builds dir holds: $(ls -a "$tmp/builds")"

# --- night B: pinned fetched, the candidate's bytes are wrong -----------------
echo '{}' >"$SRV/faults.json"
night 2026-11-11 api; rc=$?
cat "$tmp/night.out"
[ $rc -eq 5 ] && ok "night B partial (exit 5)" || fail "night B exit $rc (want 5)"
grep -q "fetch candidate.*exit 6" "$tmp/night.out" && ok "wrong candidate bytes refused (exit 6)" \
    || fail "candidate step: $(grep 'fetch candidate' "$tmp/night.out")"
[ ! -e "$tmp/builds/b301-$FLAVOUR" ] && ok "no bench dir for the unverified build" || fail "b301 was unpacked"

# --- what was recorded and shown ------------------------------------------------
runs=$("$LVD_BIN/lvd" store runs --limit 0 --json)
for want in crash hang garbage; do
    echo "$runs" | python3 -c "
import json, sys
runs = json.load(sys.stdin)
bad = [r for r in runs if r['engine'] == '$want' and r['status'] == 'failed' and r.get('reason')]
sys.exit(0 if bad else 1)" && ok "$want: failed run recorded with its reason" || fail "$want: no failed run with a reason"
done
echo "$runs" | python3 -c "
import json, sys
runs = json.load(sys.stdin)
sys.exit(0 if any(r['engine'] == 'ignores' and r['status'] == 'gpu_ignored' for r in runs) else 1)" \
    && ok "ignored -ngl recorded as gpu_ignored" || fail "no gpu_ignored run for 'ignores'"
grep -q "vanish.*unknown\|unknown.*vanish" "$LOG" && ok "the vanished engine is unknown, with its reason" \
    || fail "vanished engine not reported: $(grep -n vanish "$LOG" | head -3)"
# the failed arms' own lines (the verdict's explanation also says "timed out",
# "signal" and "GPU flags ignored": a bare word proves nothing)
shows_hang() { grep -qE '^- cuda hang · CUDA0, ngl 99, fa [01] \(hang\): failed: timed out after [0-9]+ ms' "$1"; }
shows_crash() { grep -qE '^- cuda crash · CUDA0, ngl 99, fa [01] \(crash\): failed: killed by signal 11' "$1"; }
shows_ignored() { grep -qE '^- vulkan · Vulkan0, ngl 99, fa [01] \(ignores\): GPU flags ignored: asked -dev Vulkan0 -ngl 99, llama-bench reported backends "CPU"' "$1"; }
shows_hang "$PAGE" && ok "page shows the hang (timed out)" || fail "page lacks the hang's line"
shows_crash "$PAGE" && ok "page shows the crash" || fail "page lacks the crash's line"
shows_ignored "$PAGE" && ok "page shows ignored GPU flags" || fail "page lacks the gpu_ignored line"
grep -v '^- ' "$PAGE" >"$tmp/page-without-arms.md"
for a in hang crash ignored; do
    shows_$a "$tmp/page-without-arms.md" && fail "shows_$a passes on a page without the failed arms' lines" \
        || ok "shows_$a fails on a page without the failed arms' lines"
done
# the verdict is the good engine's, and its row carries the verdict's star
# (fa 0 and fa 1 tie: either may rank first, so not its rank)
grep -qE '^\*\*Verdict:\*\* cuda good · CUDA0, ngl 99, fa [01] \(rule ' "$PAGE" &&
    grep -qE '^\| ([0-9]+|–) ★ \| cuda good · CUDA0, ngl 99, fa [01] \| good \(b9749\) \|' "$PAGE" &&
    ok "the healthy GPU engine still has its verdict" || fail "verdict: $(grep -n 'Verdict' "$PAGE")"
pgrep -f "$tmp/engines" >/dev/null && fail "engine processes left running: $(pgrep -af "$tmp/engines")" \
    || ok "no engine process left behind"
grep -q "^build = b300$" "$tmp/repo/pin.conf" && ok "pin unchanged" || fail "pin changed"

[ "$fails" -eq 0 ] || { echo "--- log tail"; tail -80 "$LOG"; }
e2e_finish
