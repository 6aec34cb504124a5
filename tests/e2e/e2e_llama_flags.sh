#!/usr/bin/env bash
# e2e_llama_flags.sh: llama.cpp's spellings of the options (-m, -ngl, -fa,
# -r, -p, -n, -c ...; common/opt_vocab.h, docs/options.md) end to end against fake
# engines (copies of tests/fake-engine): `lvd select -m M.gguf` prints what
# `lvd select --model M.gguf` prints, `lvd bench -m M -ngl 99 -fa 1 -r 3` runs
# the same llama-bench invocations and reaches the same decision as the
# long-form run (twin worlds: fresh store, same scenarios), -p/-n give the
# tests --tests gives, usage errors name the wrong word, --help shows both
# spellings, and a tool that takes one spelling of an option takes them all;
# a build whose --help lacks a flag (fake scenario help_omit) is never given
# it, and bench (with each run), select --explain, check and fit say what was
# left out; fit refuses a build without -d. Not a test of the parsing rules
# themselves (test_opt) or of the argv builder's (test_argv).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
MODEL=$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf

# twin NAME: a world with the same two engines as every other twin
twin() {
  world "$1"
  engine cuda "noise = 0.005" "device = CUDA0|NVIDIA H200|143155|142629|9.0" "dev.CUDA0.tg = 1000" "dev.CUDA0.pp = 60000"
  engine cpu "noise = 0.005" "cpu.tg = 50" "cpu.pp = 400"
}
# invocations: the llama-bench calls of this world, its folder left out
invocations() { cat "$W"/*/calls.log | grep -F -- "-o jsonl" | sed "s|$W/||g"; }
# decision: what a bench --json in $tmp/out decided, arm by arm
decision() { q "[(a['engine'], a['label'], a['params'], a['status']) for a in d['arms']], [(t['test'], t['state']) for t in d['tests']]"; }

# ------------------------------------------------------------ bench
twin long
lvd bench --model "$MODEL" --n-gpu-layers 99 --flash-attn 1 --reps 3 --session twin --json
expect_rc "bench, long spellings" 0
decision > "$tmp/long.decision"
invocations > "$tmp/long.calls"
twin short
lvd bench -m "$MODEL" -ngl 99 -fa 1 -r 3 --session twin --json
expect_rc "bench -m M -ngl 99 -fa 1 -r 3" 0
decision > "$tmp/short.decision"
invocations > "$tmp/short.calls"
check "the same decision, arm by arm" same "$tmp/long.decision" "$tmp/short.decision"
check "the same llama-bench invocations" same "$tmp/long.calls" "$tmp/short.calls"
check "which pass -ngl 99 -fa 1 -r 3 to the GPU arm" grep -qE -- "-ngl 99 .*-fa 1|-fa 1 .*-ngl 99" "$tmp/short.calls"
check "the GPU arm is ngl=99 fa=on" grep -qF "ngl=99 fa=on" "$tmp/short.decision"
twin reps
lvd bench -m "$MODEL" -ngl 99 -fa 1 -r 8 --session twin --json
invocations > "$tmp/reps.calls"
check "-r reaches the repetitions: -r 8 runs -r 8" grep -qF -- "-r 8 -o jsonl" "$tmp/reps.calls"
check "lvd's own spellings still work" bash -c "'$LVD_BIN/lvd' bench --model '$MODEL' --ngl 99 --fa on --reps 3 --json > /dev/null"

twin tests_long
lvd bench -m "$MODEL" --tests pp64,tg16 --fa 1 --json
q "[t['test'] for t in d['tests']]" > "$tmp/tests.long"
twin tests_short
lvd bench -m "$MODEL" -p 64 -n 16 -fa 1 --json
expect_rc "bench -p 64 -n 16" 0
q "[t['test'] for t in d['tests']]" > "$tmp/tests.short"
check "-p 64 -n 16 are the tests pp64,tg16" same "$tmp/tests.long" "$tmp/tests.short"
check "in that order, then at the serving depth" is "[t['test'] for t in d['tests']]" "['pp64', 'tg16', 'pp64@d2048', 'tg16@d2048']"
lvd bench -m "$MODEL" -n 0 -p 32 -fa 1 --objective pp --json
expect_rc "-n 0: no tg test" 0
check "only pp32, at depth 0 and at the serving depth" is "[t['test'] for t in d['tests']]" "['pp32', 'pp32@d2048']"
lvd bench -m "$MODEL" -n 0 -p 32 -fa 1 -d 0 --objective pp --json
expect_rc "-d 0" 0
check "-d 0: only depth 0" is "[t['test'] for t in d['tests']]" "['pp32']"
lvd bench -m "$MODEL" -n 16 -p 0 -fa 1 --n-depth 0,512 --json
expect_rc "--n-depth 0,512" 0
check "--n-depth (llama-bench's spelling) names the depths" is "[t['test'] for t in d['tests']]" "['tg16', 'tg16@d512']"
lvd bench -m "$MODEL" -n 16 -p 0 -fa 1 -c 1024 --json
expect_rc "-c 1024" 0
check "-c 1024: measured at half of it" is "[t['test'] for t in d['tests']]" "['tg16', 'tg16@d512']"

# ------------------------------------------------------------ select
twin select
lvd select --model "$MODEL"
expect_rc "select --model" 0
cp "$tmp/out" "$tmp/select.long"
lvd select -m "$MODEL"
expect_rc "select -m M.gguf" 0
check "select -m prints the --model line" same "$tmp/select.long" "$tmp/out"
lvd select --model "$MODEL" --ctx 2048 --json
q "d['argv']" > "$tmp/ctx.long"
check "--ctx 2048 reaches the launch line" grep -qF "'2048'" "$tmp/ctx.long"
for ctx in "-c 2048" "--ctx-size 2048" "-c=2048"; do
  # shellcheck disable=SC2086 # two words on purpose
  lvd select -m "$MODEL" $ctx --json
  q "d['argv']" > "$tmp/ctx.short"
  check "select $ctx = --ctx 2048" same "$tmp/ctx.long" "$tmp/ctx.short"
done

# ------------------------------------------------------------ flags a build lacks
# A build whose tools' --help list no -ncmoe (the fake then refuses it, as an
# older build does): no tool passes it; each says it left it out.
world lacks
engine old "noise = 0.005" "device = CUDA0|NVIDIA H200|143155|142629|9.0" "help_omit = -ncmoe"
check "the probe recorded what its tools list" \
  test "$(sqlite3 "$LVD_STORE" "SELECT count(*) FROM probes WHERE flags LIKE 'lvd-flags 5%-ngl --n-gpu-layers%'")" -ge 1
lvd check -m "$MODEL"
expect_rc "check on that build" 0
lvd bench -m "$MODEL" -ngl 99 -fa 1 -ncmoe 2 -r 3 --tests tg16 --depth 0 --json
expect_rc "bench -ncmoe 2 on a build without it" 0
check "llama-bench was never given -ncmoe" bash -c "! grep -qE -- '-ncmoe|--n-cpu-moe' '$W/old/calls.log'"
check "the arm says what was left out" is "[a.get('left_out') for a in d['arms']]" \
  "[\"left out -ncmoe 2: not in llama-bench's --help\"]"
check "and its runs recorded it" \
  test "$(sqlite3 "$LVD_STORE" "SELECT count(*) FROM runs WHERE left_out = 'left out -ncmoe 2: not in llama-bench''s --help'")" -ge 1
lvd bench -m "$MODEL" -ngl 99 -fa 1 -ncmoe 2 -r 3 --tests tg16 --depth 0
check "the report says it" has "^left out: old CUDA0 .*: left out -ncmoe 2: not in llama-bench's --help$"
lvd select -m "$MODEL" --record --explain
expect_rc "select on that build" 0
check "the launch line has no --n-cpu-moe" bash -c "! grep -qE -- '--n-cpu-moe|-ncmoe' <(head -1 '$tmp/out')"
check "--explain says it left it out" has "^# launch: left out --n-cpu-moe 2: not in llama-server's --help$"
lvd fit -m "$MODEL" --max-ctx 4096 --json
expect_rc "fit on that build" 0
check "fit passes no -ncmoe either, and has nothing to say" is "[r.get('left_out') for r in d]" "[None]"
world lacks_dev
engine old "device = CUDA0|NVIDIA H200|143155|142629|9.0" "help_omit = -dev,--no-warmup"
lvd check -m "$MODEL" --json
check "check on a build without -dev: the comparison without it" \
  grep -q -- "--kl-divergence-base .* --kl-divergence -ngl 99$" "$W/old/calls.log"
check "and says so" is "[c.get('left_out') for c in d['checks'] if c['device']]" \
  "[\"left out -dev CUDA0: not in llama-perplexity's --help\"]"
lvd check -m "$MODEL"
check "in its table too" has "^left out: old CUDA0: left out -dev CUDA0: not in llama-perplexity's --help$"
lvd fit -m "$MODEL" --max-ctx 4096 --json
check "fit's loads without --no-warmup, said" is "sorted(set(r.get('left_out') or '' for r in d))" \
  "[\"left out --no-warmup, -dev CUDA0: not in llama-bench's --help\"]"
lvd fit -m "$MODEL" --max-ctx 4096
check "in its table too" has "^  left out --no-warmup, -dev CUDA0: not in llama-bench's --help$"
world lacks_depth
engine old "help_omit = -d"
lvd fit -m "$MODEL" --max-ctx 4096 --json
check "fit on a llama-bench without -d: an error, no ceiling" \
  is "[(r['ceiling'], r['error']) for r in d]" "[(None, '$W/old/llama-bench: its --help lists no -d, which this run needs')]"
check "and no load ran" bash -c "! grep -q -- ' -p 1 -n 1 ' '$W/old/calls.log'"

# ------------------------------------------------------------ store model
lvd store --json model "$MODEL"
q "d['sha256']" > "$tmp/sha.long"
lvd store --json model -m "$MODEL"
expect_rc "store model -m M.gguf" 0
q "d['sha256']" > "$tmp/sha.short"
check "the same model" same "$tmp/sha.long" "$tmp/sha.short"
# (two empty files are the same too: the value itself)
check "its sha256, as sha256sum computes it" test "$(cat "$tmp/sha.short")" = "$(sha256sum "$MODEL" | cut -d' ' -f1)"

# ------------------------------------------------------------ errors, help
expect_exit 2 "lvd-probe: error: unknown option '-zq'" "$LVD_BIN/lvd" probe --all -zq
check "the error is that word's, not --all's" bash -c "! grep -qF -- '--all' '$tmp/err'"
expect_exit 2 "lvd-bench: error: -ngl needs a value" "$LVD_BIN/lvd" bench -m "$MODEL" -ngl
expect_exit 2 "lvd-bench: error: unknown option '-q'" "$LVD_BIN/lvd" bench -m "$MODEL" -ngl 99 -q
expect_exit 2 "lvd-bench: error: plan: -ctv q8_0 with -fa off: llama.cpp needs flash attention for a quantized V cache (use -fa on, or -ctv f16)" "$LVD_BIN/lvd" bench -m "$MODEL" -ctk q8_0 -ctv q8_0 -fa 0
expect_exit 2 "lvd-bench: error: --depth: pp512@d8192 needs 8704 tokens of context, more than -c 4096" "$LVD_BIN/lvd" bench -m "$MODEL" -c 4096 -d 0,8192
expect_exit 2 "lvd-select: error: unknown option '-ngl'" "$LVD_BIN/lvd" select -m "$MODEL" -ngl 99
expect_exit 2 "lvd-bench: error: --tests and -p/-n exclude each other" "$LVD_BIN/lvd" bench -m "$MODEL" --tests pp8 -p 8
check "the hint follows" has_err "^Try 'lvd-bench --help'.$"
# one vocabulary: a tool that takes any of llama.cpp's spellings of an option
# takes every one of them (its table uses the shared entry, common/opt_vocab.h)
tools="bench bisect check evidence fetch fit nightly pin probe select serve store"
for t in $tools; do
  "$LVD_BIN/lvd-$t" --list-options | cut -d' ' -f1 > "$tmp/words"
  for group in "-m --model" "-ngl --n-gpu-layers --ngl" "-fa --flash-attn --fa" "-ub --ubatch-size --ub" \
               "-ctk --cache-type-k --ctk" "-ctv --cache-type-v --ctv" "-ncmoe --n-cpu-moe --ncmoe" \
               "-dev --device" "-sm --split-mode --sm" "-ts --tensor-split --ts" "-t --threads" \
               "-c --ctx-size --ctx" "-d --n-depth --depth" "-r --repetitions --reps" "-p --n-prompt" "-n --n-gen"; do
    have=0 all=0
    for w in $group; do
      all=$((all + 1))
      grep -qxF -- "$w" "$tmp/words" && have=$((have + 1))
    done
    [ "$have" -eq 0 ] || [ "$have" -eq "$all" ] ||
      fail "lvd-$t takes $have of the spellings '$group', not all"
  done
done
ok "every tool takes all of llama.cpp's spellings of an option or none"
# one entry, one range: an option several tools take answers each value the
# same way in every one of them (taken, or the same error line), whatever its
# kind; the value is followed by --help, so nothing runs. lvd store's options
# belong to its commands, and none of them is another tool's alone.
declare -A takers
for t in ${tools% store}; do
  for w in $("$LVD_BIN/lvd-$t" --list-options | cut -d' ' -f1 | grep -- '^-' | grep -vxE -- '-h|--help|--version'); do
    takers[$w]+="$t "
  done
done
# answer TOOL WORD VALUE: the exit status and first error line of lvd-TOOL WORD VALUE --help
answer() {
  local r=0
  "$LVD_BIN/lvd-$1" "$2" "$3" --help >/dev/null 2>"$tmp/answer" || r=$?
  echo "exit $r: $(sed -n "1s/^lvd-$1: //p" "$tmp/answer")"
}
shared=0
for w in "${!takers[@]}"; do
  set -- ${takers[$w]}
  [ $# -ge 2 ] || continue
  shared=$((shared + 1))
  for v in x 0 -1 0.5 2d 8d 100001; do
    for t in "$@"; do echo "$(answer "$t" "$w" "$v") [$t]"; done >"$tmp/answers"
    [ "$(sed 's/ \[[a-z]*\]$//' "$tmp/answers" | sort -u | wc -l)" -eq 1 ] ||
      fail "$w $v: the tools that take it answer it differently: $(cat "$tmp/answers")"
  done
done
[ "$shared" -ge 10 ] || fail "only $shared options are shared"
ok "each of the $shared options several tools take has one range in all of them"
for t in "bench:-m, --model" "bench:-ngl, --n-gpu-layers, --ngl" "bench:-fa, --flash-attn, --fa" "bench:-r, --repetitions, --reps" \
         "bench:-p, --n-prompt" "bench:-t, --threads" "select:-m, --model" "select:-c, --ctx-size, --ctx" \
         "check:-m, --model" "check:-dev, --device" "evidence:-m, --model" "store:-m, --model"; do
  lvd "${t%%:*}" --help
  check "lvd ${t%%:*} --help lists '${t#*:}'" has "${t#*:}"
done

e2e_finish
