#!/usr/bin/env bash
# e2e_fetch.sh: lvd-fetch end to end against a real HTTP server on loopback
# (tests/support/httpd.py) serving a release JSON and archives it builds: every case of
# man lvd-fetch -- good tar.gz and zip, wrong bytes, pin vs API
# disagreement, API down or rate-limited with and without a pin, null digest,
# zip-slip / symlink / hardlink / absolute / device / huge archives, truncated,
# dropped and stalled downloads, 404s, TLS verification, disk full, --latest,
# GITHUB_TOKEN -- asserting exit codes, messages, and that no partial bench
# dir, temporary directory or download is ever left behind.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_SOURCE LVD_FIXTURES
FETCH="$LVD_BIN/lvd-fetch"

# the archives' llama-server / llama-bench answer --list-devices as the real
# Vulkan build did on the H200 (fixtures/llama.cpp/gpu-h200)
FIX="$LVD_FIXTURES/llama.cpp/gpu-h200"
cat >"$tmp/engine.sh" <<ENGINE
#!/bin/sh
if [ "\$1" = --list-devices ]; then
    cat "$FIX/vulkan-list-devices.stdout"
    cat "$FIX/vulkan-list-devices.stderr" >&2
    exit 0
fi
exit 0
ENGINE
start_httpd "$tmp/srv" --scenarios --token "tok-e2e-secret" --engine "$tmp/engine.sh"
PORT=$HTTPD_PORT
BASE="http://127.0.0.1:$PORT"
digest() { awk -v t="$1" -v f="$2" '$1 == t && index($2, f) {print $3; exit}' "$tmp/srv/digests.txt"; }
D100=$(digest b100 vulkan)
D101=$(digest b101 ubuntu-x64.zip)
D103=$(digest b103 vulkan)
[ ${#D100} -eq 64 ] && [ ${#D101} -eq 64 ] || { echo "no digests from httpd.py" >&2; exit 1; }
ZERO=0000000000000000000000000000000000000000000000000000000000000000

export LVD_RELEASES_API="$BASE/api"
export LVD_RELEASES_DOWNLOAD="$BASE/download"
export LVD_STORE="$tmp/store.db"
unset GITHUB_TOKEN LVD_PIN_FILE LVD_BUILDS_DIR
B="$tmp/builds"

# run NAME RC [ENV=V ...] -- ARGS...: runs lvd-fetch, checks the exit status;
# output lands in $tmp/out and $tmp/err.
run() {
    local name=$1 want=$2
    shift 2
    local envs=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    CASE=$name
    env "${envs[@]}" "$FETCH" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "$name: exit $rc, want $want"
        sed 's/^/    stdout: /' "$tmp/out" >&2
        sed 's/^/    stderr: /' "$tmp/err" >&2
    fi
}
out_has() { grep -qF -- "$1" "$tmp/out" || fail "$CASE: stdout lacks '$1'"; }
err_has() { grep -qF -- "$1" "$tmp/err" || { fail "$CASE: stderr lacks '$1'"; sed 's/^/    stderr: /' "$tmp/err" >&2; }; }
err_lacks() { ! grep -qF -- "$1" "$tmp/err" || fail "$CASE: stderr has '$1'"; }
# No temporary directory or download anywhere in the builds dir, ever.
clean() {
    [ -d "$B" ] || return 0
    local junk
    junk=$(find "$B" -maxdepth 1 -name '.tmp-*' -o -maxdepth 1 -name '.download-*')
    [ -z "$junk" ] || fail "$CASE: left behind: $junk"
}
# A failed fetch leaves no bench dir for its build.
absent() { clean; ! ls -d "$B/$1"-* >/dev/null 2>&1 || fail "$CASE: a bench dir for $1 remains"; }
present() {
    clean
    [ -f "$B/$1/$2/llama-server" ] && [ -x "$B/$1/$2/llama-server" ] ||
        fail "$CASE: $B/$1/$2/llama-server missing or not executable"
    [ -f "$B/$1/.lvd-fetch.json" ] || fail "$CASE: no manifest in $B/$1"
}

# --- good archives -------------------------------------------------------
run "good tar.gz, unpinned" 0 -- b100 --builds-dir "$B"
out_has "b100 bin-ubuntu-vulkan-x64: not pinned: verified against the digest the release API publishes"
out_has "sha256  $D100"
out_has "sha256.bin-ubuntu-vulkan-x64 = $D100"
present b100-bin-ubuntu-vulkan-x64 llama-b100
out_has "engine  b100-ubuntu-vulkan-x64 (id "
out_has "backend vulkan (1 device)"
# registered in the store, with the probe's answer cached there
"$LVD_BIN/lvd-probe" --all --json >"$tmp/probe.json" 2>"$tmp/err" || fail "lvd-probe --all failed"
python3 - "$tmp/probe.json" "$B" <<'PY' || fail "the fetched engine is not in the store as probed"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc if isinstance(doc, list) else doc.get("probes", doc.get("engines", []))
e = [r for r in rows if r["engine"] == "b100-ubuntu-vulkan-x64"][0]
assert e["dir"] == sys.argv[2] + "/b100-bin-ubuntu-vulkan-x64/llama-b100", e
assert e["build"] == "b100" and e["backend"] == "vulkan" and e["cached"], e
assert e["devices"][0]["selector"] == "Vulkan0", e
PY
# (python3's sqlite3, always there, not the sqlite3 CLI: a check that is never skipped)
row=$(python3 -c 'import sqlite3, sys
c = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
print(*c.execute("SELECT origin, flavour, digest FROM engines WHERE name = ?", (sys.argv[2],)).fetchall())' \
    "$LVD_STORE" b100-ubuntu-vulkan-x64)
[ "$row" = "('fetched', 'bin-ubuntu-vulkan-x64', '$D100')" ] || fail "engine row lacks origin, flavour or digest: $row"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["sha256"] == sys.argv[2]' \
    "$B/b100-bin-ubuntu-vulkan-x64/.lvd-fetch.json" "$D100" || fail "manifest does not record the digest"

run "already in place" 0 -- b100 --builds-dir "$B"
err_has "is already in place with sha256 $D100"
out_has "(already in place)"

cat >"$tmp/pin" <<PIN
# pinned for the test
build = b100
flavour = ubuntu-vulkan-x64
sha256.bin-ubuntu-vulkan-x64 = $D100
PIN
run "pinned, recorded and API agree" 0 -- --pin-file "$tmp/pin" --builds-dir "$B/p"
out_has "verified against the recorded digest and the release API's, which agree"
B="$B/p" present b100-bin-ubuntu-vulkan-x64 llama-b100

run "good zip (older releases), build/bin layout" 0 -- b101 --flavour ubuntu-x64 --builds-dir "$B"
out_has "asset   llama-b101-bin-ubuntu-x64.zip"
present b101-bin-ubuntu-x64 build/bin

run "--json" 0 -- b101 --flavour bin-ubuntu-x64 --builds-dir "$B" --json
python3 - "$tmp/out" "$D101" "$B" <<'PY' || fail "--json: unexpected document"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["sha256"] == sys.argv[2] and j["verified"] == "api" and j["reused"] is True, j
assert j["engine_dir"].endswith("/b101-bin-ubuntu-x64/build/bin"), j
assert j["engine"] == "b101-ubuntu-x64" and j["api"] == "ok" and j["recorded_sha256"] is None, j
PY

run "download redirected, as GitHub does" 0 -- b116 --builds-dir "$B"
present b116-bin-ubuntu-vulkan-x64 llama-b116

run "fetched, registered, the probe cannot ask it" 5 -- b121 --builds-dir "$B"
err_has "b121-ubuntu-vulkan-x64: the probe could not ask it for its devices"
out_has "backend unknown ("
present b121-bin-ubuntu-vulkan-x64 llama-b121
run "--no-probe" 0 -- b121 --builds-dir "$B" --no-probe
out_has "(already in place)"

# --- the verification rules ----------------------------------------------
sed "s/$D100/$ZERO/" "$tmp/pin" >"$tmp/pin-wrong"
run "pin disagrees with the API" 6 -- --pin-file "$tmp/pin-wrong" --builds-dir "$B/x"
err_has "recorded sha256 $ZERO in $tmp/pin-wrong, the release API publishes $D100: the asset behind the tag was replaced"
B="$B/x" absent b100

run "--expect disagrees with the API" 6 -- b100 --expect "sha256:$ZERO" --builds-dir "$B/x"
err_has "the asset behind the tag was replaced"
B="$B/x" absent b100

run "--expect disagrees with the pin" 6 -- b100 --pin-file "$tmp/pin" --expect "$ZERO" --builds-dir "$B/x"
err_has "--expect $ZERO disagrees with the digest $tmp/pin records for b100 bin-ubuntu-vulkan-x64"

run "wrong bytes (API digest)" 6 -- b102 --builds-dir "$B"
err_has "llama-b102-bin-ubuntu-vulkan-x64.tar.gz: the downloaded bytes have sha256"
err_has "nothing was kept"
absent b102

run "null digest, nothing recorded" 6 -- b103 --builds-dir "$B"
err_has "the release API publishes no digest for this asset and none is recorded: refusing an unverified build"
absent b103

run "null digest, recorded stands alone" 0 -- b103 --expect "$D103" --builds-dir "$B"
out_has "the release API publishes no digest for this asset: the recorded digest stands alone"
present b103-bin-ubuntu-vulkan-x64 llama-b103

run "API down, pinned: recorded stands alone" 0 LVD_RELEASES_API=http://127.0.0.1:1 -- \
    --pin-file "$tmp/pin" --builds-dir "$B/down"
err_has "release API: cannot reach 127.0.0.1:1"
err_has "the release API is unavailable: the recorded digest stands alone"
B="$B/down" present b100-bin-ubuntu-vulkan-x64 llama-b100

run "API down, no pin: refused" 6 LVD_RELEASES_API=http://127.0.0.1:1 -- b100 --builds-dir "$B/down2"
err_has "the release API is unavailable and no digest is recorded: refusing an unverified build"
B="$B/down2" absent b100

run "API rate-limited, pinned" 0 LVD_RELEASES_API="$BASE/api-ratelimit" -- \
    --pin-file "$tmp/pin" --builds-dir "$B/rl"
err_has "rate-limited (HTTP 403: API rate limit exceeded"
err_has "set GITHUB_TOKEN for a higher limit"
err_has "the release API is rate-limited: the recorded digest stands alone"
B="$B/rl" present b100-bin-ubuntu-vulkan-x64 llama-b100

run "API 429, no pin" 6 LVD_RELEASES_API="$BASE/api-429" -- b100 --builds-dir "$B/rl2"
err_has "the release API is rate-limited and no digest is recorded: refusing"
B="$B/rl2" absent b100

run "API 500, no pin" 6 LVD_RELEASES_API="$BASE/api-500" -- b100 --builds-dir "$B/rl2"
err_has "release API 127.0.0.1:$PORT: HTTP 500"
run "API answers garbage, no pin" 6 LVD_RELEASES_API="$BASE/api-garbage" -- b100 --builds-dir "$B/rl2"
err_has "release API: answer is not JSON"
B="$B/rl2" absent b100

run "API down, pinned, wrong bytes" 6 LVD_RELEASES_API=http://127.0.0.1:1 -- \
    b102 --expect "$D100" --builds-dir "$B"
err_has "expected $D100 (recorded); nothing was kept"
absent b102

cat >"$tmp/pin101" <<PIN
build = b101
flavour = ubuntu-x64
sha256.ubuntu-x64 = $D101
PIN
run "API down: .tar.gz 404, the older .zip found" 0 LVD_RELEASES_API=http://127.0.0.1:1 -- \
    --pin-file "$tmp/pin101" --builds-dir "$B/z"
out_has "asset   llama-b101-bin-ubuntu-x64.zip"
B="$B/z" present b101-bin-ubuntu-x64 build/bin

# --- hostile archives (their digests are right: the content is the problem) --
check_refused() {
    local build=$1 msg=$2
    run "hostile archive $build" 1 -- "$build" --builds-dir "$B/h"
    err_has "$msg"
    B="$B/h" absent "$build"
}
check_refused b104 "llama-b104-bin-ubuntu-vulkan-x64.zip: refusing entry llama-b104/../../evil: escapes the archive root"
check_refused b105 "refusing entry llama-b105/escape: symlink to ../../../../etc points outside the archive root"
check_refused b106 "absolute path"
check_refused b107 "refusing entry llama-b107/passwd: hardlink to ../../etc/passwd points outside the archive root"
check_refused b108 "refusing entry llama-b108/null: device file"
check_refused b109 "refusing entry llama-b109/huge: declares 1099511627776 bytes"
check_refused b114 "refusing entry llama-b114/moved: symlink to ../../LICENSE points outside"
check_refused b119 "holds no llama-server or llama-bench"
[ ! -e "$B/evil" ] && [ ! -e "$tmp/evil" ] && [ ! -e "$B/h/evil" ] || fail "zip-slip wrote outside"
ls /tmp/lvd-fetch-test-evil-* >/dev/null 2>&1 && fail "an absolute path was written"

# --- transfers that fail ----------------------------------------------------
run "truncated body" 7 -- b110 --builds-dir "$B"
err_has "download from 127.0.0.1:$PORT truncated: got"
absent b110
run "connection dropped mid-body" 7 -- b111 --builds-dir "$B"
err_has "connection to 127.0.0.1:$PORT dropped after"
absent b111
run "body shorter than the release lists" 7 -- b122 --builds-dir "$B"
err_has "download from 127.0.0.1:$PORT: got"
err_has "bytes, the release lists"
absent b122
run "HTTP 500 on the download" 7 -- b123 --builds-dir "$B"
err_has "download: HTTP 500 for $BASE/download/b123/"
absent b123
run "stalled download" 7 LVD_FETCH_STALL_TIMEOUT=2 -- b115 --builds-dir "$B"
err_has "download from 127.0.0.1:$PORT stalled"
absent b115
# interrupted mid-download: the temporary file goes as on any error
CASE="interrupted by SIGTERM"
"$FETCH" b115 --builds-dir "$B/int" >"$tmp/out" 2>"$tmp/err" &
fpid=$!
for _ in $(seq 1 100); do
    ls "$B/int"/.download-* >/dev/null 2>&1 && break
    sleep 0.05
done
sleep 0.2
kill -TERM "$fpid"
wait "$fpid"
rc=$?
[ "$rc" -eq 1 ] || { fail "$CASE: exit $rc, want 1"; cat "$tmp/err" >&2; }
err_has "interrupted by signal 15"
B="$B/int" absent b115
run "no such release (404)" 7 -- b999 --builds-dir "$B"
err_has "release API: no release b999 (HTTP 404"
absent b999
run "asset listed but the download 404s" 7 -- b112 --builds-dir "$B"
err_has "download: HTTP 404 for $BASE/download/b112/llama-b112-bin-ubuntu-vulkan-x64.tar.gz"
absent b112
run "API down, no such archive under either name" 7 LVD_RELEASES_API=http://127.0.0.1:1 -- \
    b112 --expect "$D100" --builds-dir "$B"
err_has "download: neither llama-b112-bin-ubuntu-vulkan-x64.tar.gz nor llama-b112-bin-ubuntu-vulkan-x64.zip is at $BASE/download/b112 (HTTP 404)"
absent b112
run "release lacks the flavour" 7 -- b113 --builds-dir "$B"
err_has "release b113 has no asset llama-b113-bin-ubuntu-vulkan-x64.tar.gz; it has: llama-b113-bin-ubuntu-x64.tar.gz"
absent b113

# disk full, as a file-size limit: the write fails, nothing remains
CASE="disk full"
( ulimit -f 512; exec "$FETCH" b120 --builds-dir "$B" >"$tmp/out" 2>"$tmp/err" )
rc=$?
[ "$rc" -eq 1 ] || { fail "disk full: exit $rc, want 1"; cat "$tmp/err" >&2; }
err_has "write failed after"
err_has "File too large"
absent b120

# --- TLS: verification is on, a self-signed server is refused ---------------
if openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
    -keyout "$tmp/key.pem" -out "$tmp/cert.pem" >/dev/null 2>&1; then
    start_httpd "$tmp/tls" --scenarios --tls-cert "$tmp/cert.pem" --tls-key "$tmp/key.pem"
    TPORT=$HTTPD_PORT
    run "TLS: self-signed API, no pin" 6 LVD_RELEASES_API="https://127.0.0.1:$TPORT/api" -- b100 --builds-dir "$B/t"
    err_has "release API: TLS failure with 127.0.0.1:$TPORT"
    run "TLS: self-signed download host" 7 LVD_RELEASES_API=http://127.0.0.1:1 \
        LVD_RELEASES_DOWNLOAD="https://127.0.0.1:$TPORT/download" -- --pin-file "$tmp/pin" --builds-dir "$B/t"
    err_has "TLS failure with 127.0.0.1:$TPORT"
    B="$B/t" absent b100
else
    fail "openssl could not make a test certificate"
fi

# --- --latest ---------------------------------------------------------------
# releases are published hourly from 2026-01-01T00:00Z: b100 at +0h ... b123 at
# +23h; b117 is a draft, b118 a prerelease. At +23.5h, at least 6h old: b116.
NOW=$((1767225600 + 23 * 3600 + 1800))
run "--latest --min-age 6h" 0 LVD_FAKE_NOW=$NOW -- --latest --min-age 6h --builds-dir "$B/l"
err_has "--latest resolved to b116"
out_has "--latest resolved to b116"
B="$B/l" present b116-bin-ubuntu-vulkan-x64 llama-b116
run "--latest, nothing old enough" 1 LVD_FAKE_NOW=1767225600 -- --latest --min-age 6h --builds-dir "$B/l"
err_has "no published build release at least 21600 s old"
run "--latest, API down" 7 LVD_RELEASES_API=http://127.0.0.1:1 -- --latest --builds-dir "$B/l"
err_has "--latest: release API: cannot reach 127.0.0.1:1"

# --- GITHUB_TOKEN: used, never printed ---------------------------------------
run "token accepted" 0 GITHUB_TOKEN=tok-e2e-secret LVD_RELEASES_API="$BASE/api-auth" -- b100 --builds-dir "$B/tok"
out_has "verified against the digest the release API publishes"
run "token rejected" 6 GITHUB_TOKEN=tok-wrong-value LVD_RELEASES_API="$BASE/api-auth" -- b100 --builds-dir "$B/tok2"
err_has "GITHUB_TOKEN was rejected"
err_lacks "tok-wrong-value"
run "token echoed by a server" 6 GITHUB_TOKEN=tok-e2e-secret LVD_RELEASES_API="$BASE/api-echo" -- b100 --builds-dir "$B/tok2"
err_has "you sent Bearer ***"
err_lacks "tok-e2e-secret"
grep -qF "tok-e2e-secret" "$tmp/out" && fail "token printed on stdout"

# --- usage and input errors ---------------------------------------------------
run "not a build" 2 -- 10715
err_has "'10715' is not a llama.cpp build"
run "unknown flavour" 2 -- b100 --flavour ubuntu-cuda-x64
err_has "--flavour wants a known flavour (bin-ubuntu-x64, "
run "--min-age without --latest" 2 -- b100 --min-age 6h
run "BUILD and --latest" 2 -- b100 --latest
printf 'build = b100\nflavour = ubuntu-x64\nsha256.ubuntu-x64 = nope\n' >"$tmp/badpin"
run "bad pin file" 3 -- --pin-file "$tmp/badpin"
err_has "$tmp/badpin:3: 'sha256.bin-ubuntu-x64' must be 64 lowercase hex characters"
run "--help" 0 -- --help
out_has "usage: lvd fetch"
out_has "example"

# --- SemVer releases: v0.4.1 is the build its nightly-tag.txt names ------------
# llama.cpp's stable releases (make-release.yml) carry one asset, nightly-tag.txt,
# naming the b<N> release of the same commit, which carries the archives.
D10991=$(digest b10991 vulkan)
run "a SemVer release" 0 -- v0.4.1 --builds-dir "$B/s"
out_has "v0.4.1 is build b10991 (the build its nightly-tag.txt names): the assets and digests of release b10991"
out_has "b10991 bin-ubuntu-vulkan-x64: not pinned: verified against the digest the release API publishes"
out_has "sha256  $D10991"
out_has "engine  b10991-ubuntu-vulkan-x64 (id "
B="$B/s" present b10991-bin-ubuntu-vulkan-x64 llama-b10991
run "a SemVer release, --json" 0 -- v0.4.1 --builds-dir "$B/s" --json
python3 - "$tmp/out" "$D10991" <<'PY' || fail "SemVer --json: $(cat "$tmp/out")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["release"] == "v0.4.1" and j["build"] == "b10991" and j["sha256"] == sys.argv[2], j
assert j["asset"] == "llama-b10991-bin-ubuntu-vulkan-x64.tar.gz" and j["verified"] == "api", j
PY
"$LVD_BIN/lvd-store" info --json >/dev/null 2>&1
python3 - "$LVD_STORE" <<'PY' || fail "the engine fetched as v0.4.1 does not keep the release's name"
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT build, release_tag FROM engines WHERE name = 'b10991-ubuntu-vulkan-x64'").fetchall()
assert rows == [("b10991", "v0.4.1")], rows
PY
cat >"$tmp/semver.pin" <<PIN
build = v0.4.1
flavour = bin-ubuntu-x64
sha256.bin-ubuntu-x64 = $(digest b10991 ubuntu-x64.tar)
PIN
run "a pin naming a SemVer release: both digests" 0 -- --pin-file "$tmp/semver.pin" --builds-dir "$B/s"
out_has "verified against the recorded digest and the release API's, which agree"
B="$B/s" present b10991-bin-ubuntu-x64 llama-b10991
sed -i "s/^sha256.bin-ubuntu-x64 = .*/sha256.bin-ubuntu-x64 = $ZERO/" "$tmp/semver.pin"
run "a pin naming a SemVer release, recorded digest disagrees" 6 -- --pin-file "$tmp/semver.pin" --builds-dir "$B/s2"
err_has "b10991 bin-ubuntu-x64: recorded sha256 $ZERO in $tmp/semver.pin"
sed -i "s/^sha256.bin-ubuntu-x64 = .*/sha256.bin-ubuntu-x64 = $(digest b10991 ubuntu-x64.tar)/" "$tmp/semver.pin"
run "a pinned SemVer release, API down: its nightly-tag.txt from the download host, the recorded digest alone" 0 \
    LVD_RELEASES_API=http://127.0.0.1:1 -- --pin-file "$tmp/semver.pin" --builds-dir "$B/s3"
err_has "v0.4.1 is b10991 by its nightly-tag.txt, read unverified from 127.0.0.1"
out_has "the release API is unavailable: the recorded digest stands alone"
run "a SemVer release naming no build" 6 -- v0.4.2 --builds-dir "$B/s"
err_has "v0.4.2: release v0.4.2: nightly-tag.txt does not hold one build tag (b<number>): 'not a build"
run "a SemVer release whose nightly-tag.txt is not what the API names" 6 -- v0.4.3 --builds-dir "$B/s"
err_has "nightly-tag.txt has sha256"
run "a SemVer release without nightly-tag.txt" 7 -- v0.4.4 --builds-dir "$B/s"
err_has "v0.4.4: release v0.4.4 has no asset nightly-tag.txt naming its build"
run "no such SemVer release" 7 -- v9.9.9 --builds-dir "$B/s"
err_has "v9.9.9: release API: no release v9.9.9"
run "not a release name" 2 -- v0.4 --builds-dir "$B/s"
err_has "'v0.4' is not a llama.cpp build"
clean

# --- --register: the other mode of the same tool -----------------------------
mkdir -p "$tmp/local/build/bin"
cp "$tmp/engine.sh" "$tmp/local/build/bin/llama-server"
cp "$tmp/engine.sh" "$tmp/local/build/bin/llama-bench"
chmod +x "$tmp/local/build/bin/llama-server" "$tmp/local/build/bin/llama-bench"
run "--register a local build" 0 -- --register "$tmp/local/build/bin" --build b9749 --name b9749-cuda
out_has "registered engine b9749-cuda"
run "--register without --build, no version line" 3 -- --register "$tmp/local/build/bin"
err_has "cannot tell its build: llama-server --version: no version line; give --build ID"
run "--register with fetch options" 2 -- --register "$tmp/local/build/bin" --build b9749 --flavour ubuntu-x64
err_has "--flavour does not go with --register"
run "--build without --register" 2 -- b100 --build b1
err_has "--build needs --register"

# --- the bench dir is only ever complete: a wrong one is not reused ----------
printf '{"sha256": "%s"}\n' "$ZERO" >"$B/b100-bin-ubuntu-vulkan-x64/.lvd-fetch.json"
run "bench dir holds other bytes" 6 -- b100 --builds-dir "$B"
err_has "holds bytes with sha256 $ZERO, expected $D100; remove it to fetch again"

e2e_finish
