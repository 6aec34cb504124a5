#!/usr/bin/env bash
# e2e_import_eras.sh: `lvd store import` of llama-bench's outputs of every era
# in tests/fixtures/llama.cpp (builds b4547, b5970, b9749, b10587: json, jsonl
# and sql, whose table is `test` before b6066 and `llama_bench` since), each
# build its own engine; jsonl captured with `2>&1` imports every result and
# says on one stderr line (and in --json) how many log lines it skipped; a
# file with no result, and -o sql that does more than llama-bench prints, are
# refused in one line, exit 3, with nothing written (and no file an ATTACH
# names created). Needs LVD_BIN, LVD_FIXTURES and LVD_SOURCE (set by ctest).
E2E_FAIL_FAST=1
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FIXTURES LVD_SOURCE
FIX="$LVD_FIXTURES/llama.cpp"
TINY="$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf"
S="$tmp/store.db"
unset LVD_STORE

st() { "$LVD_BIN/lvd-store" --store "$S" "$@"; }
# jcheck FILE EXPR...: each Python expression over the JSON in FILE (as v) must hold.
jcheck() { python3 - "$@" <<'PY' || fail "$1: $(cat "$1")"
import json, sys
v = json.load(open(sys.argv[1]))
bad = [e for e in sys.argv[2:] if not eval(e, {"v": v})]
for e in bad: print("does not hold:", e, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}
counts() { st info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["counts"])'; }

# Each era's json, jsonl and sql, each into an engine of that build (the
# captures ran within a second of each other: into one engine, their runs
# would be one run imported three times): one run of pp16 and tg4, two
# samples a result (none from sql).
for b in 4547 5970 10587; do
  d="$FIX/bench-b$b"
  [ -d "$d" ] || continue
  for f in json jsonl sql; do
    mkdir -p "$tmp/e$b-$f"
    st import "$d/bench-$f.stdout" --engine-dir "$tmp/e$b-$f" --engine "b$b-$f" --build "b$b" --model "$TINY" \
      --json >"$tmp/r"
    samples=4; [ $f = sql ] && samples=0
    jcheck "$tmp/r" "v['format'] == '$f'" 'v["runs_added"] == 1' 'v["results_added"] == 2' \
      "v['samples_added'] == $samples" 'v["lines_skipped"] == 0'
    st runs --engine "b$b-$f" --json >"$tmp/runs"
    jcheck "$tmp/runs" 'len(v) == 1' 'v[0]["status"] == "ok"' "v[0]['build_number'] == $b" \
      '[x["test"] for x in v[0]["results"]] == ["pp16", "tg4"]' 'all(x["backends"] == "CPU" for x in v[0]["results"])'
  done
done
ok "json, jsonl and sql of every era imported"

# The database compare-llama-bench.py users keep, and a dump of it (what
# `sqlite3 DB .dump` prints, its first line `PRAGMA foreign_keys=OFF;`
# skipped): the rows the sql text brought, nothing added.
python3 - "$FIX/bench-b10587/bench-sql.stdout" "$tmp/llama-bench.sqlite" "$tmp/dump.sql" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[2])
db.executescript(open(sys.argv[1]).read())
with open(sys.argv[3], "w") as f:
    f.write("PRAGMA foreign_keys=OFF;\n" + "\n".join(db.iterdump()) + "\n")
PY
for f in llama-bench.sqlite dump.sql; do
  st import "$tmp/$f" --engine b10587-sql --model "$TINY" --json >"$tmp/r" 2>"$tmp/err"
  jcheck "$tmp/r" 'v["rows"] == 2' 'v["runs_added"] == 0' 'v["runs_skipped"] == 1'
done
grep -q "dump.sql: skipped 1 line that is not llama-bench output (the first: 'PRAGMA foreign_keys=OFF;')" "$tmp/err" \
  || fail "dump: stderr: $(cat "$tmp/err")"
ok "a llama-bench.sqlite and its dump read as the sql text"
python3 -c 'import sqlite3,sys; sqlite3.connect(sys.argv[1]).execute("CREATE TABLE test (n_prompt INTEGER)")' \
  "$tmp/empty.sqlite"
expect_exit 3 "empty.sqlite: the database's llama-bench table (llama_bench, or test before b6066) has no row" \
  st import "$tmp/empty.sqlite" --engine b10587-sql --model "$TINY"

# jsonl with llama.cpp's log before and among the results (-v, 2>&1): every
# result imported, the skipped lines said on one stderr line and in --json.
mkdir -p "$tmp/merged"
capture st import "$FIX/bench-b10587/bench-jsonl-v-merged.out" --engine-dir "$tmp/merged" --build b10587-merged \
  --model "$TINY" --json
[ "$rc" -eq 0 ] || fail "merged jsonl: exit $rc: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "merged jsonl: not one stderr line: $(cat "$tmp/err")"
grep -q "bench-jsonl-v-merged.out: skipped 304 lines that are not llama-bench output (the first: 'llama_model_loader: " \
  "$tmp/err" || fail "merged jsonl: stderr: $(cat "$tmp/err")"
jcheck "$tmp/out" 'v["lines_skipped"] == 304' 'v["results_added"] == 2' 'v["samples_added"] == 4'
ok "jsonl with its log imported, 304 lines skipped"

# json after the Vulkan build's device lines (2>&1, no -v): a log before
# the array, skipped; the results are the Vulkan backend's.
mkdir -p "$tmp/vk"
capture st import "$FIX/bench-b10587-vulkan/bench-json-vk0-merged.out" --engine-dir "$tmp/vk" --build b10587-vk \
  --model "$TINY" --json
[ "$rc" -eq 0 ] || fail "vulkan json: exit $rc: $(cat "$tmp/err")"
grep -q "skipped 3 lines that are not llama-bench output (the first: 'ggml_vulkan: Found 1 Vulkan devices:')" \
  "$tmp/err" || fail "vulkan json: stderr: $(cat "$tmp/err")"
jcheck "$tmp/out" 'v["format"] == "json"' 'v["lines_skipped"] == 3' 'v["results_added"] == 2' 'v["gpu_ignored"] == 0'
st runs --engine b10587-vk --json >"$tmp/runs"
jcheck "$tmp/runs" 'all(x["backends"] == "Vulkan" for x in v[0]["results"])'
ok "json after the Vulkan build's device lines imported"

# Refused in one line, exit 3, nothing written: a file of log lines only, a
# json whose array a log cuts, sql with a log between its statements.
before=$(counts)
grep -v '^{' "$FIX/bench-b10587/bench-jsonl-v-merged.out" >"$tmp/log-only.jsonl"
expect_exit 3 "$tmp/log-only.jsonl: not llama-bench output (expected -o json, -o jsonl or -o sql): none of its 304 lines" \
  st import "$tmp/log-only.jsonl" --engine b10587-json --model "$TINY"
expect_exit 3 "bench-json-v-merged.out: line 280: not valid JSON" \
  st import "$FIX/bench-b10587/bench-json-v-merged.out" --engine b10587-json --model "$TINY"
expect_exit 3 "bench-sql-v-merged.out: line 280: near \"llama_perf_context_print\": syntax error" \
  st import "$FIX/bench-b10587/bench-sql-v-merged.out" --engine b10587-json --model "$TINY"

# -o sql that does what llama-bench never prints: refused by the guard; the
# file an ATTACH names is not created.
{ sed -n '1,/^);$/p' "$FIX/bench-b10587/bench-sql.stdout"
  echo "ATTACH DATABASE '$tmp/attached.db' AS x;"; } >"$tmp/attach.sql"
expect_exit 3 "attach.sql: line 43: ATTACH $tmp/attached.db is not allowed" \
  st import "$tmp/attach.sql" --engine b10587-json --model "$TINY"
[ ! -e "$tmp/attached.db" ] || fail "the ATTACH created its file"
{ cat "$FIX/bench-b10587/bench-sql.stdout"; echo "DELETE FROM llama_bench;"; } >"$tmp/delete.sql"
expect_exit 3 "delete.sql: line 46: DELETE FROM llama_bench is not allowed" \
  st import "$tmp/delete.sql" --engine b10587-json --model "$TINY"
[ "$(counts)" = "$before" ] || fail "a refused import changed the store"
ok "log-only files, logs inside json or sql, and hostile sql refused; nothing written"

e2e_finish
