#!/usr/bin/env bash
# e2e_ik.sh: ik_llama.cpp beside mainline llama.cpp, through the fake engine's
# ik persona (family = ik_llama.cpp, tests/fake-engine/fake.h: its version
# line of mainline's old form, no --list-devices, CUDA's start-up lines, its
# llama-bench's usage, -o json, -gp and JSON fields). Cases:
#   register: `lvd fetch --register DIR` without --build takes it as
#     ik_llama.cpp build 4840 (tag ik4840), never as mainline's b4840;
#   probe: a CPU build labelled cpu, a CUDA build's devices from its start-up
#     lines; an ik build is never older than a mainline pin, a mainline b4840 is;
#   check: lvd check probes a changed ik engine again itself, takes a CPU
#     reference per family and checks ik's CUDA device against ik's CPU with
#     its llama-perplexity;
#   bench: one lvd bench over a mainline and an ik engine stores every sample
#     of both (ik's tg at depth through -gp) and ranks them together;
#   select: the recorded verdict's line is ik's llama-server's, --explain and
#     the evidence page name its family;
#   import: ik's llama-bench JSON (every sample) and SQL (means) captures;
#   means only: an ik build that prints each test's mean and no samples is
#     measured one repetition per process, each mean a sample;
#   knobs: -fmoe 0,1 -rtr 0,1 give ik's arms one process per value (mainline's
#     run without them, a note says so), and the winner's line says -rtr in
#     ik's llama-server's words.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_SOURCE LVD_FAKE_ENGINE
world ik
MODEL=$LVD_SOURCE/tests/fixtures/models/tiny-moe-q4_0.gguf
IK="family = ik_llama.cpp"
fake_engine "$W/ik" "$IK" "build_number = 4840" "build_commit = 8337e4cd3" "cpu.pp = 600" "cpu.tg = 70" \
    "noise = 0.005" "tg.rtr=1 = 1.3" "tg.fmoe=0 = 0.8"
fake_engine "$W/ikcuda" "$IK" "build_number = 4840" "build_commit = 8337e4cd3" \
    "device = CUDA0|NVIDIA H200|143156|142000|9.0"
fake_engine "$W/main" "build_number = 10587" "build_commit = 3f545becc" "version = 0.2.0-dev" "cpu.pp = 400" \
    "cpu.tg = 50" "noise = 0.005"
fake_engine "$W/old" "build_number = 4840" "build_commit = 0123abcd"

# --- register -------------------------------------------------------------------------
lvd fetch --register "$W/ik" --json
expect_rc "an ik_llama.cpp build registers without --build" 0
check "its family and its own build tag, not mainline's b4840" is \
    "(d['engine']['family'], d['engine']['build'], d['engine']['name'], d['engine']['commit'])" \
    "('ik_llama.cpp', 'ik4840', 'ik4840-ik', '8337e4cd3')"
check "a CPU build without --list-devices is probed as cpu" is "(d['probe']['backend'], d['probe']['reason'])" \
    "('cpu', None)"
lvd fetch --register "$W/ikcuda" --name ikcuda --json
check "a CUDA build's devices come from its start-up lines" is \
    "[(x['selector'], x['name'], x['compute_cap'], x['total_mib']) for x in d['probe']['devices']]" \
    "[('CUDA0', 'NVIDIA H200', '9.0', 143156)]"
lvd fetch --register "$W/main" --json
check "mainline's SemVer build is mainline's" is "(d['engine']['family'], d['engine']['build'])" \
    "('llama.cpp', 'b10587')"
lvd fetch --register "$W/old" --name old --json
check "mainline's old form is mainline's" is "(d['engine']['family'], d['engine']['build'])" "('llama.cpp', 'b4840')"

# --- probe: shown, cached, never older than another family's pin ----------------------
printf 'build = b10715\nflavour = bin-ubuntu-x64\n' >"$tmp/b10715.pin"
LVD_PIN_FILE="$tmp/b10715.pin" lvd probe --json
check "only mainline's b4840 is older than the pin" is \
    "sorted(p['engine'] for p in d['probes'] if p.get('older_than_pin'))" "['b10587-main', 'old']"
check "the probe says each engine's family" is "sorted((p['engine'], p['family']) for p in d['probes'])" \
    "[('b10587-main', 'llama.cpp'), ('ik4840-ik', 'ik_llama.cpp'), ('ikcuda', 'ik_llama.cpp'), ('old', 'llama.cpp')]"
check "ik's probes are served from the cache" is "sorted(p['engine'] for p in d['probes'] if p['cached'])" \
    "['b10587-main', 'ik4840-ik', 'ikcuda', 'old']"
LVD_PIN_FILE="$tmp/b10715.pin" lvd probe
check "the table names it ik_llama.cpp build 4840" has "family: ik_llama.cpp build 4840"
check "and never calls it older" bash -c "! grep -q 'ik4840-ik is older' '$tmp/out' '$tmp/err'"

# --- check: ik's llama-perplexity against the CPU, probed again by lvd check itself ---
touch "$W/ikcuda/llama-bench" "$W/ik/llama-bench" # changed files: the probe is made again, inside lvd check
lvd check --model "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" --engines b10587-main,ik4840-ik,ikcuda
expect_rc "lvd check over a mainline and two ik engines" 0
check "each family has its own CPU reference" bash -c \
    "grep -qE '^b10587-main +- +cpu +base' '$tmp/out' && grep -qE '^ik4840-ik +- +cpu +base' '$tmp/out'"
check "ik's CUDA0 is checked against ik's CPU with its llama-perplexity" has "^ikcuda +CUDA0 +cuda +pass"
check "no ik engine skipped as unknown" bash -c "! grep -q 'probe unknown' '$tmp/out' '$tmp/err'"

# --- bench: both families ranked together, every sample stored -------------------------
lvd bench -m "$MODEL" --engines ik4840-ik,b10587-main --budget 10m
expect_rc "lvd bench over a mainline and an ik engine" 0
check "the ik arm wins against mainline's" has "Decision \(objective tg: tg128@d2048\): ik4840-ik cpu wins"
check "ik's pp at depth is left out, said once" has "left out: ik4840-ik cpu: left out -d 2048"
# every test of each engine's ok runs, with its fewest samples: "NAME|TEST|N"
sqlite3 "$LVD_STORE" "SELECT e.name, r.test, min(r.n_samples) >= 3 FROM results r JOIN runs u ON u.id = r.run_id
    JOIN engines e ON e.id = u.engine_id WHERE u.status = 'ok' GROUP BY e.name, r.test ORDER BY e.name, r.test" \
    >"$tmp/samples"
printf '%s\n' "b10587-main|pp512|1" "b10587-main|pp512@d2048|1" "b10587-main|tg128|1" "b10587-main|tg128@d2048|1" \
    "ik4840-ik|pp512|1" "ik4840-ik|tg128|1" "ik4840-ik|tg128@d2048|1" >"$tmp/samples.want"
check "every sample of both engines is stored, ik's tg at depth (-gp) too" same "$tmp/samples" "$tmp/samples.want"

# --- select: the winner's line in its own vocabulary -----------------------------------
lvd select --model "$MODEL" --record
expect_rc "lvd select --record" 0
check "the verdict's line is ik's llama-server" has "^$W/ik/llama-server -m $MODEL"
lvd select --model "$MODEL" --explain
check "--explain names the winner's family" has "^# engine: ik4840-ik is ik_llama.cpp build 4840$"
lvd evidence --out "$tmp/page.md"
expect_rc "lvd evidence" 0
check "the evidence page names the family beside the build" grep -qF "ik4840, ik_llama.cpp" "$tmp/page.md"

# --- import: ik's JSON (every sample) and SQL (means) ----------------------------------
F=$LVD_SOURCE/tests/fixtures/llama.cpp/cpu-build-ik4840 TINY=$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf
lvd store --json import "$F/bench-json-tiny.stdout" --engine ik4840-ik --model "$TINY"
check "ik's JSON imports with every sample" is "(d['results_added'], d['samples_added'])" "(2, 6)"
lvd store --json import "$F/bench-sql-tiny.stdout" --engine ik4840-ik --model "$TINY"
check "ik's SQL imports its means" is "(d['results_added'], d['samples_added'])" "(2, 0)"

# --- means only: one repetition per process, each mean a sample ------------------------
fake_engine "$W/ikmean" "$IK" "build_number = 4840" "build_commit = 8337e4cd3" "means_only = 1" "cpu.tg = 90"
lvd fetch --register "$W/ikmean" --name ikmean
lvd bench -m "$MODEL" --engines ikmean,b10587-main --tests tg128 --budget 10m
expect_rc "lvd bench over a build that prints means only" 0
check "it is measured and decided" has "Decision \(objective tg: tg128@d2048\): ikmean cpu wins"
# its runs: the first (several repetitions, means only) failed and said why; the rest one sample each
sqlite3 "$LVD_STORE" "SELECT u.status, count(DISTINCT u.id), min(r.n_samples), max(r.n_samples) FROM runs u
    JOIN engines e ON e.id = u.engine_id LEFT JOIN results r ON r.run_id = u.id WHERE e.name = 'ikmean'
    GROUP BY u.status ORDER BY u.status" >"$tmp/means"
check "one failed run of means, then runs of one sample each" bash -c \
    "grep -qE '^failed\|1\|0\|0$' '$tmp/means' && grep -qE '^ok\|([3-9]|[1-9][0-9]+)\|1\|1$' '$tmp/means'"
check "the failed run says why" test "$(sqlite3 "$LVD_STORE" "SELECT count(*) FROM runs u JOIN engines e
    ON e.id = u.engine_id WHERE e.name = 'ikmean' AND u.reason LIKE '%printed only the mean of its -r %'")" = 1

# --- knobs: -fmoe and -rtr as arms, one process per value -----------------------------
lvd bench -m "$MODEL" --engines ik4840-ik,b10587-main -fmoe 0,1 -rtr 0,1 --budget 10m --json
expect_rc "lvd bench with ik's knobs" 0
check "ik's arms come once per value, mainline's once" is "sorted(a['label'] for a in d['arms'])" \
    "['b10587-main cpu', 'ik4840-ik cpu fmoe=0 rtr=0', 'ik4840-ik cpu fmoe=0 rtr=1', 'ik4840-ik cpu fmoe=1 rtr=0', 'ik4840-ik cpu fmoe=1 rtr=1']"
check "mainline's llama-bench lists neither: said once each" is "d['plan_remarks']" \
    "['b10587-main: its llama-bench --help lists no -fmoe: its arms run without it', 'b10587-main: its llama-bench --help lists no -rtr: its arms run without it']"
# each ik process asked one value of each knob: "FMOE RTR" per invocation, from the stored keys
sqlite3 "$LVD_STORE" "SELECT DISTINCT p_fused_moe || ' ' || p_repack || ' ' || arm_key FROM runs u
    JOIN engines e ON e.id = u.engine_id WHERE e.name = 'ik4840-ik' AND u.source = 'bench' AND p_fused_moe IS NOT NULL
    ORDER BY 1" >"$tmp/knobs"
printf '%s\n' "0 0 dev=- ngl=- fa=- ub=- ctk=- ctv=- ncmoe=- t=- fmoe=0 rtr=0 env=" \
    "0 1 dev=- ngl=- fa=- ub=- ctk=- ctv=- ncmoe=- t=- fmoe=0 rtr=1 env=" \
    "1 0 dev=- ngl=- fa=- ub=- ctk=- ctv=- ncmoe=- t=- fmoe=1 rtr=0 env=" \
    "1 1 dev=- ngl=- fa=- ub=- ctk=- ctv=- ncmoe=- t=- fmoe=1 rtr=1 env=" >"$tmp/knobs.want"
check "runs keep the knobs in their columns and arm keys" same "$tmp/knobs" "$tmp/knobs.want"
lvd select --model "$MODEL" --record
expect_rc "lvd select --record after the knobs" 0
check "the fastest setting of ik wins" has "win: cpu · fmoe 1, rtr 1 on ik4840-ik"
check "the line repacks in ik's llama-server's words, fused MoE its default" has \
    "^$W/ik/llama-server -m $MODEL .*-rtr( |$)"
check "and passes no -fmoe to a server that lists only -no-fmoe" bash -c "! grep -qE -- '-(no-)?fmoe' '$tmp/out'"

e2e_finish
