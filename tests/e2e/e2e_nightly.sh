#!/usr/bin/env bash
# e2e_nightly.sh: the main job end to end (docs/nightly.md,
# man lvd-nightly). A loopback release server
# (tests/support/httpd.py) serves a pinned build and faster candidates whose binaries
# are the fake engine with known speeds; scripts' `lvd nightly` runs on fixed
# dates (LVD_FAKE_NOW):
#   night 1: the candidate wins but the pin is kept (needs two nights);
#   night 2: the same verdict again: the pin file is rewritten to the candidate;
#   night 3: a faster candidate that fails the correctness check: pin kept;
# plus: the evidence page names the right winner with the right delta, a
# second job is refused by the lock, and offline the job says so in one line
# and still writes the page.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_SOURCE LVD_FAKE_ENGINE
nightly_world "tiny model.gguf" # a space in the path, on purpose
export GITHUB_TOKEN=tok-e2e-secret

# build TAG TG PPL_RATIO KLD: a release archive whose engine is the fake with a
# Vulkan0 device of that decode speed and that correctness; prints its digest.
build() {
    fake_release "$SRV" "$1" $FLAVOUR "device = Vulkan0|NVIDIA GeForce RTX 3060|12288|11000" "cpu.pp = 400" \
        "cpu.tg = 50" "dev.Vulkan0.pp = 5000" "dev.Vulkan0.tg = $2" "noise = 0.002" "dev.Vulkan0.ppl_ratio = $3" \
        "dev.Vulkan0.kld = $4"
    release_digest "$SRV" "$1"
}
D200=$(build b200 500 1.0004 0.0001)   # pinned
D201=$(build b201 560 1.0005 0.0001)   # +12 % tg, correct
D202=$(build b202 700 1.3 0.4)         # +25 % over b201, wrong results

# releases TAG... : writes releases.json (newest first), each published on 2026-11-01
releases() { fake_releases_json "$SRV" $FLAVOUR "" "$@"; }
releases b201 b200

serve_releases "$SRV"

nightly_pin b200 "$D200" "the build this box serves with (reviewed in diffs)"
nightly_conf pp512,tg128 docs/evidence/backend-selection.md "ctx = 2048"
PAGE="$tmp/repo/docs/evidence/backend-selection.md"

night() { # night DATE: runs the job on that date (UTC midnight + 3 h)
    LVD_FAKE_NOW=$(date -u -d "$1 03:00" +%s) "$LVD_BIN/lvd" nightly --config "$CONF" >"$tmp/night.out" 2>&1
}

# --- night 1: candidate faster, pin kept (first night) ---------------------
night 2026-11-02; rc=$?
cat "$tmp/night.out"
[ $rc -eq 0 ] || fail "night 1 exit $rc (want 0)"
grep -q "^build = b200$" "$PIN" && ok "night 1 keeps the pin" || fail "night 1 moved the pin: $(cat "$PIN")"
LOG="$tmp/repo/nightly.log"
# reps unset in the config: lvd bench chooses -r from its cost model
BENCH_LINE=$(grep "step 'bench.*--budget" "$LOG" | head -1)
[ -n "$BENCH_LINE" ] && ! printf '%s' "$BENCH_LINE" | grep -q -- '--reps' && ok "bench runs without --reps (cost model)" \
    || fail "bench step line: $BENCH_LINE"
printf '%s' "$BENCH_LINE" | grep -q -- '--ctx 2048' && ok "the bench measures at the context served (ctx = 2048)" \
    || fail "bench step line without --ctx 2048: $BENCH_LINE"
SELECT_LINE=$(grep "step 'select.*--record" "$LOG" | head -1)
printf '%s' "$SELECT_LINE" | grep -q -- '--ctx 2048' && ok "and lvd select launches with it" \
    || fail "select step line without --ctx 2048: $SELECT_LINE"
grep -q "first night: needs a second consecutive night" "$LOG" && ok "night 1 rule: needs two nights" \
    || fail "night 1 pin rule: $(grep -A3 "step 'pin'" "$LOG")"
[ -s "$PAGE" ] || fail "night 1 wrote no evidence page"
grep -q '^Newest decision (2026-11-02 03:00 UTC): \*\*keep\*\* — pinned b200, candidate b201\.$' "$PAGE" \
    && ok "evidence page: night 1 keeps b200 against the candidate b201" || fail "page lacks night 1's pin decision"
# The night's last act keeps each model's serving answer (select/cache.h):
# the select a service runs after it (lvd-select or `lvd select`), in the
# night's environment with the model as configured, answers from it (the
# kept files untouched) and prints what the whole selection prints.
kept() { (cd "$LVD_STORE-select" 2>/dev/null && ls -i | sort); }
SERVE_MODEL="$tmp/repo/../models/$(basename "$MODEL")"
NIGHT1=$(date -u -d "2026-11-02 03:00" +%s)
kept_before=$(kept)
LVD_FAKE_NOW=$NIGHT1 "$LVD_BIN/lvd-select" --model "$SERVE_MODEL" --ctx 2048 > "$tmp/serve.out" 2>&1
LVD_FAKE_NOW=$NIGHT1 LVD_SELECT_CACHE=off "$LVD_BIN/lvd-select" --model "$SERVE_MODEL" --ctx 2048 > "$tmp/serve.full" 2>&1
[ -n "$kept_before" ] && [ "$(kept)" = "$kept_before" ] && ok "the select after the night answers from its kept answer" \
    || fail "the select after the night was not a hit: $(grep 'serving answer' "$LOG")"
cmp -s "$tmp/serve.out" "$tmp/serve.full" && ok "and prints what the whole selection prints" \
    || fail "the kept answer differs: $(diff "$tmp/serve.out" "$tmp/serve.full" | head -5)"
LVD_FAKE_NOW=$NIGHT1 "$LVD_BIN/lvd" select --model "$SERVE_MODEL" --ctx 2048 > "$tmp/serve.lvd" 2>&1
[ "$(kept)" = "$kept_before" ] && cmp -s "$tmp/serve.lvd" "$tmp/serve.full" \
    && ok "and so does \`lvd select\` through the dispatcher" || fail "\`lvd select\` after the night was not a hit"

# --- night 2: the same verdict again: promoted ------------------------------
night 2026-11-03; rc=$?
cat "$tmp/night.out"
[ $rc -eq 0 ] || fail "night 2 exit $rc (want 0)"
if grep -q "^build = b201$" "$PIN" && grep -q "$D201" "$PIN"; then
    ok "night 2 promotes b201 with its digest"
else
    fail "night 2 did not promote: $(cat "$PIN")"
fi
grep -q "^# the build this box serves with" "$PIN" && ok "pin file comments kept" || fail "pin comments lost"
# the page: the verdict is a b201 arm; the pin section shows tg about +12 % over b200
grep -q '^\*\*Verdict:\*\* vulkan b201' "$PAGE" && ok "page verdict: b201" || fail "page verdict: $(grep -n Verdict "$PAGE")"
grep -E '^\| .* \| tg128 \| .* \| \+1[0-4]\.[0-9] % \[' "$PAGE" >/dev/null && ok "page shows tg +12 % for the candidate" \
    || fail "page lacks the candidate's tg delta: $(grep -n tg128 "$PAGE" | head -5)"
grep -q '^| 2026-11-03 03:00 UTC | b200 | b201 | promote (applied) | promote b201: ' "$PAGE" \
    && ok "page records the promotion" || fail "page lacks the promotion"
ls "$(dirname "$PAGE")"/*.svg >/dev/null 2>&1 && ok "charts beside the page" || fail "no SVG charts"
# LVD_UPDATE_EXAMPLE=1 ctest -R e2e_nightly refreshes docs/evidence.md's example
# (this night's page and charts, with the temporary directory renamed)
if [ -n "${LVD_UPDATE_EXAMPLE:-}" ]; then
    ex="$LVD_SOURCE/docs/evidence/nightly-example"
    rm -rf "$ex" && mkdir -p "$ex"
    for f in "$(dirname "$PAGE")"/*; do
        sed "s|$tmp|/srv/verdict|g" "$f" >"$ex/$(basename "$f")"
    done
    ok "example refreshed in $ex"
fi

# --- night 3: a faster candidate with wrong results: pin kept ----------------
releases b202 b201 b200
for d in 2026-11-04 2026-11-05; do
    night $d; rc=$?
    cat "$tmp/night.out"
    [ $rc -eq 5 ] || fail "night $d exit $rc (want 5: the candidate's check failed)"
done
grep -q "^build = b201$" "$PIN" && ok "a candidate failing correctness never moves the pin" \
    || fail "pin moved to a wrong candidate: $(cat "$PIN")"
tail -40 "$LOG" | grep -q "candidate failed correctness on Vulkan0" && ok "rule: correctness" \
    || fail "night 3 rule: $(grep -A3 "step 'pin'" "$LOG" | tail -4)"
# shows_failed_check FILE: the page has the check's own row and the excluded
# arm's line (every page says "failed" in its preamble: that proves nothing)
shows_failed_check() {
    grep -qE '^- check vulkan Vulkan0 \(model [0-9a-f]{12}\): fail: PPL ratio 1\.3000, KLD 0\.400000' "$1" &&
        grep -qE '^- vulkan b202-ubuntu-vulkan-x64 · fa [01] \(b202-ubuntu-vulkan-x64\): failed its correctness check' "$1"
}
shows_failed_check "$PAGE" && ok "page shows the failed check" || fail "page does not show the failed check"
grep -v '^- check vulkan' "$PAGE" >"$tmp/page-without-check.md"
shows_failed_check "$tmp/page-without-check.md" && fail "the failed-check assertion passes on a page without the check's row" \
    || ok "the failed-check assertion fails on a page without the check's row"

# --- the lock: a second job at once is refused ------------------------------
exec 9>"$LVD_STORE.nightly.lock"
flock -n 9 || fail "could not take the lock in the test"
"$LVD_BIN/lvd" nightly --config "$CONF" >"$tmp/locked.out" 2>&1; rc=$?
[ $rc -eq 8 ] && grep -q "another nightly is running" "$tmp/locked.out" && ok "second job refused (exit 8)" \
    || fail "lock: exit $rc: $(cat "$tmp/locked.out")"
exec 9>&-

# --- offline: one line, goes on, still writes the page ----------------------
rm -f "$PAGE"
LVD_RELEASES_API=http://127.0.0.1:1/api LVD_RELEASES_DOWNLOAD=http://127.0.0.1:1/download \
    LVD_FAKE_NOW=$(date -u -d "2026-11-06 03:00" +%s) "$LVD_BIN/lvd" nightly --config "$CONF" >"$tmp/off.out" 2>&1
rc=$?
cat "$tmp/off.out"
[ "$(grep -c '^offline:' "$tmp/off.out")" -eq 1 ] && ok "offline said once" || fail "offline line: $(cat "$tmp/off.out")"
[ -s "$PAGE" ] && ok "offline night still writes the page" || fail "offline night wrote no page (exit $rc)"
cat "$tmp"/*.out "$tmp/repo/nightly.log" "$PAGE" | grep -q "tok-e2e-secret" && fail "the token reached a log or output"

[ "$fails" -eq 0 ] || { echo "--- nightly.log (tail)"; tail -60 "$tmp/repo/nightly.log"; }
e2e_finish
