#!/usr/bin/env bash
# e2e_fitprint.sh: llama.cpp's own memory figures, asked where spawning
# belongs and used where it does not. The fake engine plays
# llama-fit-params --fit-print (tests/fake-engine/fake_fit.c: per device and
# the host, "NAME model context compute" MiB); its scenario key
# fitprint_context_x = 0.25 makes llama.cpp keep a quarter of the KV the
# GGUF shape prices, as for an architecture whose blocks the shape
# over-counts. lvd bench asks once per engine, device and setting and
# records the figures; lvd select, which spawns nothing, takes the weights
# and KV from them (placement.predicted's sources in --json, the explain
# line), keeps the estimator's compute buffer for a graph it follows, and
# falls back to the shape when the figures are for another setting or the
# engine has no --fit-print.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
unset LVD_HOST
MODEL=$LVD_SOURCE/tests/fixtures/models/small-llama-q8_0.gguf
sql() { python3 -c "import sqlite3,sys; print(sqlite3.connect('$LVD_STORE').execute(sys.argv[1]).fetchall())" "$1"; }
DEV="device = CUDA0|NVIDIA GeForce RTX 3060|12288|11000|8.6"

world figures
engine cuda "$DEV" "noise = 0.01" "fitprint_context_x = 0.25"
cp "$LVD_FAKE_ENGINE" "$W/cuda/llama-fit-params"
lvd bench --model "$MODEL" --tests tg128 --depth 0 --fa on,off --check --json
expect_rc "benched" 0
check "llama-fit-params was asked once per setting, at the serving context, every layer, --fit-print on" \
  is "$(grep -c -- '--fit-print on' "$W/cuda/calls.log")" 2
check "its line: the device, the setting, -ngl 99" \
  grep -qE "llama-fit-params -m [^ ]+ -dev CUDA0 -c 4096 -ub 512 -b 512 -fa on -ngl 99 --fit-print on$" "$W/cuda/calls.log"
check "the figures are recorded with the engine's files" \
  is "$(sql "SELECT device, ctx, ubatch, fa, dev_context, files != '' FROM fit_prints ORDER BY fa")" \
  "[('CUDA0', 4096, 512, 0, 2, 1), ('CUDA0', 4096, 512, 1, 2, 1)]"
check "and noted in the report" \
  is "any(n.startswith(\"llama.cpp's memory for cuda on CUDA0 at ctx 4096\") for n in d['placement']['notes'])" "True"

: > "$W/cuda/calls.log"
lvd select --model "$MODEL" --record
expect_rc "the verdict recorded" 0
lvd select --model "$MODEL" --json
expect_rc "selected" 0
check "lvd select spawned nothing" is "$(wc -c < "$W/cuda/calls.log")" 0
check "weights and KV from llama-fit-params, compute from the estimator's graph" \
  is "[d['placement']['predicted'][k] for k in ('weights_from', 'kv_from', 'compute_from')]" \
  "['llama-fit-params', 'llama-fit-params', 'estimator-graph']"
check "the KV is llama.cpp's quarter of the shape's 8 MiB" is "d['placement']['predicted']['kv_mib'] in (2, 3)" True
check "explain names the source" \
  is "any('from llama-fit-params of cuda' in l for l in d['explain'])" "True"

lvd select --model "$MODEL" --ctx 8192 --json
check "another context: the shape's figures, and why" \
  is "(d['placement']['predicted']['kv_from'], any('has no figures at ctx 8192' in l for l in d['explain']))" \
  "('gguf-shape', True)"

# a changed engine: its figures are no longer used, and the line says why (its verdict is stale:
# the heuristic's line, flash attention as llama.cpp's default, priced off)
printf '\0' >> "$W/cuda/llama-server"
"$LVD_BIN/lvd" probe > /dev/null 2>&1 || fail "lvd probe after the engine changed"
lvd select --model "$MODEL" --json
check "other engine files: the shape's figures" is "d['placement']['predicted']['kv_from']" "gguf-shape"
check "and why" is "any('made by other engine files' in l for l in d['explain'])" "True"

# a build before --fit-print: noted, and placement keeps the shape's figures
world old
engine cuda "$DEV" "noise = 0.01" "fitprint = 0"
cp "$LVD_FAKE_ENGINE" "$W/cuda/llama-fit-params"
lvd bench --model "$MODEL" --tests tg128 --depth 0 --fa on --json
check "the failure is noted" \
  is "any(n.startswith(\"llama.cpp's memory for cuda on CUDA0: llama-fit-params\") for n in d['placement']['notes'])" "True"
check "nothing recorded" is "$(sql "SELECT count(*) FROM fit_prints")" "[(0,)]"
lvd select --model "$MODEL" --record
lvd select --model "$MODEL" --json
check "the shape's figures" is "d['placement']['predicted']['kv_from']" "gguf-shape"
e2e_finish
