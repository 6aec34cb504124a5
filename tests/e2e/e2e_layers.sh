#!/usr/bin/env bash
# e2e_layers.sh: the library's layers run one way (CMakeLists.txt LVD_LAYERS,
# docs/architecture.md), with the tools, the benchmarks and the tests above
# them: scripts/check-layers passes on the tree, and fails, naming the file and
# the include, on copies of it where a lower layer includes a higher one, where
# a folder includes a peer folder above it, where a library file includes a
# folder that is no layer, where a tool or a benchmark includes tests/, and
# where C sources sit in a folder the check does not know; where HACKING.md's
# folder table leaves a folder out or has the layers out of order; where
# docs/architecture.md's diagram lacks an arrow an include makes or draws one
# no include makes (its arrows are the includes' transitive reduction); and
# where two modules of one folder include each other (bench's reps and voi),
# or a folder on the list of those that held a circle holds none any more.
. "$(dirname "$0")/e2e_lib.sh"
e2e_needs LVD_SOURCE
CL=$LVD_SOURCE/scripts/check-layers
# named PATTERN [WHAT]: check-layers' output in $tmp/out has PATTERN (ERE)
named() { if has "$1"; then ok "${2:-named}"; else fail "${2:-named}: check-layers output: $(cat "$tmp/out")"; fi; }

capture "$CL" "$LVD_SOURCE"
expect_rc "the tree's includes all point down" 0
named "every include points down" "check-layers says so"

# planted TREE FILE LINE: a copy of the tree's C sources with LINE added to FILE
planted() {
    local t=$tmp/$1
    source_tree "$t"
    mkdir -p "$(dirname "$t/$2")"
    printf '%s\n' "$3" >>"$t/$2"
    capture "$CL" "$t"
}
planted up common/util.c '#include "store/store.h"'
expect_rc "common including store is refused" 1
named 'common/util.c: includes store/store.h \(store is not below common\)' "the line names file and include"
planted builds builds/asset.c '#include "fetch/fetch.h"'
expect_rc "builds including fetch is refused (builds/ is a layer, not a build folder)" 1
named 'builds/asset.c: includes fetch/fetch.h \(fetch is not below builds\)'
planted benchio benchio/benchout.c '#include "bench/session.h"'
expect_rc "llama-bench's output read (benchio) including the bench session is refused" 1
named 'benchio/benchout.c: includes bench/session.h \(bench is not below benchio\)' "benchio sits below bench"
planted peer stats/rank.h '#include "placement/placement.h"'
expect_rc "stats including placement (above it) is refused" 1
named 'stats/rank.h: includes placement/placement.h \(placement is not below stats\)' "the line names file and include"
planted select engine/probe.c '  #  include "select/select.h"'
expect_rc "an indented include of select from engine is refused" 1
named 'engine/probe.c: includes select/select.h \(select is not below engine\)' "the line names file and include"
planted nolayer bench/plan.c '#include "tests/support/testutil.h"'
expect_rc "a library file including tests/ is refused" 1
named 'bench/plan.c: includes tests/support/testutil.h \(only tests include tests/\)' "tests/ is named as for tests only"
planted tool tools/lvd-bench.c '#include "evidence/render.h"'
expect_rc "a tool may include any layer" 0
planted tooltests tools/lvd-fit.c '#include "tests/support/testutil.h"'
expect_rc "a tool including tests/ is refused" 1
named 'tools/lvd-fit.c: includes tests/support/testutil.h \(only tests include tests/\)'
planted perftests perf/perf_select.c '#include "tests/support/testutil.h"'
expect_rc "a benchmark including tests/ is refused" 1
planted testlib tests/fit/test_fit.c '#include "nightly/config.h"'
expect_rc "a test may include any layer and tests/" 0
planted newdir extra/thing.c '#include "common/util.h"'
expect_rc "C sources in a folder that is no layer are refused" 1
named 'extra/: C sources outside every layer' "the folder is named"

# circles inside a folder: a module's own header and _internal.h are no circle
planted circle bench/reps.c '#include "bench/voi.h"'
expect_rc "reps including voi, which includes reps, is refused" 1
named 'bench/: its modules include each other in a circle: reps voi' "the folder and the circle's modules named"
planted longcircle bench/cost.h '#include "bench/reps.h"'
expect_rc "two headers including each other (cost.h, reps.h) is refused" 1
named 'bench/: its modules include each other in a circle:.* cost' "the circle named"
planted own bench/plan.c '#include "bench/plan_internal.h"'
expect_rc "a module including its own _internal.h is no circle" 0
planted broken common/util.c ''
sed -i '/#include "placement\/placement.h"/d' "$tmp/broken/placement/cbuf.c"
capture "$CL" "$tmp/broken"
expect_rc "a folder on the circled list without its circle is named" 1
named "placement/: no include circle any more; take it off check-layers' circled list"

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
named 'HACKING.md: the folder table has no row for serve/' "the folder is named"
hacking swapped '/^fit\/  /{h;d};/^select\/  /G'
expect_rc "a table with fit/ after select/ is refused" 1
named "HACKING.md: the folder table's layers are '.* bench select fit serve .*', not LVD_LAYERS'" "both orders said"
mkdir -p "$tmp/noserve/newdocs"
rm -rf "$tmp/noserve/serve"
capture "$CL" "$tmp/noserve"
named 'no row for newdocs/' "a folder without C sources needs its row too"

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
named "the diagram lacks 'fit --> check' \(fit/ceiling.c includes check/check.h\)" "the arrow and the include named"
arch implied nightly/nightly.c '#include "engine/probe.h"'
expect_rc "an include the arrows already reach (nightly to engine) changes no arrow" 0
arch extra common/util.c '' '/^    serve --> select$/a\    serve --> evidence'
expect_rc "an arrow no include makes is refused" 1
named "draws 'serve --> evidence', but no file of serve/ includes evidence/"
arch redundant common/util.c '' '/^    fit --> placement$/a\    fit --> engine'
expect_rc "an arrow other arrows imply is refused" 1
named "draws 'fit --> engine', to which other arrows of fit lead already"
arch missing common/util.c '' '/^    bench --> check$/d'
expect_rc "a missing arrow is refused" 1
named "the diagram lacks 'bench --> check' \(bench/.* includes check/"
e2e_finish
