#!/usr/bin/env bash
# e2e_launch_line.sh: one launch line. On stores a nightly builds on fake
# engines (one CPU engine; a CPU and a CUDA engine where the GPU wins; the
# same two where the CPU wins), after lvd check, lvd bench and lvd select
# --record, the evidence page shows exactly the line `lvd select --model M`
# prints, and `lvd select --record --artifact SHA` prints it too (the page
# and --artifact make it with one function, select/choice.h
# sel_choice_lines_load, over sel_choice_lines_build, which lvd select --model
# calls too); on that store an operator profile naming the verdict's engine,
# device and flags prints the same line, and a profile's flags and --ctx
# change exactly their words of it. Then lvd evidence only reads: on a store file made
# read-only (chmod 0444) whose WAL holds a committed write not yet
# checkpointed, the page is rendered and the store's bytes stay as they were
# (a writable connection checkpoints on close and changes them, root or not).
# Needs LVD_BIN, LVD_SOURCE, LVD_FAKE_ENGINE (set by ctest).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_SOURCE LVD_FAKE_ENGINE
unset LVD_HOST

MODEL="$tmp/tiny-llama-q4_0.gguf"
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$MODEL"
SHA=$(sha256sum "$MODEL" | cut -d' ' -f1)

# page_line PAGE: the launch line the page shows (the one indented line naming llama-server)
page_line() { grep -E '^  [^ ]*/llama-server( |$)' "$1" | sed 's/^  //'; }

# same_line NAME WANT_REGEX: measures the world's engines, records the verdict,
# and compares the three lines; the line must match WANT_REGEX
same_line() {
  local name=$1 want=$2 sel art page f0=$fails
  "$LVD_BIN/lvd-probe" >/dev/null || fail "$name: probe"
  "$LVD_BIN/lvd-check" --model "$MODEL" >/dev/null || fail "$name: check"
  "$LVD_BIN/lvd-bench" --model "$MODEL" --fa on --reps 5 --budget 120s --session night-1 >/dev/null ||
    fail "$name: bench"
  "$LVD_BIN/lvd-select" --model "$MODEL" --record >"$tmp/$name.select" || fail "$name: select --record"
  sel=$(head -1 "$tmp/$name.select")
  "$LVD_BIN/lvd-select" --record --artifact "$SHA" >"$tmp/$name.artifact" || fail "$name: select --artifact"
  art=$(head -1 "$tmp/$name.artifact")
  "$LVD_BIN/lvd-evidence" --out "$tmp/$name/page.md" >/dev/null || fail "$name: evidence"
  page=$(page_line "$tmp/$name/page.md")
  [[ $sel =~ $want ]] || fail "$name: lvd select printed '$sel', want /$want/"
  [ "$page" = "$sel" ] || fail "$name: the page shows '$page', lvd select printed '$sel'"
  [ "$art" = "$sel" ] || fail "$name: --record --artifact printed '$art', lvd select --model '$sel'"
  [ "$fails" -ne "$f0" ] || ok "$name: one launch line: $sel"
}

# --- one CPU engine --------------------------------------------------------------
world cpu
engine cpu "noise = 0.005" "cpu.tg = 50" "cpu.pp = 400"
same_line cpu "^$W/cpu/llama-server -m [^ ]*tiny-llama-q4_0.gguf .*-c [0-9]+$"

# --- CPU and CUDA, the GPU wins --------------------------------------------------
world gpu
engine cpu "noise = 0.005" "cpu.tg = 50" "cpu.pp = 400"
engine cuda "noise = 0.005" "device = CUDA0|NVIDIA GeForce GTX 1060 6GB|6144|5800|6.1" "dev.CUDA0.tg = 500" \
  "dev.CUDA0.pp = 3000"
same_line gpu "^$W/cuda/llama-server -m [^ ]* --device CUDA0 -ngl [0-9]+ -fa on -c [0-9]+$"

# --- the same store through the profile, --ctx and the flags of a profile ---------
# lvd select makes these lines with the function that made the page's: rule 1 with
# the verdict's own engine, device and flags prints the page's line; a profile's flags
# and --ctx change exactly their words of it
gpu_line=$(head -1 "$tmp/gpu.select")
# with_words WORDS: the page's line with WORDS before its -c (launch.h's order)
with_words() { sed -E "s/ -c ([0-9]+)\$/ $1 -c \1/" <<<"$gpu_line"; }
printf '%s\n' "engine = cuda" "device = CUDA0" "fa = on" >"$tmp/same.profile"
"$LVD_BIN/lvd-select" --model "$MODEL" --profile "$tmp/same.profile" --explain >"$tmp/prof.out" ||
  fail "select --profile (operator override)"
grep -qx '# decided by rule: profile' "$tmp/prof.out" || fail "the profile did not decide"
[ "$(head -1 "$tmp/prof.out")" = "$gpu_line" ] ||
  fail "operator override: lvd select printed '$(head -1 "$tmp/prof.out")', the page '$gpu_line'"
printf '%s\n' "ctk = q8_0" "ctv = q8_0" "threads = 2" >"$tmp/flags.profile"
got=$("$LVD_BIN/lvd-select" --model "$MODEL" --profile "$tmp/flags.profile" | head -1)
want=$(with_words "-ctk q8_0 -ctv q8_0 -t 2")
[ "$got" = "$want" ] || fail "profile flags: lvd select printed '$got', want '$want'"
got=$("$LVD_BIN/lvd-select" --model "$MODEL" --ctx 1024 | head -1)
want=$(sed -E 's/ -c [0-9]+$/ -c 1024/' <<<"$gpu_line")
[[ $gpu_line != "$want" && $got == "$want" ]] || fail "--ctx 1024: lvd select printed '$got', want '$want'"
[ "$fails" -ne 0 ] || ok "profile, its flags and --ctx: the page's line, changed in exactly their words"

# --- CPU and CUDA, the CPU wins (the page once dropped the CPU line's -c) ---------
world cpuwins
engine cpu "noise = 0.005" "cpu.tg = 500" "cpu.pp = 4000"
engine cuda "noise = 0.005" "device = CUDA0|NVIDIA GeForce GTX 1060 6GB|6144|5800|6.1" "dev.CUDA0.tg = 50" \
  "dev.CUDA0.pp = 300"
same_line cpuwins "^$W/cpu/llama-server -m [^ ]*tiny-llama-q4_0.gguf .*-c [0-9]+$"

# --- lvd evidence only reads --------------------------------------------------------
S=$tmp/gpu.db
# a committed write the WAL holds, not checkpointed (the writer dies before it would)
python3 - "$S" <<'PY' || fail "could not leave a write in the WAL"
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("PRAGMA wal_autocheckpoint=0")
c.execute("CREATE TABLE e2e_unchecked(x)")
c.execute("INSERT INTO e2e_unchecked VALUES ('in the WAL only')")
c.commit()
os._exit(0)
PY
[ -s "$S-wal" ] || fail "the store has no WAL to checkpoint"
chmod 0444 "$S"
before=$(sha256sum "$S")
ls "$S"* >"$tmp/ls.before"
"$LVD_BIN/lvd-evidence" --store "$S" --out "$tmp/ro/page.md" >/dev/null || fail "evidence on a read-only store"
[ "$(page_line "$tmp/ro/page.md")" = "$(head -1 "$tmp/gpu.select")" ] || fail "the read-only page's launch line"
[ "$(sha256sum "$S")" = "$before" ] || fail "lvd evidence wrote to the store (it checkpointed the WAL)"
[ -s "$S-wal" ] || fail "lvd evidence checkpointed the WAL away"
# a model named by its path: cached, and (a copy the store never saw) hashed, not recorded
cp "$MODEL" "$tmp/copy.gguf"
for m in "$MODEL" "$tmp/copy.gguf"; do
  "$LVD_BIN/lvd-evidence" --store "$S" --model "$m" --out "$tmp/ro-model/page.md" >/dev/null ||
    fail "evidence --model $m on a read-only store"
  grep -qF -- "$(head -1 "$tmp/gpu.select")" "$tmp/ro-model/page.md" || fail "evidence --model $m: launch line"
done
[ "$(sha256sum "$S")" = "$before" ] || fail "lvd evidence --model wrote to the store"
ls "$S"* >"$tmp/ls.after"
same "$tmp/ls.before" "$tmp/ls.after" || fail "lvd evidence created files beside the store"
chmod 0644 "$S"
[ "$fails" -ne 0 ] || ok "lvd evidence reads a read-only store and leaves it as it was"

e2e_finish
