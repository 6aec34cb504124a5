#!/usr/bin/env bash
# e2e_man: the man pages the build made (help2man over each tool's --help,
# cmake/Man.cmake) and `cmake --install` into a private prefix: one page per
# tool that renders without a warning and carries every option of the tool's
# --help, its NAME from `lvd --help`, the prose of its man/TOOL.h2m (each of
# its sections, with that section's first line of text), the exit-code
# table; installed to
# share/man/man1 (found there by man), the bash completion to
# share/bash-completion/completions, and the installed lvd running the
# installed lvd-TOOL beside it, else on PATH (lvd select runs in lvd itself).
. "$(dirname "$0")/e2e_lib.sh"
e2e_needs LVD_BIN LVD_SOURCE
build=$(cd "$LVD_BIN/.." && pwd)

tools=(lvd)
for t in "$LVD_BIN"/lvd-*; do [ -x "$t" ] && tools+=("$(basename "$t")"); done
check "the build made lvd and the twelve tools" test "${#tools[@]}" -eq 13

h2m=$(sed -n 's/^HELP2MAN:FILEPATH=//p' "$build/CMakeCache.txt")
pages=1
if [ -z "$h2m" ] || [[ $h2m == *NOTFOUND ]]; then
  pages=0
  if command -v help2man >/dev/null; then
    fail "help2man is installed but this build has no man pages: reconfigure $build"
  else
    echo "man pages skipped: help2man was absent at configure (scripts/deps --test installs it)"
  fi
fi

# h2m_sections FILE: "SECTION<TAB>first line of text" for each [SECTION] of a
# help2man include file ([<S], [>S], [=S] are S; its first line of text is the
# first that is not a roff request)
h2m_sections() {
  awk '/^\[[<>=]?[^]]+\][ \t]*$/ { sub(/^\[[<>=]?/, ""); sub(/\][ \t]*$/, ""); sec = toupper($0); want = 1; next }
       want && sec != "" && !/^[.\x27]/ && NF { print sec "\t" $0; want = 0 }' "$1"
}

# not_on_page LINE PAGE: the line is not on the page
not_on_page() { ! grep -qF -- "$1" "$2"; }

# roff spelling of an option: --model is \-\-model
roff() { printf '%s' "$1" | sed 's/-/\\-/g'; }

"$LVD_BIN/lvd" --help > "$tmp/lvd-help"
if [ "$pages" = 1 ]; then
  for t in "${tools[@]}"; do
    page=$build/man/$t.1
    if [ ! -f "$page" ]; then fail "$t: no $page"; continue; fi
    check "$t.1 is not older than $t" test ! "$LVD_BIN/$t" -nt "$page"
    w=$(MANWIDTH=80 man -l --warnings "$page" 2>&1 >/dev/null)
    check "$t.1 renders with man -l --warnings, no warning${w:+: $w}" test -z "$w"
    w=$(groff -man -ww -z "$page" 2>&1)
    check "$t.1 passes groff -man -ww -z${w:+: $w}" test -z "$w"
    # NAME: the line the dispatcher prints for the tool
    if [ "$t" = lvd ]; then
      want=$(sed -n 's/^llama-verdict: \(.*[^.]\)\.\{0,1\}$/\1/p' "$tmp/lvd-help")
    else
      want=$(sed -n "s/^  ${t#lvd-}  *//p" "$tmp/lvd-help")
    fi
    got=$(sed -n '/^\.SH NAME/{n;p;}' "$page")
    check "$t.1 NAME is '$t \\- $want'" test "$got" = "$t \\- $want"
    check "$t.1 has a SYNOPSIS naming it" grep -qE '^\.B lvd|^\\fBlvd' <(sed -n '/^\.SH SYNOPSIS/,/^\.SH/p' "$page")
    # every option of --help is on the page (generated, so it cannot drift)
    missing=()
    for o in $("$LVD_BIN/$t" --help | grep -oE -- '(^|[][ ,(])--[a-z0-9][a-z0-9-]*' | sed 's/^[^-]*//' | sort -u); do
      grep -qF -e "$(roff "$o")" -e "\,$o" "$page" || missing+=("$o")
    done
    check "$t.1 has every option of $t --help${missing:+ (missing: ${missing[*]})}" test ${#missing[@]} -eq 0
    # the tool's prose: every [SECTION] of man/TOOL.h2m is a section of the page
    # that holds the section's first line of text, as written there
    src=$LVD_SOURCE/man/$t.h2m
    if [ -s "$src" ]; then
      missing=()
      while IFS=$'\t' read -r sec first; do
        grep -qxF -- "$first" <(sed -n "/^\.SH \"\{0,1\}$sec\"\{0,1\}\$/,/^\.SH/p" "$page") || missing+=("[$sec]")
      done < <(h2m_sections "$src")
      check "$t.1 has the prose of man/$t.h2m${missing:+ (missing: ${missing[*]})}" test ${#missing[@]} -eq 0
      check "$t.1 leaves out the header comment of man/$t.h2m" not_on_page "$(head -1 "$src")" "$page"
    else
      fail "$t: no man/$t.h2m (the tool's prose)"
    fi
    for s in 'EXIT STATUS' ENVIRONMENT FILES 'SEE ALSO'; do
      check "$t.1 has $s" grep -q "^\\.SH \"\\{0,1\\}$s" "$page"
    done
    for code in 0 1 2 3 4 5 6 7 8; do
      grep -q "^\\.B $code\$" "$page" || fail "$t.1: exit code $code is not in EXIT STATUS"
    done
    check "$t.1 footer is llama-verdict and the version" \
      grep -qF "\"llama-verdict $("$LVD_BIN/lvd" --version | awk '{print $NF}')\"" "$page"
  done
fi

# --------------------------------------------------- cmake --install
prefix=$tmp/prefix
capture cmake --install "$build" --prefix "$prefix"
expect_rc "cmake --install into a private prefix" 0
for t in "${tools[@]}"; do
  [ -x "$prefix/bin/$t" ] || fail "$t not installed in bin/"
  if [ "$pages" = 1 ]; then
    cmp -s "$build/man/$t.1" "$prefix/share/man/man1/$t.1" || fail "$t.1 not installed in share/man/man1"
  fi
  cmp -s "$build/completion/lvd" "$prefix/share/bash-completion/completions/$t" ||
    fail "completion not installed as share/bash-completion/completions/$t"
done
ok "tools, man pages and completions installed (bin, share/man/man1, share/bash-completion/completions)"
[ -d "$prefix/share/llama-verdict/models" ] && ok "data installed in share/llama-verdict" || fail "no share/llama-verdict/models"
if [ "$pages" = 1 ]; then
  got=$(MANPATH="$prefix/share/man" man -w lvd-select 2>/dev/null)
  check "man finds lvd-select(1) under the prefix ($got)" test "$got" = "$prefix/share/man/man1/lvd-select.1"
fi

# the installed dispatcher runs the installed tool beside it, PATH without the build
capture env PATH=/usr/bin:/bin "$prefix/bin/lvd" select --help
expect_rc "installed lvd select --help" 0
"$LVD_BIN/lvd-select" --help > "$tmp/want"
check "it is lvd-select's --help" same "$tmp/out" "$tmp/want"
capture env PATH=/usr/bin:/bin "$prefix/bin/lvd" --version
check "installed lvd --version: $(cat "$tmp/out")" grep -qE '^lvd \(llama-verdict\) [0-9]+\.[0-9]+' "$tmp/out"
# lvd alone in a directory: the tools are found on PATH
mkdir -p "$tmp/alone"
cp "$prefix/bin/lvd" "$tmp/alone/"
capture env PATH="$prefix/bin:/usr/bin:/bin" "$tmp/alone/lvd" probe --help
expect_rc "lvd with its tools only on PATH" 0
capture env PATH=/usr/bin:/bin "$tmp/alone/lvd" probe --help
if command -v lvd-probe >/dev/null 2>&1; then
  ok "(an lvd-probe is on this machine's PATH: the negative case is skipped)"
else
  expect_rc "lvd with no lvd-probe beside it or on PATH" 2
  check "says the tool is not found" has_err "not an lvd tool"
fi
# lvd select runs inside the dispatcher (no second process start): lvd alone,
# no lvd-select beside it or on PATH, still selects
capture env PATH=/usr/bin:/bin "$tmp/alone/lvd" select --help
expect_rc "lvd select with no lvd-select beside it or on PATH" 0
check "it is lvd-select's --help" same "$tmp/out" "$tmp/want"
e2e_finish
