#!/usr/bin/env bash
# e2e_bench.sh: `lvd bench` end to end against engine directories holding
# copies of tests/fake-engine with known true speeds: three arms ranked
# right, a tie called a tie, a crashing and a hanging arm recorded (failed,
# with reasons) and excluded while the rest decide, an arm that ignores -ngl
# flagged GPU FLAGS IGNORED and never scored, an unprobeable engine skipped
# and recorded, nothing measurable -> exit 1, usage errors, and a bench
# killed mid-session losing none of the runs it had recorded. Reads results
# through `lvd bench --json` and `lvd store runs --json` (python3 for JSON).
# Not a test of the statistics (test_rank, test_stats) or of single
# invocations (test_runner).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
MODEL=$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf

# leader_engine TEST: engine of the leader of TEST's ranking
leader_engine() { q "[a['engine'] for a in d['arms'] if a['arm'] == [t for t in d['tests'] if t['test'] == '$1'][0]['leader']][0]"; }

# ------------------------------------------------------------ ranking
world rank
engine cuda "device = CUDA0|NVIDIA H200|143155|142629|9.0" "dev.CUDA0.tg = 1000" "dev.CUDA0.pp = 60000" "warmup = 0.5"
engine vulkan "device = Vulkan0|NVIDIA H200|143771|143139" "dev.Vulkan0.tg = 800" "dev.Vulkan0.pp = 17000"
engine cpu "cpu.tg = 50" "cpu.pp = 400"
CUDA=cuda VK=vulkan CPU=cpu
lvd bench --model "$MODEL" --fa on --session e2e-rank --json
expect_rc "three arms, known speeds" 0
check "stopped settled" is "d['stop']" settled
check "tg128 decided: win" is "[t['state'] for t in d['tests'] if t['test']=='tg128'][0]" win
check "the 1000 t/s CUDA arm leads" is "'$(leader_engine tg128)'" "$CUDA"
check "ranking CUDA > Vulkan > CPU" is "[[a['engine'] for a in d['arms'] if a['arm']==r['arm']][0] for r in [t for t in d['tests'] if t['test']=='tg128'][0]['ranking']]" "['$CUDA', '$VK', '$CPU']"
check "Vulkan at 0.8 of the leader" is "abs([r for r in d['tests'][1]['ranking'] if r['rank']==2][0]['vs_leader']['ratio'] - 0.8) < 0.03" True
check "the CPU arm has no GPU flag" is "[a['params']['ngl'] for a in d['arms'] if a['engine']=='$CPU']" "[None]"
check "the CUDA arm uses the probe's selector" is "[a['params']['device'] for a in d['arms'] if a['engine']=='$CUDA']" "['CUDA0']"
check "warm-up dropped and counted" is "[r['dropped'] > 0 for r in d['tests'][1]['ranking'] if r['rank']==1][0]" True
check "every run in the store, session id on each" bash -c "'$LVD_BIN/lvd' store --json runs --limit 0 | python3 -c \"
import json,sys; r=json.load(sys.stdin); sys.exit(not (len(r) > 0 and all(x['session']=='e2e-rank' and x['status']=='ok' for x in r)))\""
lvd bench --model "$MODEL" --fa on --session e2e-rank2
check "the table names the decision, at the serving depth" has "^Decision \(objective tg: tg128@d2048\): $CUDA CUDA0 ngl=99 fa=on wins against all 2 other arms"
check "pp is shown, not deciding" has "^pp512  \(shown; the objective does not decide on it\)"

# ------------------------------------------------------------ tie
world tie
engine a "device = CUDA0|NVIDIA H200|143155|142629|9.0" "dev.CUDA0.tg = 900" "noise = 0.004"
engine b "device = CUDA0|NVIDIA H200|143155|142629|9.0" "dev.CUDA0.tg = 900" "noise = 0.004"
lvd bench --model "$MODEL" --tests tg128 --fa on --reps 5 --json
expect_rc "two arms of equal speed" 0
check "called a tie" is "d['tests'][0]['state']" tie
check "the other arm is marked tied" is "sorted(r['status'] for r in d['tests'][0]['ranking'])" "['leader', 'tied']"
lvd bench --model "$MODEL" --tests tg128 --fa on --reps 5
check "the table says tie" has "^Decision \(objective tg: tg128@d2048\): tie between"

# ------------------------------------------------------------ faults
world faults
engine good "device = CUDA0|NVIDIA H200|143155|142629|9.0" "dev.CUDA0.tg = 1000"
engine crash "device = CUDA0|NVIDIA H200|143155|142629|9.0" "bench.fault = crash"
engine hang "device = CUDA0|NVIDIA H200|143155|142629|9.0" "bench.fault = hang" "hang_s = 600"
engine ignores "device = Vulkan0|NVIDIA H200|143771|143139" "ignore_ngl = 1" "cpu.tg = 5000"
engine noprobe "device = CUDA0|NVIDIA H200|143155|142629|9.0" "list_devices_fault = crash"
engine cpu "cpu.tg = 50"
GOOD=good
start=$(date +%s)
lvd bench --model "$MODEL" --fa on --timeout 4 --json
expect_rc "crash, hang, ignored -ngl, unprobeable: partial" 5
check "the healthy arms still decide" is "[t['state'] for t in d['tests'] if t['test']=='tg128'][0]" win
check "the healthy GPU leads, not the CPU-speed 'GPU'" is "'$(leader_engine tg128)'" "$GOOD"
check "the crashing arm: excluded, signal 11" is "[(a['status'], a['failures'], 'signal 11' in a['reason']) for a in d['arms'] if a['engine'].endswith('crash')]" "[('excluded', 2, True)]"
check "the hanging arm: excluded, timed out" is "[(a['status'], 'timed out' in a['reason']) for a in d['arms'] if a['engine'].endswith('hang')]" "[('excluded', True)]"
check "the -ngl ignoring arm: gpu_ignored, run once" is "[(a['status'], a['runs']) for a in d['arms'] if a['engine'].endswith('ignores')]" "[('gpu_ignored', 1)]"
check "and never ranked" is "[r['rank'] for r in d['tests'][1]['ranking'] if d['arms'][r['arm']]['engine'].endswith('ignores')]" "[None]"
check "the unprobeable engine skipped with its reason" is "[s['reason'].startswith('probe unknown') for s in d['skipped']]" "[True]"
# the hang lasts 600 s, two tries: a bench that waited would take 20 minutes;
# 120 s leaves room for a sanitizer build on a loaded machine
check "the hang was killed, not waited for" test $(( $(date +%s) - start )) -lt 120
check "no hung llama-bench left behind" bash -c "! ps -eo args | grep -F -- '$W/hang/llama-bench' | grep -v grep"
"$LVD_BIN/lvd" store --json runs --limit 0 > "$tmp/out"
check "store: 2 failed runs of the crashing arm, with reasons" is "len([r for r in d if r['engine'].endswith('crash') and r['status']=='failed' and 'signal 11' in r['reason']])" 2
check "store: 2 failed runs of the hanging arm" is "len([r for r in d if r['engine'].endswith('hang') and r['status']=='failed' and 'timed out' in r['reason']])" 2
check "store: the gpu_ignored run" is "[r['status'] for r in d if r['engine'].endswith('ignores')]" "['gpu_ignored']"
check "store: the skipped engine, not run" is "[r['reason'].startswith('not run: probe unknown') for r in d if r['engine'].endswith('noprobe')]" "[True]"
lvd bench --model "$MODEL" --fa on --timeout 4
check "GPU FLAGS IGNORED is loud on stderr" has_err "warning: GPU FLAGS IGNORED: .*ignores Vulkan0 ngl=99 fa=on"
check "and in the table" has "GPU FLAGS IGNORED"
check "the exclusion is explained" has "^excluded: .*crash CUDA0 ngl=99 fa=on after 2 failed runs: killed by signal 11"

# ------------------------------------------------------------ nothing measurable
world nothing
engine crash "device = CUDA0|NVIDIA H200|143155|142629|9.0" "bench.fault = exit1"
lvd bench --model "$MODEL" --fa on
expect_rc "only a failing engine: nothing measured" 1
check "and it says so" has_err "nothing could be measured"

# ------------------------------------------------------------ usage
lvd bench
expect_rc "no --model" 2
lvd bench --model "$MODEL" --fa maybe
expect_rc "bad --fa" 2
lvd bench --model "$tmp/missing.gguf"
expect_rc "missing model file" 3
lvd bench --model "$MODEL" --tests pp512 --objective tg
expect_rc "objective tg without a tg test" 2
lvd bench --help
expect_rc "--help" 0
check "--help has examples" has "^examples?:"

# ------------------------------------------------------------ killed mid-session
# (three GPU engines: a look runs GPU keys before the CPU, bench/group.h, so the hanging one is last)
world killed
engine first "device = CUDA0|NVIDIA H200|143155|142629|9.0" "dev.CUDA0.tg = 1000"
engine second "device = CUDA0|NVIDIA H200|143155|142629|9.0" "dev.CUDA0.tg = 500"
engine last "device = CUDA0|NVIDIA H200|143155|142629|9.0" "bench.fault = hang" "hang_s = 3"
"$LVD_BIN/lvd" bench --model "$MODEL" --fa on --timeout 60 > "$tmp/out" 2> "$tmp/err" &
bg=$!
E2E_PIDS+=("$bg")
for _ in $(seq 100); do
  grep -q -- "-o jsonl" "$W/last/calls.log" 2>/dev/null && break
  sleep 0.1
done
{ kill -9 "$bg"; wait "$bg"; } 2>/dev/null
E2E_PIDS=()
done_runs=$(cat "$W/first/calls.log" "$W/second/calls.log" | grep -c -- "-o jsonl")
"$LVD_BIN/lvd" store --json runs --limit 0 > "$tmp/out"
check "the bench was killed while the hanging arm ran, after others finished" test "$done_runs" -ge 2
check "killed during a hang: the finished runs are all in the store" is "len([r for r in d if r['status']=='ok'])" "$done_runs"
check "the store is intact" bash -c "'$LVD_BIN/lvd' store info > /dev/null"

e2e_finish
