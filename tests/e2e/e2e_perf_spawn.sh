#!/usr/bin/env bash
# e2e_perf_spawn.sh: perf/perf_spawn, the timer of year-store.py's
# millisecond rows: one JSON line per command in the order given, a run
# outside the accepted exit codes counted as failed, a command's own
# NAME=VALUE environment, a child past the timeout
# killed with its whole process group, and usage errors refused with exit 2.
# Needs LVD_BIN (set by ctest; perf_spawn is built beside it in ../perf).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN
PS="$LVD_BIN/../perf/perf_spawn"
[ -x "$PS" ] || { fail "no perf_spawn at $PS"; exit 1; }

# jcheck FILE EXPR...: each Python expression over the JSON lines of FILE (as v, a list) must hold.
jcheck() { python3 - "$@" <<'PY' || fail "$1: $(cat "$1")"
import json, sys
v = [json.loads(l) for l in open(sys.argv[1])]
bad = [e for e in sys.argv[2:] if not eval(e, {"v": v})]
for e in bad: print("does not hold:", e, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

capture "$PS" -n 5 -- /bin/true -- /bin/false -- /bin/sh -c 'exit 3'
check "three commands time" test "$rc" -eq 0
cp "$tmp/out" "$tmp/three.json"
jcheck "$tmp/three.json" 'len(v) == 3' 'v[0]["argv"] == ["/bin/true"]' 'v[1]["argv"] == ["/bin/false"]' \
  'v[2]["argv"] == ["/bin/sh", "-c", "exit 3"]' 'all(o["rounds"] == 5 for o in v)' \
  '[o["failed"] for o in v] == [0, 5, 5]' \
  'all(0 < o["wall_ms"]["p25"] <= o["wall_ms"]["median"] <= o["wall_ms"]["p75"] for o in v)'

capture "$PS" -n 2 -k 0,1 -- /bin/false -- /bin/sh -c 'exit 3'
cp "$tmp/out" "$tmp/codes.json"
jcheck "$tmp/codes.json" '[o["failed"] for o in v] == [0, 2]'

# a command's leading NAME=VALUE words: its environment, over (and instead of) what perf_spawn inherited
export LVD_PS_SEEN=inherited
capture "$PS" -n 2 -- LVD_PS_A=one LVD_PS_SEEN=own /bin/sh -c 'test "$LVD_PS_A.$LVD_PS_SEEN" = one.own' \
  -- /bin/sh -c 'test "${LVD_PS_A:-unset}.$LVD_PS_SEEN" = unset.inherited'
cp "$tmp/out" "$tmp/env.json"
jcheck "$tmp/env.json" '[o["failed"] for o in v] == [0, 0]' 'v[0]["env"] == ["LVD_PS_A=one", "LVD_PS_SEEN=own"]' \
  'v[0]["argv"][0] == "/bin/sh"' 'v[1]["env"] == []'
capture "$PS" -n 1 -- LVD_PS_A=one
check "NAME=VALUE words without a command: usage error" test "$rc" -eq 2

# past the timeout: the child and what it started are killed (the group), the run counted as failed
capture "$PS" -n 1 -t 300 -- /bin/sh -c 'sleep 30 & echo $! >"$1"; wait' sh "$tmp/grandchild"
cp "$tmp/out" "$tmp/late.json"
jcheck "$tmp/late.json" 'v[0]["failed"] == 1' 'v[0]["wall_ms"]["median"] < 5000'
g=$(cat "$tmp/grandchild")
# gone, or a zombie left for an init that does not reap (its state Z): killed either way. A
# SIGKILLed process ends when it next runs, later on a loaded machine: up to 5 s are given.
# (Only a process still running sleep counts: its pid cannot have been reused by one.)
alive() {
  local state
  state=$(awk '{print $3}' "/proc/$g/stat" 2>/dev/null || true)
  [ -n "$state" ] && [ "$state" != Z ] && tr '\0' ' ' <"/proc/$g/cmdline" 2>/dev/null | grep -q '^sleep 30'
}
for _ in $(seq 50); do alive || break; sleep 0.1; done
if alive; then fail "the timed-out child's own child $g outlived the timeout"; kill "$g"
else ok "the timed-out child's group was killed"; fi

capture "$PS" -n 3
check "no command: usage error" test "$rc" -eq 2
capture "$PS" -n 0 -- /bin/true
check "zero rounds: usage error" test "$rc" -eq 2
capture "$PS" -- /nonexistent/cmd
check "a command that cannot start: exit 1" test "$rc" -eq 1
check "it is named" grep -q "/nonexistent/cmd" "$tmp/err"
e2e_finish
