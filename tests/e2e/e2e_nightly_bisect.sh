#!/usr/bin/env bash
# e2e_nightly_bisect.sh: the nightly hunts a regression (man
# lvd-bisect): the candidate b208 is 10 % slower on tg128 than the pinned b200;
# the pin decision names the regression, the nightly runs lvd bisect between
# them on the loopback release server (tests/support/httpd.py), which names b204 (the
# first slow build), and the evidence page shows the culprit with its compare
# link under the pin decision. With bisect = off in the config, no hunt.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_SOURCE LVD_FAKE_ENGINE
nightly_world

for n in $(seq 200 208); do # b204 and later decode 10 % slower; every build is correct
    tg=500
    [ $n -lt 204 ] || tg=450
    fake_release "$SRV" b$n $FLAVOUR "device = Vulkan0|NVIDIA GeForce RTX 3060|12288|11000" "cpu.pp = 400" \
        "cpu.tg = 50" "dev.Vulkan0.pp = 5000" "dev.Vulkan0.tg = $tg" "noise = 0.002" \
        "dev.Vulkan0.ppl_ratio = 1.0004" "dev.Vulkan0.kld = 0.0001"
done
fake_releases_json "$SRV" $FLAVOUR "" $(seq -f 'b%g' 208 -1 200)
serve_releases "$SRV"

nightly_pin b200 "$(release_digest "$SRV" b200)"
# conf on|off: the nightly's config, the regression hunt on or off
conf() { nightly_conf tg128 page.md "bisect = $1" "bisect_budget = 10m"; }
PAGE="$tmp/repo/page.md"

conf on
LVD_FAKE_NOW=$(date -u -d "2026-11-02 03:00" +%s) "$LVD_BIN/lvd" nightly --config "$CONF" >"$tmp/night.out" 2>&1
rc=$?
cat "$tmp/night.out"
grep -q "^build = b200$" "$PIN" && ok "the regression keeps the pin" || fail "pin moved"
grep -qE "regression: tg128(@d[0-9]+)? on vulkan" "$tmp/repo/nightly.log" && ok "the pin decision names the regression" \
    || fail "no regression named: $(grep -A2 "step 'pin'" "$tmp/repo/nightly.log")"
grep -qE "step 'bisect': .*lvd-bisect.* --good b200 --bad b208 .*--test '?tg128(@d[0-9]+)?'? --arm vulkan --budget 10m" "$tmp/repo/nightly.log" \
    && ok "the nightly runs lvd bisect b200..b208 on tg128, vulkan" || fail "no bisect step: $(grep "step 'bisect'" "$tmp/repo/nightly.log" | head -3)"
grep -qE "^bisect +ok$" "$tmp/night.out" && ok "the bisect step succeeds" || fail "bisect step: $(grep bisect "$tmp/night.out")"
[ $rc -eq 0 ] && ok "night exit 0" || fail "night exit $rc"
grep -q "first bad build \*\*b204\*\* (c0ffee204), last good b203 (c0ffee203)" "$PAGE" \
    && ok "the page shows the culprit b204 under the pin decision" || fail "page: $(grep -n "Regression hunt" "$PAGE")"
grep -qF "[b203...b204](https://github.com/ggml-org/llama.cpp/compare/b203...b204)" "$PAGE" \
    && ok "with its compare link" || fail "no compare link"
awk '/^Newest decision/{d=NR} /^Regression hunt/{h=NR} END{exit !(d && h > d)}' "$PAGE" \
    && ok "the culprit is under the pin decision" || fail "culprit placement"
downloads=$(sqlite3 "$LVD_STORE" "SELECT count(*) FROM bisect_steps WHERE downloaded = 1")
[ "$downloads" -le 4 ] && ok "within log2(9) + 1 = 4 downloads ($downloads)" || fail "$downloads downloads"

# bisect = off: the same regression, no hunt
conf off
LVD_FAKE_NOW=$(date -u -d "2026-11-03 03:00" +%s) "$LVD_BIN/lvd" nightly --config "$CONF" >"$tmp/night.out" 2>&1
rc=$?
grep -q "^bisect " "$tmp/night.out" && fail "bisect = off still hunted" || ok "bisect = off: no hunt"
[ $rc -eq 0 ] && ok "the next night measures no retired midpoint (exit 0)" || { cat "$tmp/night.out"; fail "night 2 exit $rc"; }
grep -qE "b20[1-7]-ubuntu" "$PAGE" && fail "the hunt's midpoints are on the page: $(grep -E "b20[1-7]-ubuntu" "$PAGE" | head -2)" \
    || ok "the hunt's midpoints are on no table of the page"
e2e_finish
