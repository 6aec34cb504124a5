#!/usr/bin/env bash
# e2e_serve.sh: `lvd serve` against the fake llama-server (tests/fake-engine,
# fake_http.c): usage errors; the line lvd select prints measured at N = 1
# and 4 (TTFT near the scenario's, aggregate t/s up with N, the server's
# /metrics, runs recorded) and no process left; every failure a one-line
# error leaving no process behind: a port in use, a server that never
# becomes healthy, one that crashes, a malformed stream, SIGTERM and SIGKILL
# of lvd serve mid-run; a candidate build whose server doubles TTFT makes
# lvd pin refuse the promotion naming the serving test while llama-bench's
# numbers are unchanged; --url drives a running server as it is; the serve
# objective's verdict and its launch line
# (-np) with --explain naming the objective; the evidence page's serving
# section and chart; a nightly with `serve =`.
# Needs LVD_BIN, LVD_FAKE_ENGINE, LVD_SOURCE (set by ctest).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
export XDG_DATA_HOME="$tmp/xdg"
M=$tmp/m.gguf
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$M"

# servers DIR: the pids of DIR/llama-server processes still running
servers() { pgrep -f "^$1/llama-server " || true; }
# gone DIR: no DIR/llama-server process within 5 s
gone() { local i; for i in $(seq 50); do [ -z "$(servers "$1")" ] && return 0; sleep 0.1; done; servers "$1"; return 1; }
# starts DIR: how many servers the fake's log says were started
starts() { grep -c 'llama-server -m .* --port ' "$1/calls.log" 2>/dev/null || true; }
runs() { "$LVD_BIN/lvd-store" info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["counts"]["runs"])'; }

# ------------------------------------------------------------ usage
world usage
engine e1
expect_exit 2 "--model M.gguf is required" "$LVD_BIN/lvd" serve
expect_exit 2 "--load: load '0:16:8': N must be 1 to 256 clients" "$LVD_BIN/lvd" serve -m "$M" --load 0:16:8
expect_exit 2 "P and G must be 1 to 65536 tokens" "$LVD_BIN/lvd" serve -m "$M" --load 1:0:8
expect_exit 2 "--arms wants 1 to 64, not '0'" "$LVD_BIN/lvd" serve -m "$M" --arms 0
expect_exit 2 "--objective" "$LVD_BIN/lvd" serve -m "$M" --objective serve=5
expect_exit 3 "$tmp/none.gguf" "$LVD_BIN/lvd" serve -m "$tmp/none.gguf"
check "usage errors start no server" test "$(starts "$W/e1")" = 0
grep -q "^  lvd serve -m" <<<"$("$LVD_BIN/lvd" serve --help)" || fail "--help has no example"
capture "$LVD_BIN/lvd" --help; grep -q "serve  *run the launch line" "$tmp/out" || fail "lvd --help does not list serve"

# ------------------------------------------------------------ N = 1 and 4
world basic
# tokens 20 ms apart, as long as the first takes: a TTFT that counted a token
# too many would be twice the server's
engine e1 "server.ttft_ms = 20" "server.tg = 50" "server.contention = 0.25"
lvd serve -m "$M" --load 1:16:8,4:16:8 --json
expect_rc "lvd serve at N = 1 and 4" 0
check "the line lvd select prints, at -np 1 and 4, on loopback, with --metrics" \
  grep -qE "^#[0-9]+ llama-server -m $M -c 4096 --host 127.0.0.1 --port [0-9]+ -np 4 --metrics$" "$W/e1/calls.log"
check "8 and 16 requests, none failed" is "[(c['load'], c['figures']['requests'], c['figures']['errors']) for c in d['cells']]" \
  "[('1:16:8', 8, 0), ('4:16:8', 16, 0)]"
check "TTFT p50 at N = 1 near the server's 20 ms" is "20 <= d['cells'][0]['figures']['ttft_ms']['p50'] < 30" True
check "TTFT p50 at N = 4 stretched by 3 other requests in flight (x1.75)" \
  is "32 <= d['cells'][1]['figures']['ttft_ms']['p50'] < 45" True
check "inter-token latency near 1000 / 50 t/s at N = 1" is "20 <= d['cells'][0]['figures']['itl_ms']['p50'] < 26" True
check "aggregate t/s grows with N" is "d['cells'][1]['figures']['aggregate_tps'] > 1.5 * d['cells'][0]['figures']['aggregate_tps']" True
check "the server's /metrics: every generated token counted" is "d['cells'][1]['figures']['metrics']['llamacpp:tokens_predicted_total']" 128
check "the time to /health 200 is measured" is "d['cells'][0]['figures']['healthy_ms'] is not None" True
check "no server left" gone "$W/e1"
check "two runs recorded" test "$(runs)" = 2
lvd store runs
check "recorded under serving arm keys (np=N)" has "np=4"
lvd serve -m "$M" --load 1:16:8 --no-record
expect_rc "--no-record" 0
check "the table names the arm at -np 1" has "^cpu · np 1 on e1 +1:16:8 +8 +0 "
check "--no-record records nothing" test "$(runs)" = 2

# --url: a server already running, driven as it is: nothing started, stopped or recorded
UP=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$W/e1" && exec ./llama-server -m "$M" --port "$UP" -np 2 --metrics >"$tmp/up.log" 2>&1) &
up=$!
E2E_PIDS+=($up)
for _ in $(seq 100); do grep -q "listening on" "$tmp/up.log" && break; sleep 0.05; done
lvd serve --url "http://127.0.0.1:$UP/" --load 2:16:8 --requests 8 --json
expect_rc "lvd serve --url" 0
check "--url: the server there measured (TTFT p50 near its 20 ms, stretched by one other request)" \
  is "20 <= d['cells'][0]['figures']['ttft_ms']['p50'] < 32" True
check "--url: its /metrics read" is "d['cells'][0]['figures']['metrics']['llamacpp:requests_processing']" 0
check "--url: the server is left running" kill -0 "$up"
check "--url: nothing recorded" test "$(runs)" = 2
lvd serve --url "http://127.0.0.1:$UP/" --load 2:16:8,1:16:8 --duration 2s --budget 1s --json
expect_rc "lvd serve --url --budget" 0
check "--url --budget 1s: the second load not started, the budget spent" is "d['stop'] + ' ' + str(d['rounds'])" "budget 1"
kill "$up"
expect_exit 2 "-m does not go with --url" \
  "$LVD_BIN/lvd" serve --url "http://127.0.0.1:$UP" -m "$M"
expect_exit 2 "--url 'ftp://x': want http://HOST:PORT of a running llama-server" "$LVD_BIN/lvd" serve --url ftp://x

# ------------------------------------------------------------ failures: one line, no process left
world port
engine e1
python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(1); print(s.getsockname()[1], flush=True); time.sleep(600)' >"$tmp/portnum" &
E2E_PIDS+=($!)
for _ in $(seq 100); do [ -s "$tmp/portnum" ] && break; sleep 0.05; done
P=$(cat "$tmp/portnum")
expect_exit 3 "127.0.0.1:$P is in use by another process: choose another --port, or none for a free one" \
  "$LVD_BIN/lvd" serve -m "$M" --load 1:4:2 --port "$P"
check "a port in use: no server started" test "$(starts "$W/e1")" = 0
check "a port in use: nothing recorded" test "$(runs)" = 0

world healthy
engine e1 "server.health_ms = -1"
expect_exit 1 'did not become healthy within 2 s (last GET /health: HTTP 503 {"error":{"code":503,"message":"Loading model"' \
  "$LVD_BIN/lvd" serve -m "$M" --load 1:4:2 --health-timeout 2
check "never healthy: no server left" gone "$W/e1"
lvd store runs --json
check "never healthy: the failed run is recorded with its reason" is "[r['status'] for r in d]" "['failed']"

world crash
engine e1 "server.fault = crash"
expect_exit 1 "llama-server exited (killed by signal 11 (Segmentation fault)) before it was healthy" \
  "$LVD_BIN/lvd" serve -m "$M" --load 1:4:2
check "a crashed server: nothing left" gone "$W/e1"

world garbage
engine e1 "server.stream = garbage"
expect_exit 1 "llama-server's stream is malformed (request 1, client 1): line 1: not a server-sent event ('this is no server-sent event')" \
  "$LVD_BIN/lvd" serve -m "$M" --load 1:4:2
check "a malformed stream: no server left" gone "$W/e1"

# kill_mid SIG: lvd serve killed by SIG while its clients stream (a slow server)
kill_mid() {
  world "kill$1"
  engine e1 "server.tg = 2"
  "$LVD_BIN/lvd" serve -m "$M" --load 1:4:200 --duration 60s >"$tmp/out" 2>"$tmp/err" &
  local pid=$!
  for _ in $(seq 300); do [ -n "$(servers "$W/e1")" ] && break; sleep 0.1; done # 30 s: a sanitizer build is slow
  check "SIG$1: the server is up" test -n "$(servers "$W/e1")"
  sleep 0.5
  kill "-$1" "$pid"
  wait "$pid"; rc=$?
  check "SIG$1 of lvd serve mid-run: the server is gone" gone "$W/e1"
}
kill_mid TERM
check "SIGTERM: exit 1, one line" test "$rc" = 1 -a "$(cat "$tmp/err")" = "lvd-serve: error: interrupted by a signal: every server was stopped"
check "SIGTERM: the interrupted run is not recorded" test "$(runs)" = 0
kill_mid KILL
check "SIGKILL: killed" test "$rc" = 137

# ------------------------------------------------------------ pin, the serve verdict, the page
world pin
# TTFTs of 50 and 100 ms, the bound between them 75: a loaded host's stalls
# (tens of ms) stay within the margins
engine old "server.ttft_ms = 50" "noise = 0.01"
fake_engine "$W/new" "build_number = 9750" "server.ttft_ms = 100" "noise = 0.01"
"$LVD_BIN/lvd" fetch --register "$W/new" --build b9750 --name new >/dev/null 2>&1 || true
lvd bench -m "$M" -p 16 -n 8 -r 8
expect_rc "bench both builds" 0
lvd serve -m "$M" --arms 2 --load 1:16:8
expect_rc "serve the two leading arms' lines" 0
check "both engines' lines were served, as often (the rounds the statistics wanted)" test "$(starts "$W/old")" -ge 1 -a "$(starts "$W/old")" = "$(starts "$W/new")"
printf 'build = b9749\nflavour = bin-ubuntu-x64\n' >"$W/pin"
lvd pin --pin-file "$W/pin" --candidate b9750
expect_rc "lvd pin decides" 0
check "the candidate whose server doubles TTFT is refused, the serving test named" \
  has "^  regression: serve-ttft@pp16\+tg8 on cpu -[3-5][0-9]\.[0-9] % "
lvd pin --pin-file "$W/pin" --candidate b9750 --no-record --json
check "the decision: keep, hold regression" is "(d['decision'], d['hold'])" "('keep', 'regression')"
check "llama-bench's numbers are unchanged (every pp and tg ratio 1)" \
  is "sorted((c['test'], c['stats']['ratio']) for c in d['comparisons'] if not c['test'].startswith('serve-'))" \
  "[('pp16', 1), ('pp16@d2048', 1), ('tg8', 1), ('tg8@d2048', 1)]"
check "serving TTFT about doubled (its rate about halved: the connection's own time is in both), a regression" \
  is "[(0.4 < c['stats']['ratio'] < 0.7, c['verdict']) for c in d['comparisons'] if c['test'] == 'serve-ttft@pp16+tg8']" "[(True, 'regression')]"

lvd select -m "$M" --record --objective serve=75ms --explain
expect_rc "the serve verdict" 0
check "its line runs the old build at -np 1" has "^$W/old/llama-server -m $M -c 4096 -np 1$"
check "--explain names the objective that decided" has "^# rule 2 \(verdict\): decided: verdict #[0-9]+ \(only-arm, objective serve=75ms\)"
check "the new build's TTFT is over the bound" has "excluded cpu · np 1 on new: p95 time to first token [0-9.]+ ms above the bound 75 ms"
lvd select -m "$M"
check "the tg verdict's line has no -np" has "^$W/(old|new)/llama-server -m $M -c 4096$"

lvd evidence --out "$W/ev/page.md"
expect_rc "evidence" 0
check "the page has a serving section" grep -q "^### Serving under load" "$W/ev/page.md"
check "a row per line and N" grep -qE '^\| 1 \| cpu on old ★ \| 1 \| 16\+8 \| [5-6][0-9]\.[0-9] \| ' "$W/ev/page.md"
check "its chart" test -s "$W/ev/page-$(sha256sum "$M" | cut -c1-12)-serve.svg"
check "the pin table carries the serving tests" grep -q '| serve-ttft@pp16+tg8 | ' "$W/ev/page.md"
if command -v rsvg-convert >/dev/null; then
  check "the chart's text boxes do not overlap" python3 "$LVD_SOURCE/tests/support/svg-text-boxes.py" "$W"/ev/page-*-serve.svg
fi

# ------------------------------------------------------------ the nightly's serve step
world night
engine e1
printf 'build = b9749\nflavour = bin-ubuntu-x64\n' >"$W/pin"
cat >"$W/nightly.conf" <<CONF
model = $M
pin_file = pin
candidate = none
fetch = off
discover = off
tests = pp16,tg8
budget = 20s
serve = 1:8:4
serve_arms = 1
evidence = ev/page.md
log = nightly.log
CONF
lvd nightly --config "$W/nightly.conf"
check "the night ran" test "$rc" = 0 -o "$rc" = 5
check "its serve step ran lvd serve on the leading arm in the night's session" \
  grep -qE "step 'serve m.gguf'.*--arms 1 --load 1:8:4 --session night-" "$W/nightly.log"
check "and served" test "$(starts "$W/e1")" = 1
check "no server left" gone "$W/e1"
printf 'serve = 0:8:4\n' >"$W/bad.conf"
expect_exit 3 "$W/bad.conf:1: serve: load '0:8:4': N must be 1 to 256 clients" "$LVD_BIN/lvd" nightly --config "$W/bad.conf"

e2e_finish
