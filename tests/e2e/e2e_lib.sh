# e2e_lib.sh: what every tests/e2e_*.sh shares, sourced first thing as
#   . "$(dirname "$0")/e2e_lib.sh"
# A private $tmp (removed on exit unless LVD_KEEP_TMP is set, background
# processes named in E2E_PIDS killed), a quiet environment (NO_COLOR,
# LVD_NO_PROGRESS, no FAKE_* knobs), the ok/fail/check reporting with
# e2e_finish, running a command into $tmp/out, $tmp/err and $rc, fake engine
# directories, the loopback release server, and a nightly job's pin and
# config on it. Not a test itself, and not for
# helpers only one script uses (those stay in that script).
# One strictness for every script, set here and nowhere else: `set -uo
# pipefail` (an unset variable or a failing pipeline stage counts; no -e, since
# a failing command is what many checks look at through capture/$rc).
# Failures are counted and the script goes on; E2E_FAIL_FAST=1 (set before
# sourcing) makes the first failure end the script with exit 1.
set -uo pipefail

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lvd-$(basename "$0" .sh)-XXXXXX")
E2E_PIDS=()
e2e_cleanup() {
  local p
  for p in ${E2E_PIDS[@]+"${E2E_PIDS[@]}"}; do [ -n "$p" ] && kill "$p" 2>/dev/null; done
  [ -n "${LVD_KEEP_TMP:-}" ] || rm -rf "$tmp"
}
trap e2e_cleanup EXIT
export NO_COLOR=1 LVD_NO_PROGRESS=1
unset FAKE_SCENARIO FAKE_INDEX FAKE_SEED FAKE_SERVER_CHECK

# e2e_needs VAR...: ends the script unless each VAR is set (ctest sets LVD_BIN,
# LVD_FAKE_ENGINE, LVD_FIXTURES (tests/fixtures), LVD_SOURCE, LVD_TEST_BIN)
e2e_needs() {
  local v
  for v in "$@"; do [ -n "${!v:-}" ] || { echo "$v is not set: run through ctest" >&2; exit 1; }; done
}

# ------------------------------------------------------------ reporting
fails=0
ok() { echo "ok - $*"; }
fail() {
  echo "FAIL - $*" >&2
  fails=$((fails + 1))
  [ -z "${E2E_FAIL_FAST:-}" ] || exit 1
}
# check DESCRIPTION COMMAND...: passes when the command succeeds
check() { local d=$1; shift; if "$@"; then ok "$d"; else fail "$d"; fi; }
# same A B: the two files are equal (else the first lines of the diff)
same() { cmp -s "$1" "$2" || { diff "$1" "$2" | head -5; return 1; }; }
# e2e_finish: the last line of a script: the count, and the exit status
e2e_finish() { echo "$(basename "$0" .sh): $fails failure(s)"; [ "$fails" -eq 0 ]; }

# ------------------------------------------------------------ running
# capture CMD...: runs CMD; stdout in $tmp/out, stderr in $tmp/err, status in $rc
# source_tree DIR [EXT]: a fresh DIR holding CMakeLists.txt and the tree's C
# sources (EXT: *.[ch] unless given), build folders and .git left out: what
# scripts/check-layers and scripts/check-functions read, for planting into.
source_tree() {
    rm -rf "$1" && mkdir -p "$1"
    cp "${LVD_SOURCE:?}/CMakeLists.txt" "$1/"
    (cd "$LVD_SOURCE" && find . \( -path ./build -o -path './build-*' -o -path ./.git \) -prune -o -name "${2:-*.[ch]}" -print |
        tar -cf - -T -) | tar -C "$1" -xf -
}
capture() { rc=0; "$@" > "$tmp/out" 2> "$tmp/err" || rc=$?; }
# lvd ARGS...: the dispatcher, captured
lvd() { capture "${LVD_BIN:?}/lvd" "$@"; }
# expect_rc DESCRIPTION WANT...: $rc of the last captured call is one of WANT
expect_rc() {
  local d=$1 w; shift
  for w in "$@"; do [ "$rc" -eq "$w" ] && { ok "$d (exit $rc)"; return 0; }; done
  fail "$d: exit $rc, want $*"
  cat "$tmp/err"
}
has() { grep -qE -- "$1" "$tmp/out"; }
has_err() { grep -qE -- "$1" "$tmp/err"; }
# q EXPR: evaluates a python expression over the JSON in $tmp/out (as d)
q() { python3 -c "import json,sys; d=json.load(open('$tmp/out')); print($1)"; }
# is EXPR WANT: q EXPR prints WANT
is() { local got; got=$(q "$1"); [ "$got" = "$2" ] || { echo "  $1 = '$got', want '$2'"; return 1; }; }
# expect_exit CODE NEEDLE CMD...: CMD exits CODE with NEEDLE in a one-line error on stderr
expect_exit() {
  local want=$1 needle=$2; shift 2
  capture "$@"
  [ "$rc" -eq "$want" ] || fail "$* exited $rc, expected $want: $(cat "$tmp/err")"
  grep -qF -- "$needle" "$tmp/err" || fail "$*: stderr lacks '$needle': $(cat "$tmp/err")"
  [ "$(wc -l < "$tmp/err")" -le 2 ] || fail "$*: error is more than one line"
}
# expect_output CODE NEEDLE CMD...: CMD exits CODE with NEEDLE on stdout or stderr
expect_output() {
  local want=$1 needle=$2; shift 2
  capture "$@"
  [ "$rc" -eq "$want" ] || fail "$* exited $rc, expected $want: $(cat "$tmp/err") $(cat "$tmp/out")"
  grep -qF -- "$needle" "$tmp/err" "$tmp/out" || fail "$*: output lacks '$needle': $(cat "$tmp/err") $(cat "$tmp/out")"
}

# no_tool_links LIB: no tool in $LVD_BIN names LIB among its NEEDED libraries
# (a library the tools load at run time, only when they use it)
no_tool_links() {
  local lib=$1 tool needed linked=0
  for tool in "$LVD_BIN"/lvd "$LVD_BIN"/lvd-*; do
    needed=$(readelf -d "$tool" | grep '(NEEDED)') || { fail "$tool: readelf found no NEEDED entries"; continue; }
    if grep -q "$lib" <<<"$needed"; then fail "$(basename "$tool") links $lib: $needed"; linked=1; fi
  done
  [ "$linked" -eq 0 ] && ok "no tool links $lib"
}

# ------------------------------------------------------------ fake engines
# fake_engine DIR LINES...: DIR holds copies of tests/fake-engine as
# llama-bench, llama-server and llama-perplexity (copies: each engine has its
# own mtimes and digest) and a scenario that logs every call to DIR/calls.log,
# then LINES.
fake_engine() {
  local d=$1 p; shift
  mkdir -p "$d"
  for p in llama-bench llama-server llama-perplexity; do cp "${LVD_FAKE_ENGINE:?}" "$d/$p"; done
  printf '%s\n' "log = calls.log" "$@" > "$d/fake-scenario"
}
# The exit statuses of `lvd fetch --register` that register accepts (5: the
# engine is registered but its probe failed).
REGISTER_OK="0 5"
# register DIR: registers DIR as build b9749 under its basename
register() {
  local r=0
  "${LVD_BIN:?}/lvd" fetch --register "$1" --build b9749 --name "$(basename "$1")" > /dev/null 2>&1 || r=$?
  case " $REGISTER_OK " in *" $r "*) ;; *) fail "register $1: exit $r" ;; esac
}
# world NAME: a fresh store and engine folder $W for one group of cases
world() { export LVD_STORE=$tmp/$1.db; W=$tmp/$1; mkdir -p "$W"; }
# engine NAME LINES...: fake_engine $W/NAME LINES..., registered under NAME
engine() { local d=$W/$1; shift; fake_engine "$d" "$@"; register "$d"; }

# ------------------------------------------------------------ fake releases
# fake_release SRV TAG FLAVOUR LINES...: SRV/files/TAG/llama-TAG-FLAVOUR.tar.gz,
# a release archive whose llama-bench (llama-server, llama-perplexity) is the
# fake engine reporting build TAG (commit c0ffeeN), with LINES as its scenario.
fake_release() {
  local srv=$1 tag=$2 flavour=$3 dir="$tmp/pkg/llama-$2"; shift 3
  rm -rf "$dir"
  mkdir -p "$dir" "$srv/files/$tag"
  cp "${LVD_FAKE_ENGINE:?}" "$dir/llama-bench"
  ln -sf llama-bench "$dir/llama-server"
  ln -sf llama-bench "$dir/llama-perplexity"
  { echo "build_number = ${tag#b}"; echo "build_commit = c0ffee${tag#b}"; printf '%s\n' "$@"; } >"$dir/fake-scenario"
  tar -C "$tmp/pkg" -czf "$srv/files/$tag/llama-$tag-$flavour.tar.gz" "llama-$tag"
}
# fake_semver SRV TAG BUILD: SRV/files/TAG/nightly-tag.txt naming BUILD, as
# llama.cpp's make-release.yml publishes a SemVer release (TAG v0.4.1)
fake_semver() {
  mkdir -p "$1/files/$2"
  printf '%s\n' "$3" >"$1/files/$2/nightly-tag.txt"
}
# fake_releases_json SRV FLAVOUR LIAR TAG...: SRV/releases.json listing the
# TAGs (give them newest first), each with its archive and the archive's
# digest; LIAR's digest (a tag, or "") is wrong. A SemVer TAG (v0.4.1) lists
# its nightly-tag.txt (fake_semver) instead; a build from b10573 on is a
# prerelease, as llama.cpp's release.yml publishes every build since then.
fake_releases_json() {
  local srv=$1 flavour=$2 liar=$3 first=1 tag d asset pre; shift 3
  {
    echo "["
    for tag in "$@"; do
      asset="llama-$tag-$flavour.tar.gz" pre=false
      case $tag in v*) asset=nightly-tag.txt ;; b*) [ "${tag#b}" -lt 10573 ] || pre=true ;; esac
      d=$(sha256sum "$srv/files/$tag/$asset" | cut -d' ' -f1)
      [ "$tag" = "$liar" ] && d=$(printf 'lie%s' "$d" | sha256sum | cut -d' ' -f1)
      [ $first -eq 1 ] || echo ","
      first=0
      printf '{"tag_name": "%s", "draft": false, "prerelease": %s, ' "$tag" "$pre"
      printf '"published_at": "2026-11-01T00:00:00Z", "assets": [{"name": "%s", ' "$asset"
      printf '"digest": "sha256:%s", "browser_download_url": "{base}/download/%s/%s"}]}\n' "$d" "$tag" "$asset"
    done
    echo "]"
  } >"$srv/releases.json"
}

# ------------------------------------------------------------ release server
# start_httpd DIR ARGS...: starts tests/support/httpd.py serving DIR (log in DIR.log),
# waits for its port, sets HTTPD_PID and HTTPD_PORT; the process is killed on
# exit. A server that does not start ends the script.
start_httpd() {
  local dir=$1 portfile=$1.port; shift
  python3 "${LVD_SOURCE:?}/tests/support/httpd.py" --dir "$dir" "$@" > "$portfile" 2> "$dir.log" &
  HTTPD_PID=$!
  E2E_PIDS+=("$HTTPD_PID")
  local _
  for _ in $(seq 1 200); do
    [ -s "$portfile" ] && break
    kill -0 "$HTTPD_PID" 2>/dev/null || { cat "$dir.log" >&2; echo "httpd.py died" >&2; exit 1; }
    sleep 0.05
  done
  [ -s "$portfile" ] || { echo "httpd.py did not start" >&2; exit 1; }
  HTTPD_PORT=$(head -1 "$portfile")
}

# ------------------------------------------------------------ nightly jobs
# nightly_world [MODEL_NAME]: where a nightly job on the loopback release
# server starts: private XDG data, store ($tmp/store.db) and host (e2e-box);
# FLAVOUR, the flavour every release is built as; SRV, the release server's
# folder (no archive yet, no fault); the job's folder $tmp/repo; MODEL, the
# bundled tiny model copied to $tmp/models/MODEL_NAME (default tiny.gguf).
nightly_world() {
  export XDG_DATA_HOME="$tmp/xdg" LVD_STORE="$tmp/store.db" LVD_HOST=e2e-box
  FLAVOUR=bin-ubuntu-vulkan-x64
  SRV=$tmp/srv
  MODEL=$tmp/models/${1:-tiny.gguf}
  mkdir -p "$SRV/files" "$tmp/repo" "$tmp/models"
  echo '{}' > "$SRV/faults.json"
  cp "${LVD_SOURCE:?}/share/models/tiny-llama-q4_0.gguf" "$MODEL"
}
# release_digest SRV TAG: the sha256 of TAG's $FLAVOUR archive on SRV
release_digest() { sha256sum "$1/files/$2/llama-$2-$FLAVOUR.tar.gz" | cut -d' ' -f1; }
# serve_releases SRV: start_httpd SRV, and LVD_RELEASES_API and
# LVD_RELEASES_DOWNLOAD exported pointing at it
serve_releases() {
  start_httpd "$1"
  export LVD_RELEASES_API="http://127.0.0.1:$HTTPD_PORT/api" LVD_RELEASES_DOWNLOAD="http://127.0.0.1:$HTTPD_PORT/download"
}
# nightly_pin BUILD DIGEST [COMMENT]: PIN ($tmp/repo/llama-pin.conf) names
# BUILD of $FLAVOUR with its archive's DIGEST, under the line "# COMMENT"
nightly_pin() {
  PIN=$tmp/repo/llama-pin.conf
  {
    [ -z "${3:-}" ] || echo "# $3"
    printf 'build = %s\nflavour = %s\nsha256.%s = %s\n' "$1" "$FLAVOUR" "$FLAVOUR" "$2"
  } > "$PIN"
}
# offline_conf FILE LINES...: FILE, a night without network on model.gguf
# beside it (no fetch, no candidate, the repository's default pin, nothing
# promoted, evidence.md and nightly.log beside it, 1m of bench); then LINES
offline_conf() {
  local file=$1; shift
  {
    cat <<CONFF
model = model.gguf
fetch = off
candidate = none
budget = 1m
max_samples = 6
evidence = evidence.md
log = nightly.log
pin_file = ${LVD_SOURCE:?}/share/pin.default
promote = off
CONFF
    [ $# -eq 0 ] || printf '%s\n' "$@"
  } > "$file"
}
# nightly_conf TESTS EVIDENCE LINES...: CONF ($tmp/repo/nightly.conf), a job
# on MODEL that measures TESTS of the pin (PIN) against the latest build,
# promotes, writes the EVIDENCE page and nightly.log beside it, fetches into
# $tmp/builds and discovers nothing; then LINES
nightly_conf() {
  local tests=$1 evidence=$2; shift 2
  CONF=$tmp/repo/nightly.conf
  {
    cat <<CONFF
model = ../models/$(basename "$MODEL")
pin_file = llama-pin.conf
candidate = latest
min_age = 1h
tests = $tests
budget = 2m
max_samples = 12
promote = on
evidence = $evidence
log = nightly.log
builds_dir = $tmp/builds
discover = off
CONFF
    [ $# -eq 0 ] || printf '%s\n' "$@"
  } > "$CONF"
}
