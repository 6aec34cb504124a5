#!/usr/bin/env bash
# e2e_completion: the bash completion the build made (completion/lvd.bash.in),
# sourced and driven as bash drives it (COMP_WORDS, COMP_CWORD, _lvd,
# COMPREPLY): tools after lvd, each tool's options from its option table
# (--list-options, through lvd and as lvd-TOOL; every one of them in its
# --help too), lvd store's commands, --format's choices, nothing (file names)
# for an option's value, llama.cpp's single-dash spellings, and the names it
# is registered for.
. "$(dirname "$0")/e2e_lib.sh"
e2e_needs LVD_BIN
build=$(cd "$LVD_BIN/.." && pwd)
comp=$build/completion/lvd
[ -f "$comp" ] || { fail "no $comp"; e2e_finish; exit; }
# shellcheck disable=SC1090
. "$comp"
export PATH="$LVD_BIN:$PATH"
unset -f lvd # e2e_lib's capturing lvd(): the completion runs the real one

# complete WORD...: COMPREPLY for the words, the last one being completed
complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _lvd 2> "$tmp/comp-err"
  reply=" ${COMPREPLY[*]} "
}
# expect WANT WORD...: COMPREPLY holds exactly WANT (words, any order)
expect() {
  local want=$1 got; shift
  complete_words "$@"
  got=$(printf '%s\n' ${COMPREPLY[@]+"${COMPREPLY[@]}"} | sort | xargs)
  want=$(printf '%s\n' $want | sort | xargs)
  check "'$*<TAB>' completes to '$want'${got:+ (got '$got')}" test "$got" = "$want"
  [ -s "$tmp/comp-err" ] && fail "'$*<TAB>' wrote to stderr: $(head -1 "$tmp/comp-err")"
  return 0
}
# has WORD IN...: COMPREPLY for IN holds WORD
contains() {
  local w=$1; shift
  complete_words "$@"
  check "'$*<TAB>' offers $w" test "${reply#* "$w" }" != "$reply"
}

expect "select serve" lvd se
expect select lvd sel
expect "select serve store" lvd s
contains --model lvd select --mo
expect --model lvd select --mo
expect --model lvd-select --mo
expect "--help --version" lvd --
expect "info engines artifacts runs import model merge" lvd store ''
expect "import" lvd store --json im
expect "" lvd store info ''
expect --format lvd store import f.jsonl --for
expect "json jsonl" lvd store import f.jsonl --format j
expect "" lvd select --model ''
expect "" lvd select -m ''
expect "-ngl" lvd bench -ng
expect "" lvd bench -ngl ''
expect "auto" lvd store import f.jsonl --format a
expect "" lvd nosuch --x
expect "" lvd-nosuch --x
expect "" ls --x

# every tool in lvd --help, and every option of every tool's table, which its --help lists
tools=$(lvd_help=$("$LVD_BIN/lvd" --help); printf '%s\n' "$lvd_help" | sed -n '/^tools:/,/^$/s/^  \([a-z]*\) .*/\1/p')
check "lvd --help lists twelve tools" test "$(echo $tools | wc -w)" -eq 12
expect "$tools" lvd ''
for t in $tools; do
  opts=$("$LVD_BIN/lvd-$t" --list-options | sed -n 's/^\(-[^ ]*\).*/\1/p' | sort -u)
  check "lvd-$t --list-options has options" test -n "$opts"
  "$LVD_BIN/lvd-$t" --help > "$tmp/help"
  for o in $opts; do
    grep -qE -- "(^|[][ ,])$o([] ,=]|\$)" "$tmp/help" || fail "lvd-$t --help does not list $o"
  done
  complete_words lvd "$t" -
  for o in $opts --version; do
    [ "${reply#* "$o" }" != "$reply" ] || fail "'lvd $t -<TAB>' lacks $o"
  done
  complete_words "lvd-$t" -
  for o in $opts --version; do
    [ "${reply#* "$o" }" != "$reply" ] || fail "'lvd-$t -<TAB>' lacks $o"
  done
  spec=$(complete -p "lvd-$t" 2>/dev/null)
  check "complete -p lvd-$t: $spec" test "$spec" = "complete -o default -F _lvd lvd-$t"
done
check "registered for lvd" test "$(complete -p lvd)" = "complete -o default -F _lvd lvd"
e2e_finish
