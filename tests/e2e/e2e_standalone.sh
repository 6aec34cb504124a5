#!/usr/bin/env bash
# e2e_standalone.sh: a clone is all it takes. No file of the build, the tool
# sources, the scripts, CI or the tests reads a folder beside the clone (the
# old sibling folder "shared", its environment variable, its fixtures and
# models folders): the fixtures are in tests/fixtures ($LVD_FIXTURES) and the
# bundled model in share/models. The scan is first shown to find planted
# references (and not a "shared library"). One exception: .ci/run may point
# the optional tests/real suite at real engines beside the clone, on one
# fixed line, when they exist (shown to drop that line and nothing else).
# Needs LVD_SOURCE and LVD_FIXTURES (set by ctest).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_SOURCE LVD_FIXTURES
S=$LVD_SOURCE
# split so that this file does not match itself
pat='\.\./'"shared|LVD_"'SHARED|(^|[^a-z_])'"shared/(fixtures|models)"
# The one exception: .ci/run may name the real engines beside the clone (the
# optional tests/real suite), on exactly this line of that file, behind an
# existence test. allowed_dropped: the scan's hits (stdin) without that line.
ci_engines_line='real_engines_dir=../'"shared/engines"
allowed_dropped() { grep -vxE -- '\.ci/run:[0-9]+:'"$(sed 's/[.]/[.]/g' <<<"$ci_engines_line")" || true; }

# scan DIR PATH...: the lines of text files under PATH (relative to DIR) that match
scan() {
  local d=$1; shift
  local r=0
  (cd "$d" && grep -rnIE --exclude-dir=build --exclude-dir='build-*' -- "$pat" "$@") || r=$?
  # 1 is "no line matched"; anything else is a scan that did not run
  [ "$r" -le 1 ] || echo "scan: grep exit $r in $d"
}

# the scan finds what it looks for
mkdir -p "$tmp/plant/tests" "$tmp/plant/scripts"
printf 'x = ../%s/fixtures/llama.cpp\n' shared > "$tmp/plant/tests/a.sh"
printf 'getenv("LVD_%s")\n' SHARED > "$tmp/plant/scripts/b"
printf '/* in %s/models */\n' shared > "$tmp/plant/tests/c.c"
printf 'a shared library; share/models/tiny.gguf\n' > "$tmp/plant/tests/d.c"
hits=$(scan "$tmp/plant" tests scripts)
if [ "$(printf '%s\n' "$hits" | grep -c .)" = 3 ] && ! grep -q 'd\.c' <<<"$hits"; then
  ok "the scan finds the three planted references and not a shared library"
else fail "the scan finds the three planted references and nothing else: $hits"; fi

# the repository itself: every layer folder (CMakeLists.txt LVD_LAYERS) and the rest
layers=$(sed -n 's/^set(LVD_LAYERS \(.*\))$/\1/p' "$S/CMakeLists.txt")
check "the layers come from CMakeLists.txt ($layers)" test "$(wc -w <<<"$layers")" -ge 12
paths=()
for p in CMakeLists.txt tests scripts .ci share cmake completion man; do
  [ -e "$S/$p" ] && paths+=("$p")
done
for p in $layers; do
  [ -d "$S/$p" ] && paths+=("$p") || fail "layer $p is not a folder"
done
hits=$(scan "$S" "${paths[@]}")
hits=$(allowed_dropped <<<"$hits")
if [ -z "$hits" ]; then ok "no reference to a folder beside the clone"; else fail "references to a folder beside the clone:
$hits"; fi

# the exception is that line in .ci/run only, and .ci/run tests that it exists
mkdir -p "$tmp/plant2/.ci" "$tmp/plant2/tests"
printf '%s\nx=../%s/fixtures\n' "$ci_engines_line" shared > "$tmp/plant2/.ci/run"
printf '%s\n' "$ci_engines_line" > "$tmp/plant2/tests/e.sh"
printf '%s\n' "  $ci_engines_line" > "$tmp/plant2/tests/f.sh"
hits=$(scan "$tmp/plant2" .ci tests | allowed_dropped)
if [ "$(printf '%s\n' "$hits" | grep -c .)" = 3 ] && ! grep -q '^\.ci/run:1:' <<<"$hits"; then
  ok "the exception drops only .ci/run's engines line, not another reference there nor the line elsewhere"
else fail "the exception drops only .ci/run's engines line: $hits"; fi
check ".ci/run names the engines on that line once" test "$(grep -cxF -- "$ci_engines_line" "$S/.ci/run")" = 1
check ".ci/run uses them only when they exist" grep -qF '[ -d "$real_engines_dir" ]' "$S/.ci/run"

# and what the tests read is there
for f in llama.cpp/README.md llama.cpp/cpu-build-b9749/bench-jsonl.stdout llama.cpp/gpu-h200/README.md \
    models/small-llama-q8_0.gguf models/tiny-moe-q4_0.gguf; do
  check "tests/fixtures/$f is in the tree" test -s "$S/tests/fixtures/$f"
done
check "share/models/tiny-llama-q4_0.gguf is in the tree" test -s "$S/share/models/tiny-llama-q4_0.gguf"
check "LVD_FIXTURES is the tree's tests/fixtures" test "$LVD_FIXTURES" -ef "$S/tests/fixtures"
e2e_finish
