#!/usr/bin/env bash
# e2e_layers.sh: the library's layers run one way (CMakeLists.txt LVD_LAYERS,
# docs/architecture.md), with the tools, the benchmarks and the tests above
# them: scripts/check-layers passes on the tree, and fails, naming the file and
# the include, on copies of it where a lower layer includes a higher one, where
# a folder includes a peer folder above it, where a library file includes a
# folder that is no layer, where a tool or a benchmark includes tests/, and
# where C sources sit in a folder the check does not know; where HACKING.md's
# folder table leaves a folder out or has the layers out of order; and where
# docs/architecture.md's diagram lacks an arrow an include makes or draws one
# no include makes (its arrows are the includes' transitive reduction).
. "$(dirname "$0")/e2e_lib.sh"
e2e_needs LVD_SOURCE
CL=$LVD_SOURCE/scripts/check-layers

capture "$CL" "$LVD_SOURCE"
expect_rc "the tree's includes all point down" 0
has "every include points down" && ok "check-layers says so" || fail "check-layers output: $(cat "$tmp/out")"

# planted TREE FILE LINE: a copy of the tree's C sources with LINE added to FILE
planted() {
    local t=$tmp/$1
    rm -rf "$t" && mkdir -p "$t"
    cp "$LVD_SOURCE/CMakeLists.txt" "$t/"
    (cd "$LVD_SOURCE" && find . \( -path ./build -o -path './build-*' -o -path ./.git \) -prune -o -name '*.[ch]' -print | tar -cf - -T -) | tar -C "$t" -xf -
    mkdir -p "$(dirname "$t/$2")"
    printf '%s\n' "$3" >>"$t/$2"
    capture "$CL" "$t"
}
planted up common/util.c '#include "store/store.h"'
expect_rc "common including store is refused" 1
has 'common/util.c: includes store/store.h \(store is not below common\)' && ok "the line names file and include" \
    || fail "check-layers output: $(cat "$tmp/out")"
planted builds builds/asset.c '#include "fetch/fetch.h"'
expect_rc "builds including fetch is refused (builds/ is a layer, not a build folder)" 1
has 'builds/asset.c: includes fetch/fetch.h \(fetch is not below builds\)' && ok "named" || fail "output: $(cat "$tmp/out")"
planted peer stats/rank.h '#include "placement/placement.h"'
expect_rc "stats including placement (above it) is refused" 1
has 'stats/rank.h: includes placement/placement.h \(placement is not below stats\)' && ok "the line names file and include" \
    || fail "check-layers output: $(cat "$tmp/out")"
planted select engine/probe.c '  #  include "select/select.h"'
expect_rc "an indented include of select from engine is refused" 1
has 'engine/probe.c: includes select/select.h \(select is not below engine\)' && ok "the line names file and include" \
    || fail "check-layers output: $(cat "$tmp/out")"
planted nolayer bench/plan.c '#include "tests/support/testutil.h"'
expect_rc "a library file including tests/ is refused" 1
has 'bench/plan.c: includes tests/support/testutil.h \(only tests include tests/\)' && ok "tests/ is named as for tests only" || fail "output: $(cat "$tmp/out")"
planted tool tools/lvd-bench.c '#include "evidence/render.h"'
expect_rc "a tool may include any layer" 0
planted tooltests tools/lvd-fit.c '#include "tests/support/testutil.h"'
expect_rc "a tool including tests/ is refused" 1
has 'tools/lvd-fit.c: includes tests/support/testutil.h \(only tests include tests/\)' && ok "named" || fail "output: $(cat "$tmp/out")"
planted perftests bench/perf/perf_select.c '#include "tests/support/testutil.h"'
expect_rc "a benchmark including tests/ is refused" 1
planted testlib tests/fit/test_fit.c '#include "nightly/config.h"'
expect_rc "a test may include any layer and tests/" 0
planted newdir extra/thing.c '#include "common/util.h"'
expect_rc "C sources in a folder that is no layer are refused" 1
has 'extra/: C sources outside every layer' && ok "the folder is named" || fail "output: $(cat "$tmp/out")"

# HACKING.md's folder table: every folder of the tree a row, the layers in order
# hacking TREE SED: a copy of the tree's C sources with HACKING.md edited by SED
hacking() {
    planted "$1" common/util.c ''
    sed "$2" "$LVD_SOURCE/HACKING.md" >"$tmp/$1/HACKING.md"
    capture "$CL" "$tmp/$1"
}
hacking table ''
expect_rc "the copy with HACKING.md as it is passes" 0
hacking noserve '/^serve\/  /d'
expect_rc "a table without serve/ is refused" 1
has 'HACKING.md: the folder table has no row for serve/' && ok "the folder is named" || fail "output: $(cat "$tmp/out")"
hacking swapped '/^fit\/  /{h;d};/^select\/  /G'
expect_rc "a table with fit/ after select/ is refused" 1
has "HACKING.md: the folder table's layers are '.* bench select fit serve .*', not LVD_LAYERS'" && ok "both orders said" \
    || fail "output: $(cat "$tmp/out")"
mkdir -p "$tmp/noserve/newdocs"
rm -rf "$tmp/noserve/serve"
capture "$CL" "$tmp/noserve"
has 'no row for newdocs/' && ok "a folder without C sources needs its row too" || fail "output: $(cat "$tmp/out")"

# docs/architecture.md's diagram: the transitive reduction of the includes
# arch TREE FILE LINE [SED]: planted TREE FILE LINE, with docs/architecture.md edited by SED
arch() {
    planted "$1" "$2" "$3"
    mkdir -p "$tmp/$1/docs"
    sed "${4:-}" "$LVD_SOURCE/docs/architecture.md" >"$tmp/$1/docs/architecture.md"
    capture "$CL" "$tmp/$1"
}
arch diagram common/util.c ''
expect_rc "the copy with docs/architecture.md as it is passes" 0
arch newpath fit/ceiling.c '#include "check/check.h"'
expect_rc "an include that opens a new path (fit to check) needs its arrow" 1
has "the diagram lacks 'fit --> check' \(fit/ceiling.c includes check/check.h\)" && ok "the arrow and the include named" \
    || fail "output: $(cat "$tmp/out")"
arch implied nightly/nightly.c '#include "engine/probe.h"'
expect_rc "an include the arrows already reach (nightly to engine) changes no arrow" 0
arch extra common/util.c '' '/^    serve --> select$/a\    serve --> evidence'
expect_rc "an arrow no include makes is refused" 1
has "draws 'serve --> evidence', but no file of serve/ includes evidence/" && ok "named" || fail "output: $(cat "$tmp/out")"
arch redundant common/util.c '' '/^    fit --> placement$/a\    fit --> engine'
expect_rc "an arrow other arrows imply is refused" 1
has "draws 'fit --> engine', to which other arrows of fit lead already" && ok "named" || fail "output: $(cat "$tmp/out")"
arch missing common/util.c '' '/^    bench --> check$/d'
expect_rc "a missing arrow is refused" 1
has "the diagram lacks 'bench --> check' \(bench/.* includes check/" && ok "named" || fail "output: $(cat "$tmp/out")"
e2e_finish
