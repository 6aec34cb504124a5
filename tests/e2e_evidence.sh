#!/usr/bin/env bash
# e2e_evidence.sh: `lvd evidence` end to end on the real H200 captures. The
# CPU, CUDA and Vulkan builds' llama-bench output for the dense model (and the
# Vulkan build that silently ran on the CPU) are imported with `lvd store
# import`; the page and its charts are rendered and checked: CUDA with flash
# attention leads, +41.5 % tg over Vulkan's best arm, CPU at 54 t/s, the arm
# that ignored -ngl shown as such; SVGs parse as XML; the same store gives the
# same bytes; nothing is written when nothing was measured; and the committed
# example docs/evidence/h200-example.md (+ charts) is exactly what this
# renders (LVD_UPDATE_EXAMPLE=1 rewrites it). Needs LVD_BIN, LVD_SHARED,
# LVD_SOURCE (set by ctest).
set -euo pipefail
E2E_FAIL_FAST=1
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_SHARED LVD_SOURCE LVD_FAKE_ENGINE
F="$LVD_SHARED/fixtures/llama.cpp/gpu-h200"
# The dense model is too large to ship; its sha256 starts with 973978067daa0.
SHA=973978067daa0$(printf 'd%.0s' $(seq 51))
TITLE="Backend selection evidence: H200 example"
EXAMPLE="$LVD_SOURCE/docs/evidence"
S="$tmp/store.db"
unset LVD_STORE LVD_HOST

st() { "$LVD_BIN/lvd-store" --store "$S" "$@"; }
ev() { "$LVD_BIN/lvd-evidence" --store "$S" "$@"; }
# row FILE PREFIX: the table line of FILE starting with PREFIX (exactly one).
row() {
  local n
  n=$(grep -cF -- "$2" "$1" || true)
  [ "$n" -eq 1 ] || fail "$1: $n lines start with '$2'"
  grep -F -- "$2" "$1"
}
# holds TEXT NEEDLE: TEXT holds NEEDLE
holds() { grep -qF -- "$2" <<<"$1" || fail "'$2' not in: $1"; }

# --- usage and refusals before anything exists ---------------------------------
"$LVD_BIN/lvd-evidence" --help | grep -q "lvd evidence --out docs/evidence/backend-selection.md" ||
  fail "--help has no example"
expect_exit 2 "--nights wants 1 to 3650" ev --nights 0
expect_exit 2 "unexpected argument" ev stray
expect_exit 4 "no store here" ev --out "$tmp/x.md"
[ ! -e "$tmp/x.md" ] || fail "a page was written without a store"

# --- the H200 captures, as lvd store import records them ------------------------
imp() { st import "$@" --artifact "$SHA" --host h200 >/dev/null; }
imp "$F/bench-cpu-dense.jsonl" --engine-dir /opt/llama.cpp/b9749-cpu --engine b9749-cpu --build b9749
imp "$F/bench-cuda-dense-ngl99.jsonl" --engine-dir /opt/llama.cpp/b9749-cuda --engine b9749-cuda --build b9749
imp "$F/bench-vulkan-dense-ngl99.jsonl" --engine-dir /opt/llama.cpp/b9749-vulkan --engine b9749-vulkan --build b9749
imp "$F/bench-vulkan-dense-ngl99-hostmem.jsonl" --engine b9749-vulkan --env GGML_VK_PREFER_HOST_MEMORY=1
# the Vulkan build before its loader reached the driver: -ngl 99 ran on the CPU
imp "$F/vulkan-build-no-driver/bench-dense-ngl99.jsonl" --engine-dir /opt/llama.cpp/b9749-vulkan-nodriver \
  --engine b9749-vulkan-nodriver --build b9749

# nothing measured on another host: an error, and no file
expect_exit 1 "nothing measured on host elsewhere" ev --host elsewhere --out "$tmp/none/p.md"
[ ! -e "$tmp/none" ] || fail "files were written for an empty page"
# a model the store does not know
expect_exit 3 "no artifact" ev --host h200 --model "$(printf 'e%.0s' $(seq 64))" --out "$tmp/y.md"
expect_exit 3 "$tmp/missing.gguf" ev --host h200 --model "$tmp/missing.gguf" --out "$tmp/y.md"

# --- the page ----------------------------------------------------------------------
OUT="$tmp/a/docs/evidence/h200-example.md"
ev --host h200 --title "$TITLE" --model 973978067daa0 --out "$OUT" --json >"$tmp/r.json"
python3 - "$tmp/r.json" "$OUT" <<'PY' || fail "--json: $(cat "$tmp/r.json")"
import json, os, sys
v = json.load(open(sys.argv[1]))
d = os.path.dirname(sys.argv[2])
assert v["page"] == sys.argv[2], v["page"]
assert v["files"] == [os.path.join(d, "h200-example-973978067daa-" + k + ".svg") for k in ("pp", "tg", "tg-history")] + [sys.argv[2]], v["files"]
m = v["models"]
assert len(m) == 1 and m[0]["name"] == "dense-1b-f16.gguf" and m[0]["arms"] == 8, m
assert m[0]["leader"] == "cuda · ngl 99, fa 1" and m[0]["verdict"] is None, m
PY
P="$OUT"
# the leader: CUDA with flash attention, 995.6 t/s, +41.5 % over Vulkan's best arm (fa 0, 703.7)
r=$(row "$P" "| 1 | cuda · ngl 99, fa 1 | b9749-cuda (b9749) |")
holds "$r" "| 995.6 [986.4, 999.4] |"
holds "$r" "| +41.5 % [+40.2, +42.4] vs #3 |"
holds "$r" "| +1736 % (×18.4) [+1713, +1778] |"
holds "$r" "| pp 5 (+0), tg 5 (+0) | not checked |"
r=$(row "$P" "| 2 | cuda · ngl 99, fa 0 | b9749-cuda (b9749) |")
holds "$r" "| 811.6 [805.7, 812.3] |"
r=$(row "$P" "| 3 | vulkan · ngl 99, fa 0 | b9749-vulkan (b9749) |")
holds "$r" "| 703.7 [699.0, 705.8] |"
holds "$r" "| -29.3 % [-29.8, -28.7] vs #1 |"
r=$(row "$P" "| 4 | vulkan · ngl 99, fa 1 | b9749-vulkan (b9749) |")
holds "$r" "| 17747 [17643, 17788] | 694.4 [690.4, 737.4] |"
# the CPU build: 54 t/s on its own tests, the reference
r=$(row "$P" "| 5 | cpu | b9749-cpu (b9749) |")
holds "$r" "| 433.9 [429.8, 436.3] (pp128) | 54.22 [53.10, 54.92] (tg32) | reference | reference |"
# the host-memory knob: 23x slower tg on this card, ranked last
r=$(row "$P" "| 6 | vulkan · ngl 99, fa 1, GGML_VK_PREFER_HOST_MEMORY=1 | b9749-vulkan (b9749) |")
holds "$r" "| 30.73 [30.60, 30.89] |"
holds "$r" "| -96.9 % [-96.9, -96.9] vs #1 |"
# the build that ignored -ngl (fa 0 and fa 1): shown, never ranked, with why
for fa in 0 1; do
  r=$(row "$P" "| GPU ignored | unknown · ngl 99, fa $fa | b9749-vulkan-nodriver (b9749) |")
  holds "$r" "| -2" # tg at CPU speed: 20-25 % below the CPU build's
  grep -qF -- "- unknown · ngl 99, fa $fa (b9749-vulkan-nodriver): GPU flags ignored: llama-bench reported backends CPU with n_gpu_layers 99" "$P" ||
    fail "the GPU-ignoring arm fa $fa is not listed with why"
done
grep -qF -- "- Measured leader by tg: cuda · ngl 99, fa 1 (ranking state \`open\`); tg +22.7 % [+21.5, +23.6] against the arm ranked second (cuda · ngl 99, fa 0); tg +41.5 % [+40.2, +42.4] against the best other backend (vulkan · ngl 99, fa 0)." "$P" ||
  fail "leader line"
grep -qF -- "  /opt/llama.cpp/b9749-cuda/llama-server -m models/dense-1b-f16.gguf -ngl 99 -ub 512 -fa on -ctk f16 -ctv f16 -t 16" "$P" ||
  fail "launch line of the leader"
grep -qF -- "**Verdict:** none recorded for this model on \`h200\`" "$P" || fail "verdict line"
grep -qF -- "Every arm ran with: ub 512, ctk f16, ctv f16, t 16." "$P" || fail "common parameters"
grep -qF -- "No pin decision recorded in this store" "$P" || fail "pin section"
grep -qF -- "| [dense-1b-f16.gguf (973978067daa)](#dense-1b-f16gguf-973978067daa) | none recorded | – | cuda · ngl 99, fa 1 | +41.5 % [+40.2, +42.4] |" "$P" ||
  fail "summary row"
for k in pp tg tg-history; do
  grep -qF -- "](h200-example-973978067daa-$k.svg)" "$P" || fail "no link to the $k chart"
done

# --- the charts: XML that parses, one bar per measured arm ---------------------------
python3 - "$(dirname "$OUT")" <<'PY' || fail "charts"
import sys, xml.etree.ElementTree as ET
d = sys.argv[1]
ns = "{http://www.w3.org/2000/svg}"
for kind, bars in (("pp", 8), ("tg", 8)):
    root = ET.parse(f"{d}/h200-example-973978067daa-{kind}.svg").getroot()
    assert root.tag == ns + "svg", root.tag
    rects = root.findall(ns + "rect")
    assert len(rects) == bars + 1, (kind, len(rects))          # + the background
    texts = [t.text for t in root.iter(ns + "text")]
    assert sum("GPU flags ignored (CPU speed)" in (t or "") for t in texts) == 2, texts
    assert any(t and t.startswith("995.6") for t in texts) or kind == "pp", texts
    widths = {float(r.get("width")) for r in rects[1:]}
    assert all(w >= 0 for w in widths), widths
root = ET.parse(f"{d}/h200-example-973978067daa-tg-history.svg").getroot()
assert len(root.findall(ns + "circle")) == 6, "one point per arm that ran as asked, on 2026-11-30"
assert "2026-11-30" in [t.text for t in root.iter(ns + "text")]
PY

# --- determinism: the same store gives the same bytes, wherever the page goes ----------
ev --host h200 --title "$TITLE" --model 973978067daa0 --out "$tmp/b/h200-example.md" >/dev/null
for f in h200-example.md h200-example-973978067daa-{pp,tg,tg-history}.svg; do
  cmp -s "$tmp/a/docs/evidence/$f" "$tmp/b/$f" || fail "$f differs between two renders of one store"
done
ls "$tmp/b" | grep -q lvd-new && fail "a staged file was left behind"

# --- the committed example is what this renders ---------------------------------------
if [ "${LVD_UPDATE_EXAMPLE:-0}" = 1 ]; then
  mkdir -p "$EXAMPLE"
  cp "$tmp/b/"h200-example* "$EXAMPLE/"
fi
for f in h200-example.md h200-example-973978067daa-{pp,tg,tg-history}.svg; do
  cmp -s "$EXAMPLE/$f" "$tmp/b/$f" ||
    fail "docs/evidence/$f is not what lvd evidence renders now (LVD_UPDATE_EXAMPLE=1 ctest -R e2e_evidence rewrites it)"
done

# --- with a recorded verdict: the store a nightly builds, on fake engines ---------------
# (a Pascal box: Vulkan decodes 40 % faster than CUDA on the same GTX 1060)
world engines
REGISTER_OK=0
engine cpu "noise = 0.005" "cpu.tg = 50" "cpu.pp = 400"
engine cuda "noise = 0.005" "device = CUDA0|NVIDIA GeForce GTX 1060 6GB|6144|5800|6.1" "dev.CUDA0.tg = 500" "dev.CUDA0.pp = 3000"
engine vk "noise = 0.005" "device = Vulkan0|NVIDIA GeForce GTX 1060 6GB|6144|5900" "dev.Vulkan0.tg = 700" "dev.Vulkan0.pp = 2500"
MODEL="$tmp/tiny-llama-q4_0.gguf"
cp "$LVD_SHARED/models/tiny-llama-q4_0.gguf" "$MODEL"
"$LVD_BIN/lvd-probe" >/dev/null || fail "probe"
"$LVD_BIN/lvd-check" --model "$MODEL" >/dev/null || fail "check"
"$LVD_BIN/lvd-bench" --model "$MODEL" --fa on --reps 5 --budget 120s --session night-1 >/dev/null || fail "bench"
line=$("$LVD_BIN/lvd-select" --model "$MODEL" --record) || fail "select --record"
"$LVD_BIN/lvd-evidence" --out "$tmp/night/page.md" >/dev/null || fail "evidence on the nightly store"
N="$tmp/night/page.md"
r=$(row "$N" "| 1 ★ | vulkan · Vulkan0, ngl 99, fa 1 | vk (b9749) |")
holds "$r" "| pass (PPL ratio "
holds "$r" " vs #2 |"
row "$N" "| 2 | cuda · CUDA0, ngl 99, fa 1 | cuda (b9749) |" >/dev/null
r=$(row "$N" "| 3 | cpu | cpu (b9749) |")
holds "$r" "| reference | reference |"
holds "$r" "| base (CPU reference) |"
grep -qE -- '^\*\*Verdict:\*\* vulkan · Vulkan0, ngl 99, fa 1 \(rule `win`, objective tg, decided [0-9-]+ [0-9:]+ UTC\)\.$' "$N" ||
  fail "verdict line: $(grep Verdict "$N")"
grep -qF -- "- Placement: fully resident on Vulkan0 (5900 MiB free, context 4096): " "$N" || fail "placement"
# the launch line is the one lvd select printed
grep -qxF -- "  $line" "$N" || fail "launch line: lvd select printed '$line'"
python3 - "$tmp/night" <<'PY' || fail "nightly charts"
import glob, sys, xml.etree.ElementTree as ET
files = sorted(glob.glob(sys.argv[1] + "/page-*.svg"))
assert [f.split("-194f08028caf-")[-1] for f in files] == ["pp.svg", "tg-history.svg", "tg.svg"], files
for f in files:
    ET.parse(f)
PY
e2e_finish
