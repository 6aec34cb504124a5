#!/usr/bin/env bash
# e2e_nightly_model_change.sh: a model file replaced while the nightly
# measures it (docs/nightly.md). The job
# identifies each model before its check and again after its verdict; a different sha256 is reported in one line, the
# night is partial (exit 5), and what was recorded stays keyed by the artifact
# each step actually saw.
. "$(dirname "$0")/e2e_lib.sh"
e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_FIXTURES LVD_SOURCE

world night
engine cpu "cpu.tg = 50" "sleep_ms = 1500"
engine gpu "device = CUDA0|NVIDIA GeForce RTX 4090|24564|23000|8.9" "dev.CUDA0.tg = 900" "sleep_ms = 1500"
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$W/model.gguf"
offline_conf "$W/nightly.conf" "discover = off"

"$LVD_BIN/lvd" nightly --config "$W/nightly.conf" > "$tmp/night.out" 2>&1 &
night=$!
# once the job has identified the model and begun its check, replace the file
# (a new file renamed over it, as a download tool would)
for _ in $(seq 1 600); do
  grep -q "step 'check model.gguf'" "$W/nightly.log" 2>/dev/null && break
  sleep 0.05
done
cp "$LVD_FIXTURES/models/tiny-moe-q4_0.gguf" "$W/model.gguf.new" && mv "$W/model.gguf.new" "$W/model.gguf"
rc=0
wait $night || rc=$?
cat "$tmp/night.out"

check "the night is partial (exit 5)" test "$rc" -eq 5
check "one line says the model changed" test "$(grep -c 'changed during the night' "$tmp/night.out")" -eq 1
check "the line names both artifacts" grep -q "194f08028caf -> " "$tmp/night.out"
check "the log has it too" grep -q "changed during the night" "$W/nightly.log"
lvd store artifacts --json
check "both artifacts are in the store" test "$(q "len(d if isinstance(d, list) else d['artifacts'])")" -eq 2
e2e_finish
