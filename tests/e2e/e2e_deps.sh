#!/usr/bin/env bash
# e2e_deps.sh: the two package sets of scripts/deps and who asks for which.
#   sets: `scripts/deps --print` (the tools': build and run) lists the libraries
#     CMakeLists.txt requires and no test tool (PostgreSQL, clang, cmocka,
#     help2man, ...); `--test --print` is a superset; --print touches no apt;
#   enough: CMake configures with only the tools' set's pkg-config files, and
#     says the tests are skipped (cmocka is the tests' alone);
#   callers: scripts/nightly and scripts/setup (the user's) install the tools'
#     set and build with warnings left warnings; scripts/test and scripts/fuzz
#     (CI) the test set, warnings as errors; scripts/build passes the choice.
# The callers run from a copy of scripts/ whose deps, build and build-release
# record their arguments, with cmake and ctest stubs on PATH: nothing is
# installed or built.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_SOURCE
src=$LVD_SOURCE

# stubs DIR NAME...: DIR/NAME records "NAME ARGS" into $tmp/calls and succeeds
stubs() {
  local dir=$1 n; shift
  mkdir -p "$dir"
  for n in "$@"; do
    printf '#!/usr/bin/env bash\necho "%s $*" >>"%s/calls"\n' "$n" "$tmp" >"$dir/$n"
    chmod +x "$dir/$n"
  done
}

# --- sets ----------------------------------------------------------------------
stubs "$tmp/nopkg" apt-get sudo dpkg dpkg-query
PATH="$tmp/nopkg:$PATH" capture "$src/scripts/deps" --print
expect_rc "deps --print" 0
cp "$tmp/out" "$tmp/user"
PATH="$tmp/nopkg:$PATH" capture "$src/scripts/deps" --test --print
expect_rc "deps --test --print" 0
cp "$tmp/out" "$tmp/test"
check "--print asks neither apt nor dpkg" test ! -e "$tmp/calls"
check "the tools' set is not empty" test -s "$tmp/user"
for p in postgresql clang libclang-rt-dev libcmocka-dev help2man librsvg2-bin man-db python3; do
  check "the tools' set leaves out $p" bash -c "! grep -qx '$p' '$tmp/user'"
  check "the test set has $p" grep -qx "$p" "$tmp/test"
done
for p in build-essential cmake pkg-config libsqlite3-dev libcjson-dev libcurl4-openssl-dev libssl-dev \
  libpcre2-dev libarchive-dev zlib1g-dev libpq-dev ca-certificates; do
  check "the tools' set has $p" grep -qx "$p" "$tmp/user"
done
check "the test set holds the tools' set" bash -c "[ -z \"\$(comm -23 <(sort '$tmp/user') <(sort '$tmp/test'))\" ]"
check "no package twice in the test set" bash -c "[ -z \"\$(sort '$tmp/test' | uniq -d)\" ]"
expect_exit 2 "usage: scripts/deps" "$src/scripts/deps" --tests

# --- enough: the REQUIRED pkg-config modules come from the tools' set ------------
# Every REQUIRED module of CMakeLists.txt, its .pc file's package in the tools' set.
mods=$(python3 -c "
import re,sys
s=open(sys.argv[1]).read()
for m in re.finditer(r'pkg_check_modules\(\s*\w+\s+REQUIRED\s+IMPORTED_TARGET\s+([^)]*)\)', s):
    print(*m.group(1).split())" "$src/CMakeLists.txt")
check "CMakeLists.txt requires pkg-config modules" test -n "$mods"
check "cmocka is not required to build the tools" bash -c "! grep -qw cmocka <<<'$mods'"
if command -v dpkg >/dev/null && command -v pkg-config >/dev/null; then
  pcdir=$tmp/pc
  mkdir -p "$pcdir"
  for p in $(cat "$tmp/user"); do
    for f in $(dpkg -L "$p" 2>/dev/null | grep '\.pc$'); do ln -sf "$f" "$pcdir/"; done
  done
  for m in $mods; do
    check "module $m comes from a package of the tools' set" test -e "$pcdir/$m.pc"
  done
  # CMake with only those .pc files: it configures, the tests skipped
  capture env PKG_CONFIG_LIBDIR="$pcdir" PKG_CONFIG_PATH= cmake -S "$src" -B "$tmp/b"
  expect_rc "configure with the tools' set alone" 0
  check "configure says the tests are skipped" has "the tests are skipped"
  check "no test was configured" test ! -e "$tmp/b/tests"
else
  ok "skipped: no dpkg or pkg-config to map modules to packages"
fi

# --- callers ---------------------------------------------------------------------
# world: $tmp/w, a copy of the scripts with deps, build and build-release
# recording; cmake and ctest on PATH recording too
world() {
  rm -rf "$tmp/w" "$tmp/calls"
  mkdir -p "$tmp/w/scripts" "$tmp/w/.ci"
  cp "$src/scripts/nightly" "$src/scripts/setup" "$src/scripts/test" "$src/scripts/fuzz" "$tmp/w/scripts/"
  cp "$src/.ci/run" "$tmp/w/.ci/"
  stubs "$tmp/w/scripts" deps build build-release
  # the nightly's build makes the tool it then runs
  printf 'mkdir -p "%s/w/build/bin"; printf "#!/bin/sh\\necho nightly ran\\n" >"%s/w/build/bin/lvd-nightly"\n' \
    "$tmp" "$tmp" >>"$tmp/w/scripts/build"
  printf 'chmod +x "%s/w/build/bin/lvd-nightly"\n' "$tmp" >>"$tmp/w/scripts/build"
  stubs "$tmp/bin" cmake ctest
}
calls() { grep "^$1 " "$tmp/calls" | cut -d' ' -f2-; }

world
PATH="$tmp/bin:$PATH" capture "$tmp/w/scripts/nightly" --config x.conf
expect_rc "scripts/nightly runs the built job" 0
check "scripts/nightly ran lvd-nightly" has "nightly ran"
check "scripts/nightly installs the tools' set (deps without --test)" test "$(calls deps)" = ""
check "scripts/nightly builds warnings-as-warnings" test "$(calls build)" = "--no-werror build"
# built: the next night builds again only when a source is newer than the tool
rm -f "$tmp/calls"
mkdir -p "$tmp/w/builds" "$tmp/w/build-asan"
touch -d '1 hour ago' "$tmp/w/build/bin/lvd-nightly"
touch "$tmp/w/build-asan/x.c"
PATH="$tmp/bin:$PATH" capture "$tmp/w/scripts/nightly"
check "a newer file in a build folder builds nothing" test ! -e "$tmp/calls"
touch "$tmp/w/builds/asset.c"
PATH="$tmp/bin:$PATH" capture "$tmp/w/scripts/nightly"
check "a newer source in builds/ (a library folder) builds again" test "$(calls build)" = "--no-werror build"

world
PATH="$tmp/bin:$PATH" capture "$tmp/w/scripts/setup"
expect_rc "scripts/setup" 0
check "scripts/setup installs the tools' set" test "$(calls deps)" = ""
check "scripts/setup builds warnings-as-warnings" test "$(calls build)" = "--no-werror build"

world
PATH="$tmp/bin:$PATH" LVD_TEST_QUICK=1 capture "$tmp/w/.ci/run"
expect_rc "CI (.ci/run, scripts/test)" 0
check "CI installs the test set" test "$(calls deps)" = "--test"
check "CI builds warnings-as-errors" test "$(calls build)" = "build"

world
PATH="$tmp/bin:$PATH" capture "$tmp/w/scripts/fuzz" 1 fuzz_none
check "scripts/fuzz installs the test set" test "$(calls deps)" = "--test"

# scripts/build passes the choice to CMake either way
rm -f "$tmp/calls"
mkdir -p "$tmp/b2/scripts"
cp "$src/scripts/build" "$tmp/b2/scripts/"
PATH="$tmp/bin:$PATH" capture "$tmp/b2/scripts/build" build
check "scripts/build: -DLVD_WERROR=ON" grep -q -- "-S . -B build .*-DLVD_WERROR=ON" "$tmp/calls"
rm -f "$tmp/calls"
PATH="$tmp/bin:$PATH" capture "$tmp/b2/scripts/build" --no-werror build
check "scripts/build --no-werror: -DLVD_WERROR=OFF" grep -q -- "-S . -B build .*-DLVD_WERROR=OFF" "$tmp/calls"
check "scripts/build --no-werror: never ON" bash -c "! grep -q -- -DLVD_WERROR=ON '$tmp/calls'"

e2e_finish
