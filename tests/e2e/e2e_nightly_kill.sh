#!/usr/bin/env bash
# e2e_nightly_kill.sh: the nightly under a kill (docs/nightly.md,
# "Kills", "Device locks", "Resumed nights"). Fake engines whose every llama-bench row takes
# real wall time (sleep_ms); `lvd nightly` is SIGKILLed in the middle of its
# bench step:
#   - while it benches, a hand-started `lvd bench` refuses (exit 8) naming the
#     nightly's pid, and with --wait gives up after waiting;
#   - a second after the kill no process it started (lvd-bench, llama-bench,
#     their guards) is alive;
#   - a second nightly started at once never measures while any process of the
#     first does (no two runs in the store share their time), resumes the
#     interrupted session (said on the console, in the log and on the page),
#     and the store holds each llama-bench run once.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_SOURCE LVD_FAKE_ENGINE
export XDG_DATA_HOME="$tmp/xdg" LVD_HOST=kill-box
unset LVD_FAKE_NOW LVD_LOCK_DIR # real start times: the overlap check reads them
world kill
# close speeds and much noise: the bench needs round after round (its budget stops it)
engine cpu "noise = 0.08" "cpu.tg = 880" "sleep_ms = 4000"
engine gpu "noise = 0.08" "device = CUDA0|NVIDIA GeForce RTX 4090|24564|23000|8.9" "dev.CUDA0.tg = 900" \
    "cpu.tg = 880" "sleep_ms = 4000"

mkdir -p "$tmp/repo"
printf 'build = b300\nflavour = bin-ubuntu-vulkan-x64\nsha256.bin-ubuntu-vulkan-x64 = %064d\n' 0 >"$tmp/repo/pin.conf"
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$tmp/repo/model.gguf"
cat >"$tmp/repo/nightly.conf" <<CONF
model = model.gguf
pin_file = pin.conf
candidate = none
fetch = off
discover = off
tests = tg32
budget = 90s
max_samples = 30
run_timeout = 60s
evidence = evidence.md
log = nightly.log
device_wait = 2m
CONF
LOG="$tmp/repo/nightly.log"
PAGE="$tmp/repo/evidence.md"

# sql QUERY: one value from the store (python3's sqlite3: never skipped)
sql() { python3 -c "import sqlite3,sys; c=sqlite3.connect('file:$LVD_STORE?mode=ro', uri=True); print(c.execute(sys.argv[1]).fetchone()[0])" "$1"; }
# descendants PID: every process under PID (from /proc)
descendants() {
    python3 - "$1" <<'PY'
import os, sys
kids = {}
for p in os.listdir('/proc'):
    if p.isdigit():
        try:
            ppid = int(open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[1])
        except OSError:
            continue
        kids.setdefault(ppid, []).append(int(p))
todo, out = [int(sys.argv[1])], []
while todo:
    for k in kids.get(todo.pop(), []):
        out.append(k); todo.append(k)
print(' '.join(map(str, out)))
PY
}
# alive PID: running (a zombie is dead)
alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }
bench_runs() { sql "SELECT count(*) FROM runs WHERE source = 'bench' AND wall_ms > 0"; }
# one llama-bench process records its runs (one per arm and -fa slot) with its
# engine and start second; one engine's next process starts seconds later
INVOCATION="engine_id, started_at"
invocations() { sql "SELECT count(*) FROM (SELECT DISTINCT $INVOCATION FROM runs WHERE source = 'bench' AND wall_ms > 0)"; }

# --- night 1, killed in the middle of its bench --------------------------------
"$LVD_BIN/lvd" nightly --config "$tmp/repo/nightly.conf" >"$tmp/night1.out" 2>&1 &
N1=$!
E2E_PIDS+=("$N1")
for _ in $(seq 1 600); do
    [ -s "$LVD_STORE" ] && [ "$(invocations 2>/dev/null || echo 0)" -ge 2 ] && break
    kill -0 "$N1" 2>/dev/null || break
    sleep 0.2
done
check "night 1 is benching (2 llama-bench runs recorded)" [ "$(invocations)" -ge 2 ]
check "night 1 is still running" kill -0 "$N1"

# a hand-started bench meanwhile: refused, naming the nightly's pid
expect_exit 8 "pid $N1 (lvd-nightly" "$LVD_BIN/lvd" bench -m "$tmp/repo/model.gguf" --tests tg32 --budget 5s
has_err "devices are in use" && ok "the refusal says the devices are in use" || fail "refusal: $(cat "$tmp/err")"
expect_exit 8 "(waited for it)" "$LVD_BIN/lvd" bench -m "$tmp/repo/model.gguf" --tests tg32 --budget 5s --wait 1s
has_err "waiting up to 1s for the devices: pid $N1" && ok "--wait says whom it waits for" \
    || fail "--wait: $(cat "$tmp/err")"
expect_exit 8 "pid $N1" "$LVD_BIN/lvd" check -m "$tmp/repo/model.gguf"

KIDS=$(descendants "$N1")
names=$(for p in $KIDS; do cat "/proc/$p/comm" 2>/dev/null; done | sort -u | tr '\n' ' ')
case " $names " in *" lvd-bench "*) ok "lvd-bench runs under the nightly ($names)" ;; *) fail "no lvd-bench under the nightly: $names" ;; esac
case " $names " in *" llama-bench "*) ok "llama-bench runs under lvd-bench" ;; *) fail "no llama-bench under the nightly: $names" ;; esac
kill -9 "$N1"
wait "$N1" 2>/dev/null
sleep 1
left=""
for p in $KIDS; do alive "$p" && left="$left $p($(cat "/proc/$p/comm" 2>/dev/null))"; done
[ -z "$left" ] && ok "a second after the SIGKILL nothing the nightly started is alive" \
    || { fail "left alive:$left"; for p in $KIDS; do kill -9 "$p" 2>/dev/null; done; }
S1=$(sql "SELECT session FROM runs WHERE source = 'bench' ORDER BY id LIMIT 1")
RUNS1=$(sql "SELECT count(*) FROM runs WHERE session = '$S1'")
SAMPLES1=$(sql "SELECT SUM(n_samples) FROM results")
MAXID1=$(sql "SELECT max(id) FROM runs")
[ -e "$LVD_STORE.nightly.state" ] && ok "the killed night left its record" || fail "no $LVD_STORE.nightly.state"

# --- night 2, at once: resumes night 1's session --------------------------------
# (night 1's budget was long: a bench of it left running would overlap night 2's)
sed -i 's/^budget = 90s$/budget = 25s/' "$tmp/repo/nightly.conf"
capture timeout 600 "$LVD_BIN/lvd" nightly --config "$tmp/repo/nightly.conf"
cat "$tmp/out" "$tmp/err"
expect_rc "night 2 finishes" 0 5
has "^interrupted: the night of session $S1 \(pid $N1\) was interrupted: this night resumes its session" \
    && ok "night 2 says night 1 was interrupted and resumes it" || fail "night 2 does not say it resumes $S1"
has "^nightly $S1 " && ok "night 2 continues session $S1" || fail "night 2's session is not $S1"
grep -q "interrupted: the night of session $S1" "$LOG" && ok "the log says it" || fail "the log does not say it"
grep -q "resuming session $S1: $RUNS1 run(s) recorded earlier count as measured" "$LOG" \
    && ok "night 2's bench took night 1's $RUNS1 runs as measured" || fail "no resume line for $RUNS1 runs in the log"
# the resumed bench ranked night 1's runs with its own: its report counts them all
OKRUNS=$(sql "SELECT count(*) FROM runs WHERE session = '$S1' AND status = 'ok'")
grep -q "^Stopped: .*($OKRUNS runs ok, .*; session $S1\$" "$LOG" \
    && ok "the resumed bench's session holds both nights' $OKRUNS runs" \
    || fail "the resumed bench's report does not count $OKRUNS runs: $(grep '^Stopped:' "$LOG" | tail -1)"
grep -q "^> \*\*Note:\*\* the night of session $S1 (pid $N1) was interrupted" "$PAGE" \
    && ok "the evidence page says the night was interrupted" || fail "the page has no note"
[ ! -e "$LVD_STORE.nightly.state" ] && ok "a night that ended removes its record" || fail "record left"
grep -q "measured alone" "$tmp/out" && fail "night 2 flagged an overlap" || ok "night 2 flags no overlap"

# no two llama-bench processes ever shared their time (start + wall, whole
# seconds: 2 s slack; the runs of one process share its span)
OVER=$(sql "SELECT count(*) FROM runs a JOIN runs b ON a.id < b.id
            WHERE a.wall_ms > 0 AND b.wall_ms > 0 AND a.source = 'bench' AND b.source = 'bench'
              AND NOT (a.engine_id = b.engine_id AND a.started_at = b.started_at)
              AND min(a.started_at + (a.wall_ms + 999) / 1000, b.started_at + (b.wall_ms + 999) / 1000)
                  - max(a.started_at, b.started_at) > 2")
[ "$OVER" -eq 0 ] && ok "no engine run of night 2 overlapped one of night 1 (nor any other)" \
    || fail "$OVER pairs of runs overlapped"
# each llama-bench process is in the store once: processes recorded = llama-bench
# calls, less at most the one killed mid-run (never recorded)
CALLS=$(cat "$W"/*/calls.log | grep -c -- "-o jsonl")
RUNS=$(invocations)
[ "$RUNS" -le "$CALLS" ] && [ "$RUNS" -ge $((CALLS - 1)) ] \
    && ok "the store holds each of the $CALLS llama-bench runs once ($RUNS recorded)" \
    || fail "$RUNS llama-bench runs recorded for $CALLS llama-bench calls"
SAMPLES=$(sql "SELECT SUM(n_samples) FROM results")
of_runs() { sql "SELECT COALESCE(SUM(n_samples), 0) FROM results WHERE run_id $1"; }
OLD=$(of_runs "<= $MAXID1")
NEW=$(of_runs "> $MAXID1")
[ "$OLD" -eq "$SAMPLES1" ] && [ "$NEW" -gt 0 ] && [ "$SAMPLES" -eq $((SAMPLES1 + NEW)) ] \
    && ok "samples: night 1's $SAMPLES1 kept as they were and night 2's $NEW, nothing doubled ($SAMPLES)" \
    || fail "samples $SAMPLES: night 1's runs hold $OLD (had $SAMPLES1), night 2's $NEW"
e2e_finish
