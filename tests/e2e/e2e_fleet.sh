#!/usr/bin/env bash
# e2e_fleet.sh: one store that several hosts write, each host's
# night made by the tools with the fake engine under LVD_HOST: three Pascal
# boxes (GTX 1060, CUDA and Vulkan builds; Vulkan decodes faster by a
# different margin on each) and one H200 box (CUDA ahead). `lvd evidence
# --fleet` (text and --json): per host its GPU and winner, the backend map's
# cells with n hosts and the interval across hosts; the normal page of a
# store with several hosts ends with the fleet section. `lvd pin --fleet`:
# a candidate build that wins on two hosts and regresses on one is held, the
# line naming that host; without that host's regression it would promote
# (first night). `lvd select` with LVD_STORE_FALLBACK: --record writes the
# copy (this host's verdicts only), and a store that cannot be opened is
# read from the copy with a warning and the same launch line; without a copy
# it is exit 4. Needs LVD_BIN, LVD_FAKE_ENGINE, LVD_SOURCE (set by ctest).
E2E_FAIL_FAST=1
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
unset LVD_STORE_FALLBACK
MODEL=$tmp/tiny-llama-q4_0.gguf
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$MODEL"
REGISTER_OK=0
GTX="NVIDIA GeForce GTX 1060 6GB"

# reg HOST DIR BUILD: registers DIR as BUILD under its basename, an engine of HOST (engines are per host)
reg() { LVD_HOST=$1 "$LVD_BIN/lvd" fetch --register "$2" --build "$3" --name "$(basename "$2")" >/dev/null || fail "register $2"; }
# box HOST CARD CUDA_TG VK_TG: a host with a CUDA and a Vulkan build of b9749 seeing CARD
box() {
  local h=$1 card=$2
  fake_engine "$W/$h-cuda" "noise = 0.003" "device = CUDA0|$card|6144|5800|6.1" "dev.CUDA0.tg = $3" "dev.CUDA0.pp = 3000"
  fake_engine "$W/$h-vk" "noise = 0.003" "device = Vulkan0|$card|6144|5900" "dev.Vulkan0.tg = $4" "dev.Vulkan0.pp = 2500"
  reg "$h" "$W/$h-cuda" b9749
  reg "$h" "$W/$h-vk" b9749
}
# night HOST ENGINES: the nightly's steps on HOST for those engines
night() {
  local h=$1
  LVD_HOST=$h capture "$LVD_BIN/lvd" check --model "$MODEL" --engines "$2"
  expect_rc "check on $h" 0
  LVD_HOST=$h capture "$LVD_BIN/lvd" bench --model "$MODEL" --engines "$2" --reps 5 --budget 120s --session "$h-$3"
  expect_rc "bench on $h" 0
  LVD_HOST=$h capture "$LVD_BIN/lvd" select --model "$MODEL" --record
  expect_rc "select --record on $h" 0
}

# ------------------------------------------------------------ the fleet page
world fleet
box box-1 "$GTX" 500 700     # Vulkan +40 % tg
box box-2 "$GTX" 500 750     # +50 %
box box-3 "$GTX" 500 650     # +30 %
box box-4 "NVIDIA H200" 900 600
for h in box-1 box-2 box-3 box-4; do night "$h" "$h-cuda,$h-vk" n1; done
# box-5 (an RTX 3060): a month ago it also measured a second Vulkan build twice
# as fast; the fleet reads each host's newest nights, where only its Vulkan
# +10 % build ran
RTX="NVIDIA GeForce RTX 3060"
box box-5 "$RTX" 500 550
fake_engine "$W/box-5-vk2" "noise = 0.003" "device = Vulkan0|$RTX|6144|5900" "dev.Vulkan0.tg = 1000"
reg box-5 "$W/box-5-vk2" b9749
LVD_FAKE_NOW=$(( $(date +%s) - 30 * 86400 )) LVD_HOST=box-5 capture "$LVD_BIN/lvd" bench --model "$MODEL" \
  --engines box-5-cuda,box-5-vk,box-5-vk2 --reps 5 --budget 120s --session box-5-old
expect_rc "box-5's old night" 0
LVD_HOST=box-5 capture "$LVD_BIN/lvd" bench --model "$MODEL" --engines box-5-cuda,box-5-vk --reps 5 --budget 120s --session box-5-new
expect_rc "box-5's new night" 0

lvd evidence --fleet
expect_rc "evidence --fleet" 0
check "five hosts" has "^5 hosts write this store"
check "box-1's GPU and its winner: Vulkan" has "^\| box-1 \| $GTX \| tiny-llama-q4_0.gguf: box-1-vk \(vulkan, Vulkan0\) \|$"
check "box-4's winner: CUDA on the H200" has "^\| box-4 \| NVIDIA H200 \| tiny-llama-q4_0.gguf: box-4-cuda \(cuda, CUDA0\) \|$"
check "the tg map states its method" has "^### Backend map: tg$"
check "GTX 1060 row: Vulkan +40 % median over 3 hosts, the range with its coverage" \
  has "^\| $GTX \| -2[0-9]\.[0-9] % \[-3[0-9]\.[0-9] %, -2[0-9]\.[0-9] %\] range, 75\.0 % coverage n = 3 \| \+(39|40)\.[0-9] % \[\+(29|30)\.[0-9] %, \+(49|50)\.[0-9] %\] range, 75\.0 % coverage n = 3 \|$"
check "H200 row: one host, no interval" has "^\| NVIDIA H200 \| \+[0-9.]+ % n = 1 \| -3[0-9]\.[0-9] % n = 1 \|$"
check "a pp map too" has "^### Backend map: pp$"
check "box-5: its newest night only (not last month's faster build)" has "^\| $RTX \| -(8|9|10)\.[0-9] % n = 1 \| \+(8|9|10|11|12)\.[0-9] % n = 1 \|$"
check "box-5 recorded no verdict" has "^\| box-5 \| $RTX \| - \|$"

lvd evidence --fleet --host box-1
expect_rc "--fleet with --host" 2
check "says why" has_err "--host does not go with --fleet"
lvd evidence --fleet --out "$tmp/fleet.md"
expect_rc "--fleet with --out" 2
check "refused in one line, nothing written" bash -c "grep -q -- '--out does not go with --fleet' '$tmp/err' && [ ! -e '$tmp/fleet.md' ]"
lvd evidence --fleet --json
expect_rc "evidence --fleet --json" 0
check "--json: hosts" is "[h['host'] for h in d['hosts']]" "['box-1', 'box-2', 'box-3', 'box-4', 'box-5']"
check "--json: box-2's GPU" is "d['hosts'][1]['gpus']" "['$GTX']"
check "--json: the GTX Vulkan tg cell: median of 1.4, 1.5, 1.3 over three hosts" \
  is "[(round(c['median'], 1), round(c['ci_lo'], 1), round(c['ci_hi'], 1), c['n_hosts'], c['short_of_level']) for c in d['backend_map']['tg'] if c['card'] == '$GTX' and c['backend'] == 'vulkan']" \
  "[(1.4, 1.3, 1.5, 3, True)]"
check "--json: the H200 CUDA tg cell, n = 1 without an interval" \
  is "[(round(c['median'], 2), c['ci_lo'], c['n_hosts'], c['hosts']) for c in d['backend_map']['tg'] if c['card'] == 'NVIDIA H200' and c['backend'] == 'cuda']" \
  "[(1.5, None, 1, ['box-4'])]"
check "--json: the method is stated" is "'distribution-free' in d['method']" True

LVD_HOST=box-1 capture "$LVD_BIN/lvd" evidence --out "$tmp/page/p.md"
expect_rc "the page of box-1" 0
check "a store with several hosts: the page ends with the fleet" grep -q "^## Fleet$" "$tmp/page/p.md"
check "with the map" grep -q "^### Backend map: tg$" "$tmp/page/p.md"

# ------------------------------------------------------------ pin --fleet
# Three Vulkan boxes with the pinned b9749 and a candidate b9750 each: the
# candidate decodes 10 % faster on pin-a and pin-b and 4 % slower on pin-c.
world pin
PINF=$tmp/llama.pin
printf 'build = b9749\nflavour = bin-ubuntu-vulkan-x64\n' >"$PINF"
cp "$PINF" "$tmp/llama.pin.orig"
# pinbox HOST CANDIDATE_TG: HOST's old and new Vulkan builds on one GTX 1060
pinbox() {
  fake_engine "$W/$1-old" "noise = 0.003" "device = Vulkan0|$GTX|6144|5900" "dev.Vulkan0.tg = 700" "dev.Vulkan0.pp = 2500"
  fake_engine "$W/$1-new" "noise = 0.003" "build_number = 9750" "device = Vulkan0|$GTX|6144|5900" \
    "dev.Vulkan0.tg = $2" "dev.Vulkan0.pp = 2500"
  reg "$1" "$W/$1-old" b9749
  reg "$1" "$W/$1-new" b9750
}
pinbox pin-a 770
pinbox pin-b 770
pinbox pin-c 672
lvd evidence --fleet
expect_rc "--fleet on a store without runs: nothing measured" 1
check "says so" has_err "nothing measured on any host"
for h in pin-a pin-b pin-c; do night "$h" "$h-old,$h-new" n1; done

lvd pin --pin-file "$PINF" --candidate b9750 --fleet --promote
expect_rc "pin --fleet decides" 0
check "one host's regression holds the fleet, named" \
  has "^  regression on pin-c: tg128(@d2048)? on vulkan -4\.[0-9] % \[CI -[0-9.]+ %, -[0-9.]+ %\]"
check "the decision line keeps the pin" has "^pinned b9749 \(bin-ubuntu-vulkan-x64\), candidate b9750: keep$"
check "per host: pin-a shows its win (first night on its own)" has "^  pin-a +first-night +first night"
check "per host: pin-c its regression" has "^  pin-c +regression +regression: tg128(@d2048)? on vulkan -4"
check "text: the comparisons are left to --json" has "^every host's comparisons: --json$"
check "the pin file is untouched" same "$PINF" "$tmp/llama.pin.orig"
lvd pin --pin-file "$PINF" --candidate b9750 --fleet --no-record --json
expect_rc "pin --fleet --json" 0
check "--json: the fleet's hold and rule" is "(d['hold'], d['rule'].startswith('regression on pin-c: tg128'), ' on vulkan -4.' in d['rule'])" "('regression', True, True)"
check "--json: per-host outcomes" \
  is "[(h['host'], h['hold'], h['measured'], h['held_the_fleet']) for h in d['hosts']]" \
  "[('pin-a', 'first-night', True, False), ('pin-b', 'first-night', True, False), ('pin-c', 'regression', True, True)]"
check "--json: every host's comparisons (2 fa x 2 depths x pp, tg each), each naming its host" \
  is "(len(d['comparisons']), [h['comparisons'] for h in d['hosts']], sorted({c['host'] for c in d['comparisons']}))" \
  "(24, [8, 8, 8], ['pin-a', 'pin-b', 'pin-c'])"
check "--json: pin-c's regressions are pin-c's" \
  is "sorted({c['host'] for c in d['comparisons'] if not c['no_regression']})" "['pin-c']"
lvd pin --pin-file "$PINF" --candidate b9750 --fleet --host pin-a
expect_rc "--fleet with --host" 2

# pin-c measures the candidate again, now as fast as the others: the fleet
# would promote; its first night, since no earlier decision would have
sed -i 's/^dev.Vulkan0.tg = 672$/dev.Vulkan0.tg = 770/' "$W/pin-c-new/fake-scenario"
LVD_HOST=pin-c capture "$LVD_BIN/lvd" bench --model "$MODEL" --engines pin-c-old,pin-c-new --reps 5 --budget 120s --session pin-c-n3
expect_rc "pin-c's second night" 0
lvd pin --pin-file "$PINF" --candidate b9750 --fleet --json
check "no host holds: the fleet's rule 7 (first night) speaks" \
  is "(d['hold'], d['would_promote'], d['rule'].endswith('3 hosts measured both builds'))" "('first-night', True, True)"
lvd pin --pin-file "$PINF" --candidate b9750 --fleet --no-record --json
check "the same measurements a second time are still one night" is "d['hold']" "first-night"

# ------------------------------------------------------------ select's fallback copy
# box-1 of the fleet store: --record refreshes the copy; a store that cannot
# be opened (a path that fails to open stands in for an unreachable server)
# is read from the copy, with a warning naming both.
export LVD_STORE=$tmp/fleet.db
FB=$tmp/local/fallback.db
mkdir -p "$tmp/local"
LVD_HOST=box-1 capture "$LVD_BIN/lvd" select --model "$MODEL"
expect_rc "box-1 selects from the store" 0
line=$(cat "$tmp/out")
LVD_HOST=box-1 LVD_STORE_FALLBACK=$FB capture "$LVD_BIN/lvd" select --model "$MODEL" --record
expect_rc "select --record with a fallback configured" 0
check "writes the copy" test -s "$FB"
check "holding box-1's verdicts only" test "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT group_concat(DISTINCT host) FROM verdicts").fetchone()[0])' "$FB")" = box-1
check "and no measurements" test "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM runs").fetchone()[0])' "$FB")" = 0
check "and no leftover temporary file" test ! -e "$FB.tmp"
LVD_HOST=box-1 LVD_STORE=$tmp/gone/store.db LVD_STORE_FALLBACK=$FB capture "$LVD_BIN/lvd" select --model "$MODEL"
expect_rc "the store unreachable: select reads the copy" 0
check "the same launch line" test "$(cat "$tmp/out")" = "$line"
check "a warning names the store and the copy" has_err "warning.*$tmp/gone/store.db.*reading the fallback copy $FB"
LVD_HOST=box-1 LVD_STORE=$tmp/gone/store.db capture "$LVD_BIN/lvd" select --model "$MODEL"
expect_rc "without a copy: the store error" 4
LVD_HOST=box-1 LVD_STORE=$tmp/gone/store.db LVD_STORE_FALLBACK=$tmp/gone/fb.db capture "$LVD_BIN/lvd" select --model "$MODEL"
expect_rc "a copy that is missing too" 4
check "names both" has_err "$tmp/gone/store.db.*the fallback copy too: $tmp/gone/fb.db"
LVD_HOST=box-1 LVD_STORE_FALLBACK=/proc/nope/fb.db capture "$LVD_BIN/lvd" select --model "$MODEL" --record
expect_rc "a copy that cannot be written never fails the verdict" 0
check "but is said" has_err "warning: fallback copy not refreshed: /proc/nope"

e2e_finish
