#!/usr/bin/env bash
# e2e_security.sh: the rules that keep an unattended tool from being tricked.
# (1) No product source runs a shell: no system(), popen(), /bin/sh, `sh -c`,
#     execl*("sh"...) or posix_spawnp (PATH lookup) in any layer folder
#     (CMakeLists.txt LVD_LAYERS), comments aside; and every process is started by
#     common/proc.c (posix_spawn), the dispatcher tools/lvd.c being the one
#     other exec (of its sibling lvd-TOOL).
# (2) Hostile paths: an engine directory and a model whose names hold spaces,
#     quotes, `;`, `$()`, backticks, a newline and a leading `-` go through
#     `lvd fetch --register`, `lvd probe`, `lvd bench` and `lvd check` intact:
#     the store records them verbatim, the fake engine's invocation log shows
#     the exact argv, and nothing embedded in a name ever runs.
# (3) GITHUB_TOKEN, set for all of it, appears in no output, log or store.
# The download-side token and disk-full cases live in e2e_fetch.sh.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
SRC=$LVD_SOURCE
n=0
# lvd ARGS: the dispatcher, captured (e2e_lib.sh), every output also kept for the token check
lvd() {
  n=$((n + 1))
  capture "$LVD_BIN/lvd" "$@"
  cat "$tmp/out" "$tmp/err" >> "$tmp/all-output"
}

# ------------------------------------------------ (1) no shell, one spawner
# code FILE: the file without its comments (strings kept), one line per line
code() { ${CC:-cc} -fpreprocessed -dD -E -P -x c "$1" 2>/dev/null; }
SHELL_RE='\b(system|popen)[[:space:]]*\(|"/bin/(ba|da|z)?sh"|"sh"|sh -c|\bexecl[pe]?[[:space:]]*\(|posix_spawnp'
SPAWN_RE='\b(v?fork|exec[lv][pe]{0,2}|fexecve|posix_spawnp?|clone3?|daemon)[[:space:]]*\('
# hits RE FILE: the file's code (comments aside) matches RE
hits() { code "$2" | grep -qE -- "$1"; }
# every library layer (the tools live in their layer's folder too)
layers=$(sed -n 's/^set(LVD_LAYERS \(.*\))$/\1/p' "$SRC/CMakeLists.txt")
check "the layers come from CMakeLists.txt LVD_LAYERS ($layers)" test "$(wc -w <<<"$layers")" -ge 12
product=() dirs=0
# (perf/, the benchmark programs, is no layer: never installed, not scanned)
for d in $layers; do
  [ -d "$SRC/$d" ] || { fail "layer $d is not a folder"; continue; }
  dirs=$((dirs + 1))
  while IFS= read -r -d '' f; do product+=("$f"); done \
    < <(find "$SRC/$d" -name '*.[ch]' -print0 | sort -z)
done
check "every layer folder is scanned ($dirs)" test "$dirs" -eq "$(wc -w <<<"$layers")"
check "product sources found (${#product[@]})" test "${#product[@]}" -gt 20
shell_hits="" spawn_hits=""
for f in "${product[@]}"; do
  rel=${f#"$SRC"/}
  [ -r "$f" ] || { fail "cannot read $rel"; continue; }
  hits "$SHELL_RE" "$f" && shell_hits+=" $rel"
  case $rel in common/proc.c|tools/lvd.c) continue ;; esac
  hits "$SPAWN_RE" "$f" && spawn_hits+=" $rel"
done
check "no shell in the product sources${shell_hits:+ (found in$shell_hits)}" test -z "$shell_hits"
check "processes start only in common/proc.c${spawn_hits:+ (also in$spawn_hits)}" test -z "$spawn_hits"
# the rules must bite: planted calls are found, with the very expressions used above
printf 'int f(void) { return system("ls"); } /* popen( in a comment is fine */\n' > "$tmp/planted.c"
check "the shell rule finds a planted system()" hits "$SHELL_RE" "$tmp/planted.c"
printf 'int h(void) { return fork(); }\n' > "$tmp/forks.c"
check "the spawn rule finds a planted fork()" hits "$SPAWN_RE" "$tmp/forks.c"
printf '/* system("x") and fork() only in a comment */\nint g(void);\n' > "$tmp/comment.c"
no_hits() { ! hits "$SHELL_RE" "$1" && ! hits "$SPAWN_RE" "$1"; }
check "and both ignore comments" no_hits "$tmp/comment.c"
# lvd.c execs nothing but its sibling lvd-TOOL
check "tools/lvd.c execs only lvd-TOOL" bash -c "$(declare -f code); code '$SRC/tools/lvd.c' | grep -E '\bexec' | grep -vqE 'execvp?\((path|name), argv \+ 1\)' && exit 1 || exit 0"

# ------------------------------------------------ (2) hostile paths
export GITHUB_TOKEN=ghp_e2eSecretTokenValue0123456789abcdef
export LVD_STORE=$tmp/store.db
NL=$'\n'
HOSTILE="-a b;c \$(touch $tmp/pwned) \`touch $tmp/pwned\` 'q\" x${NL}y"
ENG=$tmp/$HOSTILE-engine
MODEL=$tmp/$HOSTILE-model.gguf
fake_engine "$ENG" "cpu.tg = 50" "cpu.pp = 400" "ppl = 32813.2123" # (makes the parent dirs MODEL shares)
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$MODEL"

lvd fetch --register "$ENG" --build b9749 --name hostile
expect_rc "register a hostile engine directory" 0
lvd store --json engines
check "the store records its directory verbatim" python3 -c "
import json,sys; e=[x for x in json.load(open('$tmp/out')) if x['name']=='hostile']
sys.exit(not (len(e)==1 and e[0]['dir']==sys.argv[1]))" "$ENG"
lvd probe --engine hostile --refresh --json
expect_rc "probe it" 0
check "probed: a CPU build" python3 -c "
import json,sys; p=json.load(open('$tmp/out'))['probes']; sys.exit(not (len(p)==1 and p[0]['backend']=='cpu'))"
lvd bench --model "$MODEL" --engines hostile --tests tg128 --reps 2 --max-samples 3 --budget 30s --session hostile --json
expect_rc "bench a hostile model on it" 0
lvd check --model "$MODEL" --engines hostile --json
expect_rc "check it" 0
lvd store --json artifacts
check "the store knows the model by its hostile path" python3 -c "
import json,sys; sys.exit(not [a for a in json.load(open('$tmp/out')) if a['path']==sys.argv[1]])" "$MODEL"

# every invocation's argv, rebuilt from the fake's shell-quoted log
check "the engine was run" test -s "$ENG/calls.log"
argv_ok() {
  local line words i m=0 bad=0
  while IFS= read -r line; do
    line=${line#\#* } # "#INDEX " would read as a comment
    eval "words=($line)"
    for ((i = 0; i < ${#words[@]}; i++)); do
      case ${words[i]} in
        -m|--model)
          m=$((m + 1))
          [ "${words[i + 1]}" = "$MODEL" ] || { echo "  argv has -m '${words[i + 1]}'"; bad=1; } ;;
      esac
    done
  done < "$ENG/calls.log"
  [ "$m" -ge 2 ] && [ "$bad" -eq 0 ]
}
check "bench and check passed the model as one exact argv word" argv_ok
check "nothing embedded in a name ran" test ! -e "$tmp/pwned"

# ------------------------------------------------ (3) the token stays secret
leaks=$(grep -rlaF -- "$GITHUB_TOKEN" "$tmp" 2>/dev/null)
check "GITHUB_TOKEN in no output, log or store${leaks:+ (found in: $leaks)}" test -z "$leaks"

echo "$n lvd commands"
e2e_finish
