#!/usr/bin/env bash
# e2e_layers.sh: the library's layers run one way (CMakeLists.txt LVD_LAYERS,
# docs/architecture.md): scripts/check-layers passes on the tree, and fails,
# naming the file and the include, on copies of it where a lower layer
# includes a higher one, where a folder includes a peer folder above it, and
# where a library file includes a folder that is no layer.
. "$(dirname "$0")/e2e_lib.sh"
e2e_needs LVD_SOURCE
CL=$LVD_SOURCE/scripts/check-layers

capture "$CL" "$LVD_SOURCE"
expect_rc "the tree's includes all point down" 0
has "every include points down" && ok "check-layers says so" || fail "check-layers output: $(cat "$tmp/out")"

# planted TREE FILE LINE: a copy of the tree's layer folders with LINE added to FILE
planted() {
    local t=$tmp/$1
    rm -rf "$t" && mkdir -p "$t"
    cp "$LVD_SOURCE/CMakeLists.txt" "$t/"
    local l
    for l in $(sed -n 's/^set(LVD_LAYERS \(.*\))$/\1/p' "$LVD_SOURCE/CMakeLists.txt"); do
        cp -r "$LVD_SOURCE/$l" "$t/$l"
    done
    printf '%s\n' "$3" >>"$t/$2"
    capture "$CL" "$t"
}
planted up common/util.c '#include "store/store.h"'
expect_rc "common including store is refused" 1
has 'common/util.c: includes store/store.h \(store is not below common\)' && ok "the line names file and include" \
    || fail "check-layers output: $(cat "$tmp/out")"
planted peer stats/rank.h '#include "placement/placement.h"'
expect_rc "stats including placement (above it) is refused" 1
has 'stats/rank.h: includes placement/placement.h \(placement is not below stats\)' && ok "the line names file and include" \
    || fail "check-layers output: $(cat "$tmp/out")"
planted select engine/probe.c '  #  include "select/select.h"'
expect_rc "an indented include of select from engine is refused" 1
has 'engine/probe.c: includes select/select.h \(select is not below engine\)' && ok "the line names file and include" \
    || fail "check-layers output: $(cat "$tmp/out")"
planted nolayer bench/plan.c '#include "tests/testutil.h"'
expect_rc "a library file including tests/ is refused" 1
has 'bench/plan.c: includes tests/testutil.h, outside every layer' && ok "tests/ is named as outside every layer" || fail "output: $(cat "$tmp/out")"
planted tool bench/lvd-bench.c '#include "evidence/render.h"'
expect_rc "a tool may include any layer" 0
e2e_finish
