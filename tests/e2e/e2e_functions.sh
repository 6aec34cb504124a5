#!/usr/bin/env bash
# e2e_functions.sh: no function of the library or the tools runs over 80
# lines: scripts/check-functions passes on the tree, and fails, naming the
# file, the line and the function, on a copy where a layer's file holds a
# function of 81 lines; one of exactly 80 lines passes, and so does a long
# function in tests/ (the check is for the library and tools/ only).
. "$(dirname "$0")/e2e_lib.sh"
e2e_needs LVD_SOURCE
CF=$LVD_SOURCE/scripts/check-functions

capture "$CF" "$LVD_SOURCE"
expect_rc "every function of the tree is at most 80 lines" 0
if has "every function at most 80 lines"; then ok "check-functions says so"; else fail "check-functions: $(cat "$tmp/out")"; fi

# planted TREE FILE LINES: a copy of the library's and tools' C sources with a
# function of LINES lines appended to FILE
planted() {
    local t=$tmp/$1
    source_tree "$t" "*.c"
    mkdir -p "$(dirname "$t/$2")"
    { printf '\nstatic int planted_long(int x,\n                        int y)\n{\n'
      for ((i = 0; i < $3 - 1; i++)); do printf '    x += y;\n'; done
      printf '    return x;\n}\n'; } >>"$t/$2"
    capture "$CF" "$t"
}
planted long81 select/render.c 81
expect_rc "a library function of 81 lines is refused" 1
if has 'select/render.c:[0-9]+: planted_long is 81 lines \(at most 80\)'; then ok "the line names file, line, function and length"
else fail "named: $(cat "$tmp/out")"; fi
planted tool81 tools/lvd-fit.c 81
expect_rc "a tool's function of 81 lines is refused" 1
planted long80 select/render.c 80
expect_rc "a function of exactly 80 lines passes" 0
planted test81 tests/select/test_select.c 81
expect_rc "a long function in tests/ is not the check's" 0
e2e_finish
