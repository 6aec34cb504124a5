#!/usr/bin/env bash
# e2e_semver.sh: llama.cpp's SemVer releases through fetch, pin and bisect,
# on a loopback release server (tests/support/httpd.py) laid out as llama.cpp
# publishes since Aug 2026: every build b<N> a prerelease carrying the
# archives, and releases vX.Y.Z whose one asset, nightly-tag.txt, names the
# build of the same commit. Each build is the fake engine printing the
# SemVer era's version line. Cases:
#   fetch: lvd fetch v0.4.1 fetches, verifies and registers build b10995 with
#     its commit, version and the release's name; a local build b10993 is
#     older than a pin naming v0.4.1 (b10995);
#   pin: a pin file naming v0.4.0 (b10990, with its archive's digest) through
#     two nights of lvd nightly: the faster newest build b10995 is promoted,
#     ordered by build number, and the pin file then names it;
#   bisect: --good v0.5.0 --bad v0.5.1 hunts between the builds they stand
#     for and finds the first slower build;
#   hunt: a pin file naming v0.5.0 and the slower newest build b11007: the
#     nightly keeps the pin and bisects from b11000, the build v0.5.0 is.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_SOURCE LVD_FAKE_ENGINE
nightly_world

# build SRV TAG VERSION TG: a release archive whose engine is the fake with a
# Vulkan0 device of that decode speed, printing "version: VERSION (build N, commit C)"
build() {
    fake_release "$1" "$2" $FLAVOUR "version = $3" "device = Vulkan0|NVIDIA GeForce RTX 3060|12288|11000" \
        "cpu.pp = 400" "cpu.tg = 50" "dev.Vulkan0.pp = 5000" "dev.Vulkan0.tg = $4" "noise = 0.002"
}

# --- the releases: b10990 .. b10995, v0.4.0 = b10990, v0.4.1 = b10995 ------------
for n in 10990 10991; do build "$SRV" b$n 0.4.0-dev 500; done
for n in 10992 10993 10994 10995; do build "$SRV" b$n 0.4.1-dev 560; done
fake_semver "$SRV" v0.4.0 b10990
fake_semver "$SRV" v0.4.1 b10995
fake_releases_json "$SRV" $FLAVOUR "" v0.4.1 b10995 b10994 b10993 b10992 b10991 v0.4.0 b10990
serve_releases "$SRV"

# --- fetch ---------------------------------------------------------------------------
lvd fetch v0.4.1 --builds-dir "$tmp/builds" --json
expect_rc "lvd fetch v0.4.1" 0
check "v0.4.1 is build b10995, verified as any build is" is \
    "(d['release'], d['build'], d['verified'], d['sha256'] == '$(release_digest "$SRV" b10995)')" "('v0.4.1', 'b10995', 'api', True)"
check "the engine's own version line: commit and SemVer version" is "(d['commit'], d['semver'])" \
    "('c0ffee10995', '0.4.1-dev')"
lvd probe --json
check "the probe shows the version beside the build" is \
    "[(p['build'], p['semver']) for p in d['probes'] if p['engine'] == 'b10995-ubuntu-vulkan-x64']" "[('b10995', '0.4.1-dev')]"
# a local build is older than a pin naming v0.4.1 by the build v0.4.1 was fetched as
fake_engine "$tmp/local" "device = Vulkan0|NVIDIA GeForce RTX 3060|12288|11000" "version = 0.4.1-dev" \
    "build_number = 10993" "build_commit = c0ffee10993"
"$LVD_BIN/lvd" fetch --register "$tmp/local" --name b10993-local >/dev/null 2>&1
printf 'build = v0.4.1\nflavour = %s\n' $FLAVOUR >"$tmp/older.pin"
LVD_PIN_FILE="$tmp/older.pin" lvd probe --json
check "older than a pin naming a release: by the build it stands for" is \
    "[p['older_than_pin'].split(':')[0] for p in d['probes'] if p.get('older_than_pin')]" \
    "['b10993-local is older than the pin b10995']"
rm -rf "$tmp/builds" "$LVD_STORE"

# --- pin: v0.4.0 pinned, the newest build promoted by number over two nights ---------
nightly_pin v0.4.0 "$(release_digest "$SRV" b10990)" "the release this box serves with"
nightly_conf pp512,tg128 page.md
night() { capture env LVD_FAKE_NOW="$(date -u -d "$1 03:00" +%s)" "$LVD_BIN/lvd" nightly --config "$CONF"; }
night 2026-11-02
expect_rc "night 1" 0
grep -q "v0.4.0 is b10990\|v0.4.0 is build b10990" "$tmp/repo/nightly.log" && ok "night 1 fetched the pinned v0.4.0 as b10990" ||
    fail "night 1: no sign of v0.4.0 resolved: $(grep -i 'v0.4.0' "$tmp/repo/nightly.log" | head -5)"
grep -q "^build = v0.4.0$" "$PIN" && ok "night 1 keeps the pin" || fail "night 1 moved the pin: $(cat "$PIN")"
grep -q "pinned b10990 (bin-ubuntu-vulkan-x64), candidate b10995" "$tmp/repo/nightly.log" &&
    ok "the candidate is the newest build by number (b10995), the pin the build v0.4.0 stands for" ||
    fail "pin decision: $(grep -A4 "step 'pin'" "$tmp/repo/nightly.log" | head -8)"
night 2026-11-03
expect_rc "night 2" 0
if grep -q "^build = b10995$" "$PIN" && grep -q "$(release_digest "$SRV" b10995)" "$PIN"; then
    ok "night 2 promotes b10995 with its digest over the pinned v0.4.0"
else
    fail "night 2 did not promote: $(cat "$PIN"); $(tail -20 "$tmp/repo/nightly.log")"
fi

# --- bisect: --good v0.5.0 --bad v0.5.1, ordered by build number ----------------------
SRV2="$tmp/srv2"
mkdir -p "$SRV2/files"
echo '{}' >"$SRV2/faults.json"
for n in $(seq 11000 11007); do
    if [ $n -lt 11004 ]; then build "$SRV2" b$n 0.5.0-dev 500; else build "$SRV2" b$n 0.5.1-dev 450; fi
done
fake_semver "$SRV2" v0.5.0 b11000
fake_semver "$SRV2" v0.5.1 b11007
fake_releases_json "$SRV2" $FLAVOUR "" v0.5.1 $(seq -f 'b%g' 11007 -1 11000) v0.5.0
serve_releases "$SRV2"
export LVD_STORE="$tmp/bisect.db" LVD_BUILDS_DIR="$tmp/bisect-builds"
lvd bisect --good v0.5.0 --bad v0.5.1 -m "$MODEL" --flavour $FLAVOUR --test tg128 --budget 10m --json
expect_rc "bisect between two SemVer releases" 0
check "the first bad build b11004, the last good b11003" is "(d['first_bad'], d['last_good'])" "('b11004', 'b11003')"
check "the builds between v0.5.0 (b11000) and v0.5.1 (b11007), prereleases all" is "d['candidates']" 6
check "the names as asked" is "(d['good'], d['bad'])" "('v0.5.0', 'v0.5.1')"
has_err "v0.5.0 is build b11000 \(the build its nightly-tag.txt names\)" && ok "bisect says what v0.5.0 stands for" ||
    fail "$(cat "$tmp/err")"
lvd bisect --good v0.5.1 --bad v0.5.0 -m "$MODEL" --flavour $FLAVOUR
expect_rc "good newer than bad by build number: usage" 2
has_err "--good b11007 must be older than --bad b11000" && ok "names the builds" || fail "$(cat "$tmp/err")"

# --- the nightly's hunt from a pin naming v0.5.0: the regressed b11007 against b11000 -----
export LVD_STORE="$tmp/hunt.db" LVD_BUILDS_DIR="$tmp/hunt-builds"
nightly_pin v0.5.0 "$(release_digest "$SRV2" b11000)"
nightly_conf tg128 page.md "bisect = on" "bisect_budget = 10m"
sed -i "s|^builds_dir = .*|builds_dir = $tmp/hunt-builds|" "$CONF"
: >"$tmp/repo/nightly.log"
night 2026-11-04
grep -q "^build = v0.5.0$" "$PIN" && ok "hunt: the regression keeps the pin naming v0.5.0" || fail "hunt: pin moved: $(cat "$PIN")"
grep -qE "step 'bisect': .*lvd-bisect.* --good b11000 --bad b11007 " "$tmp/repo/nightly.log" &&
    ok "hunt: lvd bisect between the build v0.5.0 stands for (b11000) and the candidate b11007" ||
    fail "hunt: no bisect step: $(grep -E "step '(pin|bisect)'" "$tmp/repo/nightly.log" | head -4)"
grep -q "first bad build \*\*b11004\*\* (c0ffee11004), last good b11003" "$tmp/repo/page.md" &&
    ok "hunt: the page names b11004, the first slower build by number" ||
    fail "hunt: page: $(grep -n -A2 "Regression hunt" "$tmp/repo/page.md" | head -4)"
e2e_finish
