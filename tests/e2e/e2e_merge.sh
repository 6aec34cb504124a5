#!/usr/bin/env bash
# e2e_merge.sh: `lvd store merge` end to end on the real H200 captures. Two
# boxes' stores: h200's (the CPU, CUDA and Vulkan builds imported, their
# checks, its verdict recorded) and box-b's (the CPU and Vulkan builds in the
# same directories, so both stores have /opt/llama.cpp/b9749-vulkan, and the
# same model). A merged into B twice (the second adds nothing), B into A; the
# merged stores answer `lvd select --record --artifact` and `lvd evidence`
# for each host as that host's own store did. Refusals (the store itself, a
# newer store, a missing file) exit 3 and change nothing. The SIGKILL
# midway is test_merge.c's. Needs LVD_BIN, LVD_FIXTURES (set by ctest).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FIXTURES
F="$LVD_FIXTURES/llama.cpp/gpu-h200"
SHA=973978067daa0$(printf 'd%.0s' $(seq 51))
A="$tmp/a.db" B="$tmp/b.db"
unset LVD_STORE LVD_HOST
export LVD_FAKE_NOW=1796054400 # the verdicts' and pages' clock: the same answer twice

st() { local s=$1; shift; "$LVD_BIN/lvd-store" --store "$s" "$@"; }
# box STORE HOST ENGINE...: the captures of ENGINEs (cpu cuda vulkan) as HOST's, checked, verdict recorded
box() {
  local s=$1 host=$2 e; shift 2
  for e in "$@"; do
    st "$s" import "$F/bench-$e-dense$([ "$e" = cpu ] || echo -ngl99).jsonl" --engine-dir "/opt/llama.cpp/b9749-$e" \
      --engine "b9749-$e" --build b9749 --artifact "$SHA" --host "$host" --session "$host-nov" >/dev/null ||
      fail "$host: import $e"
  done
  for e in "$@"; do
    local base=()
    [ "$e" = cpu ] || base=(--base-output "$F/ppl-cpu.out" --base-log "$F/ppl-cpu.err")
    "$LVD_BIN/lvd-check" --store "$s" --import --artifact "$SHA" --host "$host" --engine "b9749-$e" \
      --output "$F/ppl-$e.out" --log "$F/ppl-$e.err" "${base[@]}" >/dev/null || fail "$host: check $e"
  done
  "$LVD_BIN/lvd-select" --store "$s" --record --artifact "$SHA" --host "$host" >/dev/null || fail "$host: verdict"
}
# answer STORE HOST OUT: what select (its verdict recorded again: kept, as
# the last one) and evidence say for HOST (verdict numbers masked)
answer() {
  "$LVD_BIN/lvd-select" --store "$1" --record --artifact "$SHA" --host "$2" | sed -E 's/verdict #[0-9]+/verdict #N/g' \
    >"$3.select" || fail "select on $1 for $2"
  rm -rf "$3.page" && mkdir -p "$3.page" # one name for every page: its charts are named after it
  "$LVD_BIN/lvd-evidence" --store "$1" --host "$2" --out "$3.page/page.md" >/dev/null || fail "evidence on $1 for $2"
  sed -Ei 's/verdict #[0-9]+/verdict #N/g' "$3.page/page.md"
  # a store of several hosts ends the page with its fleet section (lvd evidence): the host's own
  # page is what came before it
  python3 - "$3.page/page.md" <<'PY'
import sys
p = sys.argv[1]; t = open(p).read(); i = t.find("\n\n## Fleet\n")
open(p, "w").write(t if i < 0 else t[:i + 1])
PY
}
# added JSON TABLE: rows of TABLE a merge's --json says it added
added() { python3 -c "import json,sys; print(json.load(open('$1'))['added']['$2'])"; }
counts() { st "$1" info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["counts"])'; }

box "$A" h200 cpu cuda vulkan
box "$B" box-b cpu vulkan
answer "$A" h200 "$tmp/before-h200"
answer "$B" box-b "$tmp/before-b"
grep -q "b9749-cuda" "$tmp/before-h200.select" || fail "h200's verdict: $(cat "$tmp/before-h200.select")"

# --- A into B, twice ------------------------------------------------------------
st "$B" merge "$A" --json >"$tmp/m1" || fail "merge A into B"
[ "$(added "$tmp/m1" runs)" -eq "$(st "$A" info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["counts"]["runs"])')" ] ||
  fail "every run of A is new to B: $(cat "$tmp/m1")"
[ "$(added "$tmp/m1" engines)" -eq 3 ] || fail "h200's three engines are new to B (box-b has two in the same dirs)"
[ "$(added "$tmp/m1" artifacts)" -eq 0 ] || fail "the model is in B already"
[ "$(added "$tmp/m1" checks)" -eq 3 ] || fail "h200's checks: $(cat "$tmp/m1")"
[ "$(added "$tmp/m1" verdicts)" -ge 1 ] || fail "h200's verdict"
before=$(counts "$B")
st "$B" merge "$A" >"$tmp/m2" || fail "merge A into B again"
grep -qE "^  runs +0$" "$tmp/m2" || fail "the second merge: $(cat "$tmp/m2")"
[ "$(grep -cE ' 0$' "$tmp/m2")" -eq 12 ] || fail "the second merge added rows: $(cat "$tmp/m2")"
[ "$(counts "$B")" = "$before" ] || fail "the second merge changed B"
grep -q "^merged $A into $B; rows added:" "$tmp/m2" || fail "merge's report: $(head -1 "$tmp/m2")"

# --- B into A: only box-b's own rows ----------------------------------------------
st "$A" merge "$B" --json >"$tmp/m3" || fail "merge B into A"
[ "$(added "$tmp/m3" engines)" -eq 2 ] || fail "box-b's two engines: $(cat "$tmp/m3")"
[ "$(added "$tmp/m3" checks)" -eq 2 ] || fail "box-b's checks: $(cat "$tmp/m3")"
[ "$(counts "$A")" = "$(counts "$B")" ] || fail "A and B differ after merging both ways: $(counts "$A") / $(counts "$B")"
st "$A" runs --limit 0 --json | python3 -c '
import json, sys
v = json.load(sys.stdin)
assert {r["host"] for r in v} == {"h200", "box-b"}, {r["host"] for r in v}' || fail "the runs keep their hosts"
# runs --host NAME: that host's runs alone, each named by that host's engine
st "$A" runs --limit 0 --json >"$tmp/all-runs"
check "runs: every host's, each named by its own host's engine" python3 -c "
import json
v = json.load(open('$tmp/all-runs'))
assert all(r['engine'].startswith('b9749-') for r in v), [(r['host'], r['engine']) for r in v]"
for h in h200 box-b; do
  st "$A" runs --limit 0 --host "$h" --json >"$tmp/runs-$h" || fail "runs --host $h"
  check "runs --host $h: its runs, all of them, its engines' names" python3 -c "
import json, sys
v = json.load(open('$tmp/runs-$h')); every = json.load(open('$tmp/all-runs'))
assert v and {r['host'] for r in v} == {'$h'}, {r['host'] for r in v}
assert sorted(r['id'] for r in v) == sorted(r['id'] for r in every if r['host'] == '$h')
assert all(r['engine'].startswith('b9749-') for r in v), [r['engine'] for r in v]"
done
st "$A" runs --limit 0 --host box-b --engine b9749-vulkan --json >"$tmp/runs-bv" || fail "runs --host --engine"
check "runs --host box-b --engine b9749-vulkan: box-b's vulkan engine's runs" python3 -c "
import json
v = json.load(open('$tmp/runs-bv'))
assert v and {(r['host'], r['engine']) for r in v} == {('box-b', 'b9749-vulkan')}, v"
expect_exit 2 "no engine named 'b9749-cuda'" st "$A" runs --host box-b --engine b9749-cuda
st "$A" runs --host nobody >"$tmp/runs-nobody" || fail "runs --host nobody"
check "runs --host of no run: none" grep -qx "no runs" "$tmp/runs-nobody"
check "engines --host box-b: box-b's two" bash -c "[ \$('$LVD_BIN/lvd-store' --store '$A' engines --host box-b | grep -c b9749-) -eq 2 ]"
# engines are this host's: box-b's are listed only as box-b's
LVD_HOST=box-b st "$A" engines | grep -c "b9749-" | grep -qx 2 || fail "box-b's engines in A: $(LVD_HOST=box-b st "$A" engines)"
LVD_HOST=h200 st "$A" engines | grep -c "b9749-" | grep -qx 3 || fail "h200's engines in A"

# --- each host's answer from the merged stores, as before ---------------------------
for s in "$A" "$B"; do
  answer "$s" h200 "$tmp/after-h200"
  answer "$s" box-b "$tmp/after-b"
  check "$(basename "$s"): select for h200 as on h200" same "$tmp/before-h200.select" "$tmp/after-h200.select"
  check "$(basename "$s"): select for box-b as on box-b" same "$tmp/before-b.select" "$tmp/after-b.select"
  check "$(basename "$s"): evidence for h200 as on h200" diff -r "$tmp/before-h200.page" "$tmp/after-h200.page"
  check "$(basename "$s"): evidence for box-b as on box-b" diff -r "$tmp/before-b.page" "$tmp/after-b.page"
done

# --- refusals: exit 3, one line, nothing changed ------------------------------------
before=$(counts "$B")
expect_exit 3 "not merged into itself" st "$B" merge "$B"
ln -s "$B" "$tmp/same.db"
expect_exit 3 "not merged into itself" st "$B" merge "$tmp/same.db"
cp "$A" "$tmp/newer.db"
python3 -c "import sqlite3; c = sqlite3.connect('$tmp/newer.db'); c.execute('PRAGMA user_version = 999'); c.commit()"
expect_exit 3 "newer than this llama-verdict knows" st "$B" merge "$tmp/newer.db"
expect_exit 3 "$tmp/missing.db" st "$B" merge "$tmp/missing.db"
[ ! -e "$tmp/missing.db" ] || fail "a missing store was created"
[ "$(counts "$B")" = "$before" ] || fail "a refused merge changed B"
expect_exit 2 "merge needs OTHER" st "$B" merge
capture "$LVD_BIN/lvd-store" --help; grep -q "lvd store merge /mnt/usb/gpu-box-3.db" "$tmp/out" || fail "--help has no merge example"

e2e_finish
