#!/usr/bin/env bash
# e2e_fleet.sh: one store that several hosts write (issue 18), each host's
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

# reg DIR BUILD: registers DIR as BUILD under its basename
reg() { "$LVD_BIN/lvd" fetch --register "$1" --build "$2" --name "$(basename "$1")" >/dev/null || fail "register $1"; }
# box HOST CARD CUDA_TG VK_TG: a host with a CUDA and a Vulkan build of b9749 seeing CARD
box() {
  local h=$1 card=$2
  fake_engine "$W/$h-cuda" "noise = 0.003" "device = CUDA0|$card|6144|5800|6.1" "dev.CUDA0.tg = $3" "dev.CUDA0.pp = 3000"
  fake_engine "$W/$h-vk" "noise = 0.003" "device = Vulkan0|$card|6144|5900" "dev.Vulkan0.tg = $4" "dev.Vulkan0.pp = 2500"
  reg "$W/$h-cuda" b9749
  reg "$W/$h-vk" b9749
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

lvd evidence --fleet
expect_rc "evidence --fleet" 0
check "four hosts" has "^4 hosts write this store"
check "box-1's GPU and its winner: Vulkan" has "^\| box-1 \| $GTX \| tiny-llama-q4_0.gguf: box-1-vk \(vulkan, Vulkan0\) \|$"
check "box-4's winner: CUDA on the H200" has "^\| box-4 \| NVIDIA H200 \| tiny-llama-q4_0.gguf: box-4-cuda \(cuda, CUDA0\) \|$"
check "the tg map states its method" has "^### Backend map: tg$"
check "GTX 1060 row: Vulkan +40 % median over 3 hosts, the range with its coverage" \
  has "^\| $GTX \| -2[0-9]\.[0-9] % \[-3[0-9]\.[0-9] %, -2[0-9]\.[0-9] %\] range, 75\.0 % coverage n = 3 \| \+(39|40)\.[0-9] % \[\+(29|30)\.[0-9] %, \+(49|50)\.[0-9] %\] range, 75\.0 % coverage n = 3 \|$"
check "H200 row: one host, no interval" has "^\| NVIDIA H200 \| \+[0-9.]+ % n = 1 \| -3[0-9]\.[0-9] % n = 1 \|$"
check "a pp map too" has "^### Backend map: pp$"

lvd evidence --fleet --json
expect_rc "evidence --fleet --json" 0
check "--json: hosts" is "[h['host'] for h in d['hosts']]" "['box-1', 'box-2', 'box-3', 'box-4']"
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

e2e_finish
