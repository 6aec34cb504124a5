#!/usr/bin/env bash
# e2e_import_backend.sh: `lvd store import` never files rows of another
# backend under an engine. A CPU and a CUDA build of one llama.cpp source
# share commit and build number, so a llama-bench file holding both is told
# apart only by llama-bench's "backends" (and "gpu_info"): it is refused with
# one line naming the file, the row count and the backends seen, or narrowed
# with --select-backend (the others counted as skipped); rows of a backend
# other than the engine's recorded one are refused. The rows are the real H200
# captures of the CPU and the CUDA build of build 9749's tree
# (tests/fixtures/llama.cpp/gpu-h200/); the CUDA build was compiled without
# git, so its rows say build "unknown" 0, rewritten here to d32676d77 9749 as
# two release builds of that source print it. JSONL and the SQLite database
# compare-llama-bench.py reads (streamed). Needs LVD_BIN and LVD_FIXTURES.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FIXTURES
H200="$LVD_FIXTURES/llama.cpp/gpu-h200"
S="$tmp/store.db"
unset LVD_STORE
st() { "$LVD_BIN/lvd-store" --store "$S" "$@"; }
DENSE=973978067daa0$(printf 'd%.0s' $(seq 51))
MIXED="$tmp/mixed.jsonl"
{ cat "$H200/bench-cpu-dense.jsonl"
  sed 's/"build_commit": "unknown", "build_number": 0,/"build_commit": "d32676d77", "build_number": 9749,/' \
    "$H200/bench-cuda-dense-ngl99.jsonl"; } >"$MIXED"
check "the mixed file: 2 CPU rows and 4 CUDA rows of one commit and build" \
  test "$(grep -c '"build_commit": "d32676d77", "build_number": 9749,.*"backends": "CPU"' "$MIXED")" = 2 -a \
  "$(grep -c '"build_commit": "d32676d77", "build_number": 9749,.*"backends": "CUDA"' "$MIXED")" = 4
mkdir -p "$tmp/cuda" "$tmp/cpu"
counts() { st info --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["counts"])' 2>/dev/null; }
# jv FILE EXPR: the Python expression over the JSON in FILE (as v) holds
jv() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"; }

# 1. refused whole: one line with the file, the count and the backends seen; nothing recorded
expect_exit 3 "$MIXED: 6 results of more than one backend (CPU: 2, CUDA on NVIDIA H200: 4)" \
  st import "$MIXED" --engine-dir "$tmp/cuda" --engine b9749-cuda --build b9749 --artifact "$DENSE"
check "--select-backend is named as the way out" grep -qF "pick one with --select-backend NAME" "$tmp/err"
check "the refused import registered nothing" sh -c '! "$0" --store "$1" engines 2>/dev/null | grep -q b9749-cuda' \
  "$LVD_BIN/lvd-store" "$S"

# 2. narrowed: the CUDA rows under the CUDA engine, the CPU rows counted as skipped
st import "$MIXED" --engine-dir "$tmp/cuda" --engine b9749-cuda --build b9749 --artifact "$DENSE" \
  --select-backend cuda --json >"$tmp/cuda.json"
check "--select-backend CUDA: 6 rows, 4 selected, 2 of another backend" \
  jv "$tmp/cuda.json" 'v["rows"] == 6 and v["rows_selected"] == 4 and v["rows_other_backend"] == 2 and v["runs_added"] == 2'
check "only CUDA results under the CUDA engine" \
  test "$(st runs --engine b9749-cuda --json | python3 -c 'import json,sys; print(sorted({x["backends"] for r in json.load(sys.stdin) for x in r["results"]}))')" = "['CUDA']"
st import "$MIXED" --engine-dir "$tmp/cpu" --engine b9749-cpu --build b9749 --artifact "$DENSE" \
  --select-backend CPU >"$tmp/cpu.txt"
check "the text report counts the skipped rows" \
  grep -qF "6 results (jsonl), 2 selected (4 of another backend skipped): 1 runs added" "$tmp/cpu.txt"

# 3. the engine's recorded backend: CPU rows alone are still refused under the CUDA engine
grep '"backends": "CPU"' "$MIXED" >"$tmp/cpu-only.jsonl"
before=$(counts)
expect_exit 3 "$tmp/cpu-only.jsonl: its 2 results ran on backend CPU, but engine 'b9749-cuda' has results of backend CUDA" \
  st import "$tmp/cpu-only.jsonl" --engine b9749-cuda --artifact "$DENSE"
expect_exit 3 "none of its 2 results is of backend CUDA" \
  st import "$tmp/cpu-only.jsonl" --engine b9749-cuda --artifact "$DENSE" --select-backend CUDA
check "refusals changed nothing" test "$(counts)" = "$before"

# 4. the SQLite database (as llama-bench -o sql | sqlite3 builds it: no samples), streamed
python3 - "$MIXED" "$tmp/llama-bench.sqlite" <<'PY'
import json, sqlite3, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
cols = [k for k in rows[0] if not k.startswith("samples_")]
db = sqlite3.connect(sys.argv[2])
db.execute("CREATE TABLE llama_bench (%s)" % ", ".join(cols))
for r in rows:
    db.execute("INSERT INTO llama_bench VALUES (%s)" % ", ".join("?" * len(cols)),
               [int(r[c]) if isinstance(r[c], bool) else r[c] for c in cols])
db.commit()
PY
mkdir -p "$tmp/cuda2"
expect_exit 3 "$tmp/llama-bench.sqlite: 6 results of more than one backend (CPU: 2, CUDA on NVIDIA H200: 4)" \
  st import "$tmp/llama-bench.sqlite" --engine-dir "$tmp/cuda2" --engine cuda2 --build b9749 --artifact "$DENSE" \
  --select-build b9749
st import "$tmp/llama-bench.sqlite" --engine-dir "$tmp/cuda2" --engine cuda2 --build b9749 --artifact "$DENSE" \
  --select-build b9749 --select-backend CUDA --json >"$tmp/db.json"
check "the database narrowed to CUDA: 4 of 6 rows, 2 skipped" \
  jv "$tmp/db.json" 'v["sqlite_db"] and v["rows"] == 6 and v["rows_selected"] == 4 and v["rows_other_backend"] == 2'
check "its CPU rows are not under the CUDA engine" \
  test "$(st runs --engine cuda2 --json | python3 -c 'import json,sys; print(sorted({x["backends"] for r in json.load(sys.stdin) for x in r["results"]}))')" = "['CUDA']"

e2e_finish
