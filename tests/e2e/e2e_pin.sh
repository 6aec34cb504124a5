#!/usr/bin/env bash
# e2e_pin.sh: `lvd pin` as the nightly calls it: usage and exit codes (bad
# pin file 3, no store 4, nothing to compare 1), a decision on real numbers
# (the H200 CUDA capture imported as the pinned and as the candidate build:
# equal speeds, and pp's 4 kept samples too few to decide, keep the pin), --json with every
# comparison, recording (and --no-record not), --promote leaving a kept pin
# file byte for byte, and the evidence page's pin section. Promotion itself
# (two nights, digest, atomic rewrite) is covered by tests/test_pin.c.
# Needs LVD_BIN and LVD_FIXTURES (set by ctest).
E2E_FAIL_FAST=1
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FIXTURES
F="$LVD_FIXTURES/llama.cpp/gpu-h200"
SHA=973978067daa0$(printf 'd%.0s' $(seq 51))
S="$tmp/store.db"
unset LVD_STORE LVD_HOST

pin() { "$LVD_BIN/lvd-pin" --store "$S" --host h200 "$@"; }
decisions() { "$LVD_BIN/lvd-store" --store "$S" info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["counts"]["pin_decisions"])'; }

PINF="$tmp/llama.pin"
cat >"$PINF" <<'EOF'
# the build this box serves; reviewed in diffs
build = b9749
flavour = bin-ubuntu-vulkan-x64
EOF
cp "$PINF" "$tmp/llama.pin.orig"

capture "$LVD_BIN/lvd-pin" --help; grep -q "lvd pin --pin-file" "$tmp/out" || fail "--help has no example"
expect_exit 2 "--pin-file FILE is required" pin
expect_exit 2 "--candidate wants a build" pin --pin-file "$PINF" --candidate tomorrow
expect_exit 2 "excludes --no-record" pin --pin-file "$PINF" --promote --no-record
printf 'build = b9749\nflavour = bin-ubuntu-vulkan-x64\nbuild = b9750\n' >"$tmp/bad.pin"
expect_exit 3 "$tmp/bad.pin:3: 'build' is set twice" pin --pin-file "$tmp/bad.pin"
expect_exit 3 "$tmp/none.pin" pin --pin-file "$tmp/none.pin"
expect_exit 4 "no store here" pin --pin-file "$PINF"
expect_exit 2 "is the pinned build" pin --pin-file "$PINF" --candidate b9749

# The pinned build and a candidate: the same CUDA capture imported for both
# (a local build reports no build number, so either id is accepted). Equal
# medians; but llama-bench's cold first pp512 repetition (34431.6 before
# ~59.9k, 49305.8 before ~85.4k) is flagged as warm-up on import, as lvd
# bench flags it, which leaves 4 kept pp samples per arm: too few to decide
# anything, and that holds the pin.
for b in b9749 b9750; do
  "$LVD_BIN/lvd-store" --store "$S" import "$F/bench-cuda-dense-ngl99.jsonl" --engine-dir "/opt/llama.cpp/$b-cuda" \
    --engine "$b-cuda" --build "$b" --artifact "$SHA" --host h200 >/dev/null
done
# the pinned build's CPU arm has no candidate counterpart: not compared
"$LVD_BIN/lvd-store" --store "$S" import "$F/bench-cpu-dense.jsonl" --engine-dir /opt/llama.cpp/b9749-cpu \
  --engine b9749-cpu --build b9749 --artifact "$SHA" --host h200 >/dev/null

# no fetched build besides the pin, and a named one that was never measured: nothing to compare
expect_output 1 "no candidate measured: no build other than the pinned b9749" pin --pin-file "$PINF"
expect_output 1 "no candidate measured: no test ran on both b9749 and b9751" pin --pin-file "$PINF" --candidate b9751
[ "$(decisions)" = 2 ] || fail "each decision is recorded, also 'no candidate measured'"

# equal speeds, but too few kept samples to prove anything: the pin stays
expect_output 0 "too few samples: pp512 on cuda (4 candidate, 4 pinned; 5 needed, model 973978067daa)" \
  pin --pin-file "$PINF" --candidate b9750 --promote
grep -q "pinned b9749 (bin-ubuntu-vulkan-x64), candidate b9750: keep" "$tmp/out" || fail "decision line: $(cat "$tmp/out")"
cmp -s "$PINF" "$tmp/llama.pin.orig" || fail "a kept pin file was rewritten"
# the table names each arm in full (42 characters, once cut at 40) and says what its statistics show:
# fa 1's pp512 CI reaches below the floor and above 1: inconclusive, never "regression"
grep -Eq '^  973978067daa  cuda      ngl 99, fa 1, ub 512, ctk f16, ctv f16, t 16  pp512 .* inconclusive$' "$tmp/out" ||
  fail "comparison table: $(cat "$tmp/out")"
grep -q "regression$" "$tmp/out" && fail "a comparison not shown slower is called a regression: $(cat "$tmp/out")"
[ "$(decisions)" = 3 ] || fail "the decision was not recorded"
pin --pin-file "$PINF" --candidate b9750 --no-record --json >"$tmp/j"
[ "$(decisions)" = 3 ] || fail "--no-record recorded"
python3 - "$tmp/j" <<'PY' || fail "--json: $(cat "$tmp/j")"
import json, sys
v = json.load(open(sys.argv[1]))
assert v["decision"] == "keep" and v["hold"] == "few-samples" and not v["would_promote"] and not v["recorded"], v
c = v["comparisons"]
assert len(c) == 4, len(c)                                    # pp512 and tg128, fa 0 and fa 1
assert sorted(x["test"] for x in c) == ["pp512", "pp512", "tg128", "tg128"]
for x in c:
    assert x["backend"] == "cuda" and x["stats"]["ratio"] == 1 and not x["win"], x
    pp = x["test"] == "pp512"
    # the cold first pp repetition is warm-up, never scored
    assert x["pinned"]["n"] == x["candidate"]["n"] == (4 if pp else 5), x
    assert x["pinned"]["warmup"] == x["candidate"]["warmup"] == (1 if pp else 0), x
    # tg's CI is within +-1 %; fa 1's four pp samples spread wider than the 2 % floor
    assert x["no_regression"] == (not pp or "fa=0" in x["arm_key"]), x
    # not free of regression but not shown slower (ratio 1): inconclusive
    assert x["verdict"] == ("" if x["no_regression"] else "inconclusive"), x
assert v["sessions"] == ["import:bench-cuda-dense-ngl99.jsonl"], v["sessions"]
PY

# the evidence page carries the newest decision and its comparisons
"$LVD_BIN/lvd-evidence" --store "$S" --host h200 --out "$tmp/page.md" >/dev/null
grep -qF -- "**keep** — pinned b9749, candidate b9750." "$tmp/page.md" || fail "pin section: $(grep -A3 '## Pin' "$tmp/page.md")"
grep -qF -- "| dense-1b-f16.gguf | cuda | ngl 99, fa 1, ub 512, ctk f16, ctv f16, t 16 | tg128 | 995.6 (n 5) | 995.6 (n 5) | +0.0 % [" "$tmp/page.md" ||
  fail "pin comparison row"
grep -qE -- "^\| dense-1b-f16.gguf \| cuda \| ngl 99, fa 1, ub 512, ctk f16, ctv f16, t 16 \| pp512 \| .* \| inconclusive \| " "$tmp/page.md" ||
  fail "the page's word for the inconclusive comparison: $(grep pp512 "$tmp/page.md")"
grep -qF -- "no candidate measured: no build other than the pinned b9749" "$tmp/page.md" || fail "decision history"
e2e_finish
