# tests/real/fit.sh: lvd fit against a real CPU build, sourced by
# tests/real/run.sh after its engines are registered (it uses run.sh's E,
# LIBS, NAME, M2, run_lvd, check, figure). The memory limit is bash's
# `ulimit -v` (address space, KiB; LVD_REAL_FIT_ULIMIT, default 125000):
# lvd fit runs under it, and so does every llama-bench it starts, so a load
# whose KV cache and compute buffers pass the limit dies as it would out of
# memory ("failed to create context", exit 1, or std::bad_alloc's abort).
# The model is the tiny llama (2 blocks, 256 bytes of f16 KV a cell), trained
# at 4096, searched to --max-ctx 16384. The manual check: the engine's own
# llama-bench, run by this script under the same limit, loads the ceiling
# and fails 1 % + 1 above it.
step "fit"
FIT_ULIMIT=${LVD_REAL_FIT_ULIMIT:-125000}
cpu_i=
for i in "${!E[@]}"; do [ -z "${LIBS[i]}" ] && [ -z "$cpu_i" ] && cpu_i=$i; done
if [ -z "$cpu_i" ]; then
  echo "fit: no CPU-only build in LVD_REAL_ENGINES: skipped"
else
  cpu=${NAME[cpu_i]}
  t=$SECONDS
  capture bash -c 'ulimit -v "$1" && shift && exec "$@"' _ "$FIT_ULIMIT" \
    timeout -k 10 900 "$LVD_BIN/lvd" fit -m "$M2" --engines "$cpu" --max-ctx 16384 --timeout 120 --json
  expect_rc "lvd fit on $cpu under ulimit -v $FIT_ULIMIT" 0
  ceil=$(q "d[0]['ceiling']")
  probes=$(q "d[0]['probes']")
  figure "fit: $cpu, tiny-llama f16/f16 under ulimit -v $FIT_ULIMIT KiB: ceiling $ceil in $probes loads, $((SECONDS - t)) s"
  check "fit: a ceiling between 256 and the top, not capped" is "(256 <= d[0]['ceiling'] < 16384, d[0]['capped'])" "(True, False)"
  check "fit: at most log2(16384 - 4096) + 2 loads" test "$probes" -le 15
  above=$((ceil * 101 / 100 + 1))
  manual() { # N: exit status of the engine's own one-token load of N cells under the limit
    (ulimit -v "$FIT_ULIMIT"; timeout -k 5 120 "${E[cpu_i]}/llama-bench" -m "$M2" -d $(($1 - 2)) -p 1 -n 1 -r 1 \
      -o jsonl --no-warmup -ctk f16 -ctv f16 > /dev/null 2>&1); echo $?
  }
  check "fit: manual check: the engine's own llama-bench loads the ceiling $ceil under the limit" test "$(manual "$ceil")" -eq 0
  check "fit: manual check: and fails 1 % above it ($above)" test "$(manual "$above")" -ne 0
  run_lvd select --model "$M2" --ctx max --json
  if [ "$(q "d['engine']")" = "$cpu" ]; then
    check "fit: lvd select --ctx max on $cpu serves the ceiling less 5 %, down to 256" \
      is "d['argv'][d['argv'].index('-c') + 1]" "$((ceil * 95 / 100 / 256 * 256))"
  fi
fi
