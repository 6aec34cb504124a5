#!/usr/bin/env bash
# e2e_nightly_faults.sh: the nightly under faults (issue 7). Registered fake
# engines crash, hang, print garbage, ignore -ngl, or vanish after their probe;
# the release server drops the pinned download (night A) and serves a
# candidate whose bytes do not match its published digest (night B). Each night
# must finish what it can, record every failure with its reason, exit 5
# (partial), leave no process behind, and show the failures on the evidence
# page, while the healthy engines still get their verdict.
set -uo pipefail
: "${LVD_BIN:?run through ctest}" "${LVD_SOURCE:?}" "${LVD_FAKE_ENGINE:?}" "${LVD_SHARED:?}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/lvd-e2e-faults-XXXXXX")
SERVER_PID=""
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; [ -n "${LVD_KEEP_TMP:-}" ] || rm -rf "$TMP"; }
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
export XDG_DATA_HOME="$TMP/xdg" LVD_STORE="$TMP/store.db" NO_COLOR=1 LVD_NO_PROGRESS=1 LVD_HOST=faults-box
FLAVOUR=bin-ubuntu-vulkan-x64

# engine NAME SCENARIO-LINES...: a registered fake engine
engine() {
    local name=$1 dir="$TMP/engines/$1"
    shift
    mkdir -p "$dir"
    for p in llama-bench llama-server llama-perplexity; do ln -s "$LVD_FAKE_ENGINE" "$dir/$p"; done
    printf '%s\n' "noise = 0.002" "$@" >"$dir/fake-scenario"
    "$LVD_BIN/lvd" fetch --register "$dir" --build b9749 --name "$name" >/dev/null 2>&1 \
        || fail "register $name"
}
engine cpu "cpu.tg = 50"
engine good "device = CUDA0|NVIDIA GeForce RTX 4090|24564|23000|8.9" "dev.CUDA0.tg = 900"
engine crash "device = CUDA0|NVIDIA GeForce RTX 4090|24564|23000|8.9" "bench.fault = crash"
engine hang "device = CUDA0|NVIDIA GeForce RTX 4090|24564|23000|8.9" "bench.fault = hang" "hang_s = 120"
engine garbage "device = CUDA0|NVIDIA GeForce RTX 4090|24564|23000|8.9" "bench.fault = garbage"
engine ignores "device = Vulkan0|NVIDIA GeForce RTX 4090|24564|23000" "ignore_ngl = 1"
engine vanish "device = CUDA0|NVIDIA GeForce RTX 4090|24564|23000|8.9"
"$LVD_BIN/lvd" probe >/dev/null 2>&1
rm -f "$TMP/engines/vanish/llama-bench" "$TMP/engines/vanish/llama-server"   # gone before the night

# the release server: pinned b300 (its download drops on night A), candidate
# b301 whose published digest is not its bytes
SRV="$TMP/srv"
mkdir -p "$SRV/files/b300" "$SRV/files/b301" "$TMP/pkg/llama-b300"
cp "$LVD_FAKE_ENGINE" "$TMP/pkg/llama-b300/llama-bench"
tar -C "$TMP/pkg" -czf "$SRV/files/b300/llama-b300-$FLAVOUR.tar.gz" llama-b300
cp "$SRV/files/b300/llama-b300-$FLAVOUR.tar.gz" "$SRV/files/b301/llama-b301-$FLAVOUR.tar.gz"
D300=$(sha256sum "$SRV/files/b300/llama-b300-$FLAVOUR.tar.gz" | cut -d' ' -f1)
WRONG=$(printf 'not the bytes' | sha256sum | cut -d' ' -f1)
rel() { printf '{"tag_name": "%s", "draft": false, "prerelease": false, "published_at": "2026-11-01T00:00:00Z", "assets": [{"name": "llama-%s-%s.tar.gz", "digest": "sha256:%s", "browser_download_url": "{base}/download/%s/llama-%s-%s.tar.gz"}]}' \
    "$1" "$1" "$FLAVOUR" "$2" "$1" "$1" "$FLAVOUR"; }
echo "[$(rel b301 "$WRONG"), $(rel b300 "$D300")]" >"$SRV/releases.json"
echo "{\"b300/llama-b300-$FLAVOUR.tar.gz\": \"drop\"}" >"$SRV/faults.json"
python3 "$LVD_SOURCE/tests/httpd.py" --dir "$SRV" >"$TMP/port" 2>"$TMP/httpd.log" &
SERVER_PID=$!
for _ in $(seq 1 200); do [ -s "$TMP/port" ] && break; sleep 0.05; done
BASE="http://127.0.0.1:$(head -1 "$TMP/port")"
export LVD_RELEASES_DOWNLOAD="$BASE/download"

mkdir -p "$TMP/repo"
printf 'build = b300\nflavour = %s\nsha256.%s = %s\n' "$FLAVOUR" "$FLAVOUR" "$D300" >"$TMP/repo/pin.conf"
cp "$LVD_SHARED/models/tiny-llama-q4_0.gguf" "$TMP/repo/model.gguf"
cat >"$TMP/repo/nightly.conf" <<CONF
model = model.gguf
pin_file = pin.conf
candidate = latest
min_age = 1h
budget = 1m
max_samples = 12
run_timeout = 3s
evidence = evidence.md
log = nightly.log
builds_dir = $TMP/builds
CONF
PAGE="$TMP/repo/evidence.md"
LOG="$TMP/repo/nightly.log"

night() { # night DATE API-PATH
    LVD_RELEASES_API="$BASE/$2" LVD_FAKE_NOW=$(date -u -d "$1 03:00" +%s) \
        timeout 300 "$LVD_BIN/lvd" nightly --config "$TMP/repo/nightly.conf" >"$TMP/night.out" 2>&1
}

# --- night A: API answers 500, the pinned download drops ----------------------
night 2026-11-10 api-500; rc=$?
cat "$TMP/night.out"
[ $rc -eq 5 ] && ok "night A partial (exit 5)" || fail "night A exit $rc (want 5)"
grep -q "^offline: " "$TMP/night.out" && ok "a dropped download is said in one line" || fail "no line about the dropped download"
[ -z "$(ls "$TMP/builds" 2>/dev/null)" ] && ok "no half bench dir" || fail "builds dir holds: $(ls -a "$TMP/builds")"

# --- night B: pinned fetched, the candidate's bytes are wrong -----------------
echo '{}' >"$SRV/faults.json"
night 2026-11-11 api; rc=$?
cat "$TMP/night.out"
[ $rc -eq 5 ] && ok "night B partial (exit 5)" || fail "night B exit $rc (want 5)"
grep -q "fetch candidate.*exit 6" "$TMP/night.out" && ok "wrong candidate bytes refused (exit 6)" \
    || fail "candidate step: $(grep 'fetch candidate' "$TMP/night.out")"
[ ! -e "$TMP/builds/b301-$FLAVOUR" ] && ok "no bench dir for the unverified build" || fail "b301 was unpacked"

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
grep -qi "timed out" "$PAGE" && ok "page shows the hang (timed out)" || fail "page lacks the hang"
grep -qi "signal" "$PAGE" && ok "page shows the crash" || fail "page lacks the crash"
grep -qi "GPU flags ignored" "$PAGE" && ok "page shows ignored GPU flags" || fail "page lacks gpu_ignored"
grep -q '^\*\*Verdict:\*\* cuda' "$PAGE" && grep -q "good" "$PAGE" && ok "the healthy GPU engine still has its verdict" \
    || fail "verdict: $(grep -n 'Verdict' "$PAGE")"
pgrep -f "$TMP/engines" >/dev/null && fail "engine processes left running: $(pgrep -af "$TMP/engines")" \
    || ok "no engine process left behind"
grep -q "^build = b300$" "$TMP/repo/pin.conf" && ok "pin unchanged" || fail "pin changed"

if [ $failures -ne 0 ]; then
    echo "--- log tail"; tail -80 "$LOG"
    echo "$failures failed"; exit 1
fi
echo "e2e_nightly_faults: all passed"
