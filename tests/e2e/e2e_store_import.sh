#!/usr/bin/env bash
# e2e_store_import.sh: `lvd store` end to end on the real llama-bench captures:
# import json, jsonl and sql output (counts checked through --json), re-import
# without duplicates, the gpu_ignored marking, shared sessions and warm-up
# flags, several files in one invocation, refusals with their exit codes, and the listings. Needs LVD_BIN and LVD_FIXTURES (set by ctest).
E2E_FAIL_FAST=1
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FIXTURES
LVD_STORE_BIN="$LVD_BIN/lvd-store"
FIX="$LVD_FIXTURES/llama.cpp/cpu-build-b9749"
MODEL="$LVD_FIXTURES/models/small-llama-q8_0.gguf"
MOE="$LVD_FIXTURES/models/tiny-moe-q4_0.gguf"
S="$tmp/store.db"
unset LVD_STORE

st() { "$LVD_STORE_BIN" --store "$S" "$@"; }
# json FIELD...: reads JSON on stdin and prints the value at the path (python3 only reads).
json() { python3 -c 'import json,sys
v=json.load(sys.stdin)
for k in sys.argv[1:]: v=v[int(k)] if isinstance(v,list) else v[k]
print(json.dumps(v) if isinstance(v,(dict,list)) else v)' "$@"; }
# jcheck FILE EXPR...: each Python expression over the JSON in FILE (as v) must hold.
jcheck() { python3 - "$@" <<'PY' || fail "$1: $(cat "$1")"
import json, sys
v = json.load(open(sys.argv[1]))
bad = [e for e in sys.argv[2:] if not eval(e, {"v": v})]
for e in bad: print("does not hold:", e, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}
counts() { st info --json | json counts "$1"; }

# --help and usage errors.
capture "$LVD_STORE_BIN" --help # whole, not piped: grep -q would end the writer early (SIGPIPE, pipefail)
grep -q "lvd store import out.jsonl" "$tmp/out" || fail "--help has no example"
expect_exit 2 "missing COMMAND" "$LVD_STORE_BIN" --store "$S"
expect_exit 2 "unknown command 'frob'" st frob
expect_exit 2 "--format wants auto, json, jsonl or sql, not 'md'" st import x --format md
# --host is the shared option (common/opt_vocab.h): an empty name is refused.
expect_exit 2 "--host wants a name" st import x --host ""
# Reading a store that does not exist is refused and creates nothing.
expect_exit 4 "no store here" st info
[ ! -e "$S" ] || fail "info created the store"

# The model first: recorded with its shape, sha256 as sha256sum computes it.
sha=$(sha256sum "$MODEL" | cut -d' ' -f1)
st model "$MODEL" --json >"$tmp/model.json"
jcheck "$tmp/model.json" "v['sha256'] == '$sha'" 'v["shape"]["arch"] == "llama"' 'v["shape"]["n_block"] == 4' \
  'v["shape"]["file_type_name"] == "Q8_0"' 'v["shape"]["tensor_bytes"] == 20550656' 
st model "$MODEL" | grep -q "^sha256: *$sha" || fail "model text output"

# json: a new engine registered from its directory, the model by path.
mkdir -p "$tmp/b9749"
st import "$FIX/bench-json.stdout" --engine-dir "$tmp/b9749" --build b9749 --model "$MODEL" --json >"$tmp/r1"
# One run: pp128 and tg32 share their parameters.
jcheck "$tmp/r1" 'v["format"] == "json"' 'v["runs_added"] == 1' 'v["samples_added"] == 6' 'v["engine_registered"]'

# jsonl: the engine by name now, the model by its sha256.
st import "$FIX/bench-jsonl.stdout" --engine b9749 --artifact "$sha" --json >"$tmp/r2"
jcheck "$tmp/r2" 'v["runs_added"] == 1' 'v["results_added"] == 3' 'v["samples_added"] == 9' \
  'not v["engine_registered"]' 
# sql: no samples, the averages are kept.
st import "$FIX/bench-sql.stdout" --engine b9749 --artifact "$sha" >"$tmp/r3"
grep -q "1 runs added (2 results, 0 samples, 0 flagged as warm-up)" "$tmp/r3" || fail "sql import line: $(cat "$tmp/r3")"

st info --json >"$tmp/info"
jcheck "$tmp/info" 'v["counts"]["runs"] == 3' 'v["counts"]["results"] == 7' 'v["counts"]["samples"] == 15' \
  'v["counts"]["artifacts"] == 1' 'v["counts"]["engines"] == 1' 'v["schema_version"] == 24' "v['path'] == '$S'"

# Importing again adds nothing, in any of the three formats.
for f in bench-json.stdout bench-jsonl.stdout bench-sql.stdout; do
  st import "$FIX/$f" --engine b9749 --artifact "$sha" --json >"$tmp/again"
  jcheck "$tmp/again" 'v["runs_added"] == 0' 'v["runs_skipped"] == 1' 
done
[ "$(counts runs)" = 3 ] && [ "$(counts samples)" = 15 ] || fail "re-import changed counts"
# ... and the stub of a known artifact did not erase its shape.
st artifacts --json | json 0 shape arch | grep -qx llama || fail "shape lost"

# The SQLite database compare-llama-bench.py reads (llama-bench -o sql | sqlite3 DB),
# here holding a second model and a second build too: narrowed by --select-*,
# and its rows are the ones the sql text already brought.
python3 - "$FIX/bench-sql.stdout" "$tmp/llama-bench.sqlite" <<'PY'
import sqlite3, sys
sql = open(sys.argv[1]).read()
db = sqlite3.connect(sys.argv[2])
db.executescript(sql)
db.executescript(sql.replace("small-llama-q8_0.gguf", "other.gguf").replace("14:3", "15:3"))
db.executescript(sql.replace("'d32676d77', '9749'", "'e00000000', '9800'").replace("14:3", "16:3"))
db.commit()
PY
expect_exit 3 "more than one model" st import "$tmp/llama-bench.sqlite" --engine b9749 --artifact "$sha"
expect_exit 3 "more than one build" st import "$tmp/llama-bench.sqlite" --engine b9749 --artifact "$sha" \
  --select-model small-llama-q8_0.gguf
expect_exit 3 "none of its 6 results is of build b1" st import "$tmp/llama-bench.sqlite" --engine b9749 \
  --artifact "$sha" --select-build b1
st import "$tmp/llama-bench.sqlite" --engine b9749 --artifact "$sha" --select-model small-llama-q8_0.gguf \
  --select-build b9749 --json >"$tmp/db"
# The database's rows are the ones the sql text brought: no duplicate.
jcheck "$tmp/db" 'v["sqlite_db"]' 'v["rows"] == 6' 'v["rows_selected"] == 2' 'v["runs_skipped"] == 1' \
  'v["runs_added"] == 0' 
[ "$(counts runs)" = 3 ] || fail "database import changed counts"

# The runs as recorded: keys, sources, samples, the sql average.
st runs --json >"$tmp/runs.json"
# Newest first: the sql run, then jsonl and json (same start, later id first).
jcheck "$tmp/runs.json" 'len(v) == 3' 'all(r["source"] == "import" and r["status"] == "ok" for r in v)' \
  "all(r['artifact'] == '$sha' for r in v)" 'v[0]["build_commit"] == "d32676d77"' 'v[0]["build_number"] == 9749' \
  'v[0]["session"] == "import:bench-sql.stdout"' 'v[1]["session"] == "import:bench-jsonl.stdout"' \
  'all(r["arm_key"] == "dev=- ngl=- fa=- ub=512 ctk=f16 ctv=f16 ncmoe=- t=2 env=" for r in v)' \
  'v[0]["results"][0]["reported_avg_ts"] == 6678.531692' 'v[0]["results"][0]["n"] == 0' \
  'v[0]["results"][0]["median_ts"] is None' \
  'v[2]["results"][0]["samples_ts"] == [6925.3, 5769.32, 7195.05]' \
  'v[2]["results"][0]["samples_ns"] == [18482944, 22186319, 17790002]' \
  'v[2]["results"][0]["median_ts"] == 6925.3' 'v[1]["started_at"] == v[2]["started_at"] == 1796049535' \
  '[x["test"] for x in v[1]["results"]] == ["pp128", "pp256", "tg32"]' 
st runs >"$tmp/runs.txt"
grep -Eq "^[0-9]+ +b9749 +pp128 +6925\.30 +3  ok " "$tmp/runs.txt" || fail "runs table median: $(cat "$tmp/runs.txt")"
grep -Eq " pp128 +6678\.53\* +0 " "$tmp/runs.txt" || fail "runs table sql average"
grep -q "^\* llama-bench's average" "$tmp/runs.txt" || fail "footnote"
st engines | grep -Eq "^1 +b9749 +b9749 +not probed +$tmp/b9749\$" || fail "engines: $(st engines)"
st artifacts | grep -Eq "^${sha:0:12} +[0-9.]+ MiB +llama +4 +0 +Q8_0\$" || fail "artifacts: $(st artifacts)"

# -ngl 99 on a CPU-only build: recorded, marked gpu_ignored with the reason.
st import "$FIX/bench-ngl99-cpu-only.stdout" --engine b9749 --artifact "$sha" >"$tmp/r4"
grep -qxF "warning: 1 runs asked for GPU layers but ran on the CPU (recorded as gpu_ignored)" "$tmp/r4" || fail "gpu_ignored warning: $(cat "$tmp/r4")"
st runs --limit 1 --json | json 0 status | grep -qx gpu_ignored || fail "gpu_ignored status"
st runs --limit 1 --json | json 0 reason | grep -q "backends CPU with n_gpu_layers 99" || fail "gpu_ignored reason"

# Two parameter sets in one file: two runs. --env is part of the arm.
st import "$FIX/bench-moe-ncmoe.stdout" --engine b9749 --model "$MOE" --env "GGML_X=1" --json >"$tmp/r5"
[ "$(json runs_added <"$tmp/r5")" = 2 ] || fail "ncmoe 0,2: two runs"
st runs --limit 1 --json | json 0 arm_key | grep -qx "dev=- ngl=- fa=- ub=512 ctk=f16 ctv=f16 ncmoe=2 t=2 env=GGML_X=1" \
  || fail "ncmoe arm key"
[ "$(counts artifacts)" = 2 ] || fail "moe artifact"

# --session: imports share a session; warm-up flagged as lvd bench flags it;
# a re-import into another session adds nothing and says where the runs are.
H200="$LVD_FIXTURES/llama.cpp/gpu-h200"
DENSE=973978067daa0$(printf 'd%.0s' $(seq 51))
st import "$H200/bench-cuda-dense-ngl99.jsonl" --engine-dir "$tmp/cuda" --engine cuda --build b9749 \
  --artifact "$DENSE" --session night-1 --json >"$tmp/r6"
jcheck "$tmp/r6" 'v["runs_added"] == 2' 'v["warmup_flagged"] == 2' 'v["skipped_session"] is None'
st runs --limit 1 --json | json 0 session | grep -qx night-1 || fail "--session not recorded"
st import "$H200/bench-cuda-dense-ngl99.jsonl" --engine cuda --artifact "$DENSE" >"$tmp/r7"
grep -q "0 runs added (0 results, 0 samples, 0 flagged as warm-up), 2 already in the store" "$tmp/r7" &&
  grep -q "note: runs already in the store stay in their session 'night-1'" "$tmp/r7" || fail "re-import: $(cat "$tmp/r7")"
expect_exit 2 "--session wants a name" st import "$H200/bench-cuda-dense-ngl99.jsonl" --engine cuda --artifact "$DENSE" --session ""

# Refusals leave the store as it was.
before=$(st info --json | json counts)
expect_exit 2 "no engine named 'nope'" st import "$FIX/bench-json.stdout" --engine nope --artifact "$sha"
expect_exit 2 "--model M.gguf, or --artifact" st import "$FIX/bench-json.stdout" --engine b9749
expect_exit 2 "not a SHA-256" st import "$FIX/bench-json.stdout" --engine b9749 --artifact ABC
expect_exit 2 "needs --build" st import "$FIX/bench-json.stdout" --engine-dir "$tmp/x" --artifact "$sha"
mkdir -p "$tmp/b9800"
expect_exit 3 "reports build b9749 (d32676d77), but engine 'b9800' is build b9800" \
  st import "$FIX/bench-json.stdout" --engine-dir "$tmp/b9800" --build b9800 --artifact "$sha"
expect_exit 3 "20550656 bytes of tensors, but artifact" \
  st import "$FIX/bench-json.stdout" --engine b9749 --model "$MOE"
expect_exit 3 "$FIX/bench-md.stdout: llama-bench markdown output" \
  st import "$FIX/bench-md.stdout" --engine b9749 --artifact "$sha"
printf 'garbage\n' >"$tmp/garbage.txt"
expect_exit 3 "$tmp/garbage.txt: not llama-bench output" st import "$tmp/garbage.txt" --engine b9749 --artifact "$sha"
head -c 1500 "$FIX/bench-json.stdout" >"$tmp/cut.json"
expect_exit 3 "$tmp/cut.json: line" st import "$tmp/cut.json" --engine b9749 --artifact "$sha"
expect_exit 3 "no-such.jsonl" st import "$tmp/no-such.jsonl" --engine b9749 --artifact "$sha"
[ "$(st info --json | json counts)" = "$before" ] || fail "a refused import changed the store"
st engines | grep -q b9800 && fail "a refused import registered its engine"

# Several files in one invocation: one transaction each, --json an array; the
# first file that fails stops the rest and the files before it stay imported.
st2() { "$LVD_STORE_BIN" --store "$tmp/multi.db" "$@"; }
st2 import "$FIX/bench-json.stdout" "$FIX/bench-jsonl.stdout" --engine-dir "$FIX" --engine b9749 --build b9749 \
  --model "$MODEL" --json >"$tmp/multi"
jcheck "$tmp/multi" 'len(v) == 2' 'v[0]["runs_added"] == 1' 'v[1]["runs_added"] == 1' \
  'v[0]["file"].endswith("bench-json.stdout")' 'v[1]["samples_added"] == 9' 'v[0]["engine_registered"]' \
  'not v[1]["engine_registered"]'
expect_exit 3 "1 of 2 files imported before this one" st2 import "$FIX/bench-sql.stdout" "$tmp/missing.jsonl" \
  --engine b9749 --model "$MODEL"
[ "$("$LVD_STORE_BIN" --store "$tmp/multi.db" info --json | json counts runs)" = 3 ] || fail "multi-file import counts"
# Given once per file, --artifact (like --engine and --model) names each file's, in order.
OTHER=cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc
msha=$("$LVD_STORE_BIN" --store "$tmp/multi.db" artifacts --json | json 0 sha256)
st2 import "$FIX/bench-json.stdout" "$FIX/bench-jsonl.stdout" --engine b9749 --artifact "$msha" \
  --artifact "$OTHER" --json >"$tmp/multi2"
jcheck "$tmp/multi2" 'v[0]["runs_skipped"] == 1' "v[0]['artifact'] == '$msha'" 'v[1]["runs_added"] == 1' \
  "v[1]['artifact'] == '$OTHER'"
expect_exit 2 "--engine given 2 times for 3 files" st2 import "$FIX/bench-json.stdout" "$FIX/bench-jsonl.stdout" \
  "$FIX/bench-sql.stdout" --engine b9749 --engine b9749 --artifact "$msha"

# A store newer than this binary is refused, byte for byte untouched.
cp "$S" "$tmp/newer.db"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("PRAGMA user_version=99"); c.commit(); c.close()' "$tmp/newer.db"
sum=$(sha256sum "$tmp/newer.db")
expect_exit 4 "schema version 99 is newer" "$LVD_STORE_BIN" --store "$tmp/newer.db" info
expect_exit 4 "schema version 99 is newer" "$LVD_STORE_BIN" --store "$tmp/newer.db" import "$FIX/bench-json.stdout" --engine b9749 --artifact "$sha"
[ "$(sha256sum "$tmp/newer.db")" = "$sum" ] || fail "newer store was modified"
# The dispatcher reaches the tool.
"$LVD_BIN/lvd" store --store "$S" info --json | json counts runs | grep -qx 8 || fail "lvd store info"
# LVD_STORE is honoured.
LVD_STORE="$S" "$LVD_STORE_BIN" info --json | json path | grep -qx "$S" || fail "LVD_STORE"

e2e_finish
