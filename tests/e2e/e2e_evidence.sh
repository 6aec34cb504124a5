#!/usr/bin/env bash
# e2e_evidence.sh: `lvd evidence` end to end on the real H200 captures. The
# CPU, CUDA and Vulkan builds' llama-bench output (the dense model, the MoE
# model's -ncmoe arms, and the Vulkan build that silently ran on the CPU) are
# imported with `lvd store import` into one session, the llama-perplexity
# captures recorded with `lvd check --import`, and the dense model's verdict
# with `lvd select --record --artifact` (no model file). The page and its
# charts are rendered and checked: the verdict is CUDA with flash attention,
# +41.5 % tg over Vulkan's best arm, CPU at 54 t/s, the arm that ignored -ngl
# shown as such with its failed check; SVGs parse as XML; the same store
# gives the same bytes; nothing is written when nothing was measured; and the
# committed example docs/evidence/h200-example.md (+ charts) is exactly what
# this renders (LVD_UPDATE_EXAMPLE=1 rewrites it). Needs LVD_BIN, LVD_FIXTURES,
# LVD_SOURCE (set by ctest).
E2E_FAIL_FAST=1
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FIXTURES LVD_SOURCE LVD_FAKE_ENGINE
F="$LVD_FIXTURES/llama.cpp/gpu-h200"
# The dense model is too large to ship; its sha256 starts with 973978067daa0.
SHA=973978067daa0$(printf 'd%.0s' $(seq 51))
# The MoE model's sha256 was not captured: a placeholder (the page shows it as such).
SHA_MOE=$(printf '0%.0s' $(seq 64))
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
capture "$LVD_BIN/lvd-evidence" --help; grep -q "lvd evidence --out docs/evidence/backend-selection.md" "$tmp/out" ||
  fail "--help has no example"
expect_exit 2 "--nights wants 1 to 3650" ev --nights 0
expect_exit 2 "unexpected argument" ev stray
expect_exit 4 "no store here" ev --out "$tmp/x.md"
[ ! -e "$tmp/x.md" ] || fail "a page was written without a store"

# --- the H200 captures, as lvd store import records them: one session ------------
SESSION=h200-2026-11-30
# imp ARTIFACT FILE ARGS...: one capture into the shared session
imp() { local sha=$1; shift; st import "$@" --artifact "$sha" --host h200 --session "$SESSION" >/dev/null; }
imp "$SHA" "$F/bench-cpu-dense.jsonl" --engine-dir /opt/llama.cpp/b9749-cpu --engine b9749-cpu --build b9749
imp "$SHA" "$F/bench-cuda-dense-ngl99.jsonl" --engine-dir /opt/llama.cpp/b9749-cuda --engine b9749-cuda --build b9749
imp "$SHA" "$F/bench-vulkan-dense-ngl99.jsonl" --engine-dir /opt/llama.cpp/b9749-vulkan --engine b9749-vulkan --build b9749
imp "$SHA" "$F/bench-vulkan-dense-ngl99-hostmem.jsonl" --engine b9749-vulkan --env GGML_VK_PREFER_HOST_MEMORY=1
# the Vulkan build before its loader reached the driver: -ngl 99 ran on the CPU
imp "$SHA" "$F/vulkan-build-no-driver/bench-dense-ngl99.jsonl" --engine-dir /opt/llama.cpp/b9749-vulkan-nodriver \
  --engine b9749-vulkan-nodriver --build b9749
# the MoE model: -ncmoe 0, 4 and 8 on CUDA, the CPU build, the driverless Vulkan build
imp "$SHA_MOE" "$F/bench-cpu-moe.jsonl" --engine b9749-cpu
imp "$SHA_MOE" "$F/bench-cuda-moe-ncmoe.jsonl" --engine b9749-cuda
imp "$SHA_MOE" "$F/vulkan-build-no-driver/bench-moe-ngl99-ncmoe.jsonl" --engine b9749-vulkan-nodriver
st runs --limit 0 --json | python3 -c 'import json,sys; v=json.load(sys.stdin); s={r["session"] for r in v}; assert s=={"'"$SESSION"'"}, s' ||
  fail "the imports do not share one session"

# --- correctness from the captured llama-perplexity runs (dense model) -------------
chk() { "$LVD_BIN/lvd-check" --store "$S" --import --artifact "$SHA" --host h200 "$@"; }
base=(--base-output "$F/ppl-cpu.out" --base-log "$F/ppl-cpu.err")
chk --engine b9749-cpu --output "$F/ppl-cpu.out" --log "$F/ppl-cpu.err" >/dev/null || fail "check: the CPU reference"
chk --engine b9749-cuda --output "$F/ppl-cuda.out" --log "$F/ppl-cuda.err" "${base[@]}" >/dev/null ||
  fail "check: CUDA"
chk --engine b9749-vulkan --output "$F/ppl-vulkan.out" --log "$F/ppl-vulkan.err" "${base[@]}" >/dev/null ||
  fail "check: Vulkan"
rc=0
chk --engine b9749-vulkan-nodriver --output "$F/vulkan-build-no-driver/ppl.out" \
  --log "$F/vulkan-build-no-driver/ppl.err" "${base[@]}" >"$tmp/out" || rc=$?
[ "$rc" -eq 5 ] || fail "the no-driver check exited $rc, expected 5 (a device failed)"
grep -qE "^b9749-vulkan-nodriver +auto +unknown +fail .*GPU flags ignored" "$tmp/out" || fail "no-driver check: $(cat "$tmp/out")"

# --- the verdict, recorded without the model file -----------------------------------
# (the clock pinned to the captures' afternoon: the committed page must not change with the day)
LVD_FAKE_NOW=1796054400 "$LVD_BIN/lvd-select" --store "$S" --record --artifact "$SHA" --host h200 >"$tmp/select" ||
  fail "select --record --artifact"
LAUNCH="/opt/llama.cpp/b9749-cuda/llama-server -m MODEL.gguf -ngl 99 -ub 512 -fa on -ctk f16 -ctv f16 -t 16"
[ "$(head -1 "$tmp/select")" = "$LAUNCH" ] || fail "launch line: $(head -1 "$tmp/select")"
# The verdict's ranking stays open: the CPU arm is eligible but its capture
# measured tg32, not tg128, so it has no samples of the verdict's test; the
# leader by median is kept, and the rule says it is undecided. (Until issue
# 13 the Mann-Whitney floor also kept it open: 2/252 for 5 against 5, above
# 0.01/4; the sequential rule now decides these gaps, see the leader lines.)
# --explain names arms in the page's words, never by the internal arm key
grep -qF '# recorded verdict #1 (undecided: leader, objective tg): undecided: leader: cuda · ngl 99, fa 1, ub 512, ctk f16, ctv f16, t 16 on b9749-cuda, median 995.61 t/s on tg128 over 5 kept samples; 5 ranked arms, state open; the heuristic has nothing to go on' "$tmp/select" ||
  fail "recorded verdict: $(sed -n 2p "$tmp/select")"
grep -qF "excluded unknown · ngl 99, fa 0, ub 512, ctk f16, ctv f16, t 16 on b9749-vulkan-nodriver: gpu_ignored run" "$tmp/select" ||
  fail "the no-driver arms are excluded: $(sed -n 2p "$tmp/select")"
! grep -qF "dev=" "$tmp/select" || fail "an arm key in the explanation: $(grep -F dev= "$tmp/select")"
grep -qxF "# placement unknown: shape not recorded (the store knows this model by its sha256 only; \`lvd store model FILE\` records its GGUF shape)" "$tmp/select" ||
  fail "placement line: $(grep placement "$tmp/select")"
grep -qxF "# MODEL.gguf stands for the model 973978067daa: its path is not in the store" "$tmp/select" || fail "placeholder note"

# nothing measured on another host: an error, and no file
expect_exit 1 "nothing measured on host elsewhere" ev --host elsewhere --out "$tmp/none/p.md"
[ ! -e "$tmp/none" ] || fail "files were written for an empty page"
# a model the store does not know
expect_exit 3 "no artifact" ev --host h200 --model "$(printf 'e%.0s' $(seq 64))" --out "$tmp/y.md"
expect_exit 3 "$tmp/missing.gguf" ev --host h200 --model "$tmp/missing.gguf" --out "$tmp/y.md"

# --- the page ----------------------------------------------------------------------
OUT="$tmp/a/docs/evidence/h200-example.md"
ev --host h200 --title "$TITLE" --out "$OUT" --json >"$tmp/r.json"
python3 - "$tmp/r.json" "$OUT" <<'PY' || fail "--json: $(cat "$tmp/r.json")"
import json, os, sys
v = json.load(open(sys.argv[1]))
d = os.path.dirname(sys.argv[2])
assert v["page"] == sys.argv[2], v["page"]
svgs = [os.path.join(d, "h200-example-" + m + "-" + k + ".svg") for m in ("973978067daa", "000000000000")
        for k in ("pp", "tg", "tg-history", "pp-history")]
assert v["files"] == svgs + [sys.argv[2]], v["files"]
m = v["models"]
assert [x["name"] for x in m] == ["dense-1b-f16.gguf", "moe-8x-f16.gguf"], m
assert m[0]["arms"] == 8 and m[0]["leader"] == m[0]["verdict"] == "cuda · ngl 99, fa 1", m
assert m[1]["arms"] == 6 and m[1]["leader"] == "cuda · ngl 99" and m[1]["verdict"] is None, m
PY
P="$OUT"
# dense: the section up to the MoE model's
D="$tmp/dense.md"
sed -n '/^## dense-1b-f16.gguf/,/^## moe-8x-f16.gguf/p' "$P" >"$D"
# the verdict: CUDA with flash attention, recorded from the imported session
grep -qxF -- "**Verdict:** cuda · ngl 99, fa 1 (rule \`undecided: leader\`, objective tg, decided 2026-11-30 16:00 UTC)." "$D" ||
  fail "verdict line: $(grep Verdict "$D")"
grep -qF -- "- Placement unknown: shape not recorded (the store knows this model by its sha256 only" "$D" || fail "placement"
grep -qxF -- "  $LAUNCH" "$D" || fail "the launch line is not the one lvd select printed"
grep -qxF -- "  MODEL.gguf stands for the model 973978067daa: its path is not in the store (llama-bench called it models/dense-1b-f16.gguf)." "$D" ||
  fail "placeholder note"
# the leader: CUDA with flash attention, 995.6 t/s, +41.5 % over Vulkan's best arm (fa 0, 703.7)
r=$(row "$D" "| 1 ★ | cuda · ngl 99, fa 1 | b9749-cuda (b9749) |")
holds "$r" "| 85662 [83815, 86406] | 995.6 [986.4, 999.4] |" # pp: the cold first repetition dropped
holds "$r" "| +41.5 % [+40.2, +42.4] vs #3 |"
holds "$r" "| ×18.4 [×18.1, ×18.8] |"
holds "$r" "| pp 4 (+1), tg 5 (+0) | pass (PPL ratio 1.0006, KLD not measured) |"
r=$(row "$D" "| 2 | cuda · ngl 99, fa 0 | b9749-cuda (b9749) |")
holds "$r" "| 59870 [59271, 60409] | 811.6 [805.7, 812.3] |"
r=$(row "$D" "| 3 | vulkan · ngl 99, fa 0 | b9749-vulkan (b9749) |")
holds "$r" "| 17445 [17412, 17478] | 703.7 [699.0, 705.8] |" # pp: the three-repetition ramp dropped
holds "$r" "| -29.3 % [-29.8, -28.7] vs #1 |"
holds "$r" "| pp 2 (+3), tg 5 (+0) | pass (PPL ratio 1.0013, KLD not measured) |"
r=$(row "$D" "| 4 | vulkan · ngl 99, fa 1 | b9749-vulkan (b9749) |")
holds "$r" "| 17747 [17643, 17788] | 694.4 [690.4, 737.4] |"
# the CPU build: 54 t/s on its own tests, the reference
r=$(row "$D" "| 5 | cpu | b9749-cpu (b9749) |")
holds "$r" "| 433.9 [429.8, 436.3] (pp128) | 54.22 [53.10, 54.92] (tg32) | reference | reference |"
holds "$r" "| base (CPU reference) |"
# the host-memory knob: 23x slower tg on this card, ranked last
r=$(row "$D" "| 6 | vulkan · ngl 99, fa 1, GGML_VK_PREFER_HOST_MEMORY=1 | b9749-vulkan (b9749) |")
holds "$r" "| 30.73 [30.60, 30.89] |"
holds "$r" "| ×0.031 [×0.031, ×0.031] vs #1 |"
# the build that ignored -ngl (fa 0 and fa 1): shown, never ranked, with why, its check failed
for fa in 0 1; do
  r=$(row "$D" "| GPU ignored | unknown · ngl 99, fa $fa | b9749-vulkan-nodriver (b9749) |")
  holds "$r" "| -2" # tg at CPU speed: 20-25 % below the CPU build's
  holds "$r" "| fail (PPL ratio 1.0000, KLD not measured; GPU flags ignored: the build warned that -ngl is ignored and ran on the CPU, so the device proved nothing) |"
  grep -qF -- "- unknown · ngl 99, fa $fa (b9749-vulkan-nodriver): GPU flags ignored: llama-bench reported backends CPU with n_gpu_layers 99" "$D" ||
    fail "the GPU-ignoring arm fa $fa is not listed with why"
done
grep -qF -- "- Measured leader by tg: cuda · ngl 99, fa 1 (ranking state \`win\`); tg +22.7 % [+21.5, +23.6] against the arm ranked second (cuda · ngl 99, fa 0); tg +41.5 % [+40.2, +42.4] against the best other backend (vulkan · ngl 99, fa 0)." "$D" ||
  fail "leader line"
grep -qF -- "Every arm ran with: ub 512, ctk f16, ctv f16, t 16." "$D" || fail "common parameters"
grep -qF -- "| [dense-1b-f16.gguf (973978067daa)](#dense-1b-f16gguf-973978067daa) | cuda · ngl 99, fa 1 | \`undecided: leader\` | cuda · ngl 99, fa 1 | +41.5 % [+40.2, +42.4] |" "$P" ||
  fail "summary row"
# the MoE model: -ncmoe 4 halves tg, 8 cuts it to 30 %; no check, no verdict
M="$tmp/moe.md"
sed -n '/^## moe-8x-f16.gguf/,/^## Pin/p' "$P" >"$M"
r=$(row "$M" "| 1 | cuda · ngl 99 | b9749-cuda (b9749) |")
holds "$r" "| 1128.5 [1113.3, 1261.8] |"
holds "$r" "| not checked |"
row "$M" "| 2 | cuda · ngl 99, ncmoe 4 | b9749-cuda (b9749) |" | grep -qF "| 572.4 [553.1, 598.9] |" || fail "ncmoe 4"
row "$M" "| 3 | cuda · ngl 99, ncmoe 8 | b9749-cuda (b9749) |" | grep -qF "| 331.5 [326.4, 364.5] |" || fail "ncmoe 8"
row "$M" "| 4 | cpu | b9749-cpu (b9749) |" | grep -qF "| 242.7 [240.4, 251.1] (tg32) |" || fail "MoE on the CPU"
row "$M" "| GPU ignored | unknown · ngl 99, ncmoe 4 | b9749-vulkan-nodriver (b9749) |" >/dev/null
grep -qF -- "- Measured leader by tg: cuda · ngl 99 (ranking state \`win\`); tg +97.1 % [+85.9, +128] against the arm ranked second (cuda · ngl 99, ncmoe 4)" "$M" ||
  fail "MoE leader line"
grep -qF -- "**Verdict:** none recorded for this model on \`h200\`" "$M" || fail "MoE verdict line"
grep -qF -- "- Placement unknown for the measured leader (no verdict: \`lvd select\` decides): shape not recorded" "$M" ||
  fail "MoE placement"
grep -qF -- "No pin decision recorded in this store" "$P" || fail "pin section"
for m in 973978067daa 000000000000; do
  for k in pp tg tg-history pp-history; do
    grep -qF -- "](h200-example-$m-$k.svg)" "$P" || fail "no link to the $m $k chart"
  done
done

# --- the charts: XML that parses, one bar per measured arm ---------------------------
python3 - "$(dirname "$OUT")" <<'PY' || fail "charts"
import sys, xml.etree.ElementTree as ET
d = sys.argv[1]
ns = "{http://www.w3.org/2000/svg}"
for model, arms, points in (("973978067daa", 8, 6), ("000000000000", 6, 4)):
    for kind in ("pp", "tg"):
        root = ET.parse(f"{d}/h200-example-{model}-{kind}.svg").getroot()
        assert root.tag == ns + "svg", root.tag
        rects = root.findall(ns + "rect")
        assert len(rects) == arms + 1, (model, kind, len(rects))          # + the background
        texts = [t.text for t in root.iter(ns + "text")]
        assert sum("GPU flags ignored (CPU speed)" in (t or "") for t in texts) == 2, texts
        assert any(t and t.startswith("995.6") for t in texts) or kind == "pp" or model != "973978067daa", texts
        widths = {float(r.get("width")) for r in rects[1:]}
        assert all(w >= 0 for w in widths), widths
    root = ET.parse(f"{d}/h200-example-{model}-tg-history.svg").getroot()
    assert len(root.findall(ns + "circle")) == points, "one point per arm that ran as asked, on 2026-11-30"
    assert "2026-11-30" in [t.text for t in root.iter(ns + "text")]
PY

# --- determinism: the same store gives the same bytes, wherever the page goes ----------
FILES=(h200-example.md h200-example-{973978067daa,000000000000}-{pp,tg,tg-history,pp-history}.svg)
ev --host h200 --title "$TITLE" --out "$tmp/b/h200-example.md" >/dev/null
for f in "${FILES[@]}"; do
  cmp -s "$tmp/a/docs/evidence/$f" "$tmp/b/$f" || fail "$f differs between two renders of one store"
done
ls "$tmp/b" | grep -q lvd-new && fail "a staged file was left behind"

# --- the committed example is what this renders ---------------------------------------
if [ "${LVD_UPDATE_EXAMPLE:-0}" = 1 ]; then
  mkdir -p "$EXAMPLE"
  rm -f "$EXAMPLE"/h200-example*
  cp "$tmp/b/"h200-example* "$EXAMPLE/"
fi
for f in "${FILES[@]}"; do
  cmp -s "$EXAMPLE/$f" "$tmp/b/$f" ||
    fail "docs/evidence/$f is not what lvd evidence renders now (LVD_UPDATE_EXAMPLE=1 ctest -R e2e_evidence rewrites it)"
done
[ "$(ls "$EXAMPLE" | grep -c '^h200-example')" -eq "${#FILES[@]}" ] || fail "docs/evidence holds stale h200-example files"

# --- with a recorded verdict: the store a nightly builds, on fake engines ---------------
# (a Pascal box: Vulkan decodes 40 % faster than CUDA on the same GTX 1060)
world engines
REGISTER_OK=0
engine cpu "noise = 0.005" "cpu.tg = 50" "cpu.pp = 400"
engine cuda "noise = 0.005" "device = CUDA0|NVIDIA GeForce GTX 1060 6GB|6144|5800|6.1" "dev.CUDA0.tg = 500" "dev.CUDA0.pp = 3000"
# (its KLD as small as a correct real device's: the real Vulkan build on lavapipe measures 0.000005)
engine vk "noise = 0.005" "device = Vulkan0|NVIDIA GeForce GTX 1060 6GB|6144|5900" "dev.Vulkan0.tg = 700" "dev.Vulkan0.pp = 2500" \
  "dev.Vulkan0.kld = 0.000005"
MODEL="$tmp/tiny-llama-q4_0.gguf"
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$MODEL"
"$LVD_BIN/lvd-probe" >/dev/null || fail "probe"
"$LVD_BIN/lvd-check" --model "$MODEL" >/dev/null || fail "check"
"$LVD_BIN/lvd-bench" --model "$MODEL" --fa on --reps 5 --budget 120s --session night-1 >/dev/null || fail "bench"
line=$("$LVD_BIN/lvd-select" --model "$MODEL" --record) || fail "select --record"
"$LVD_BIN/lvd-evidence" --out "$tmp/night/page.md" >/dev/null || fail "evidence on the nightly store"
N="$tmp/night/page.md"
r=$(row "$N" "| 1 ★ | vulkan · Vulkan0, ngl 99, fa 1 | vk (b9749) |")
holds "$r" "| pass (PPL ratio "
holds "$r" ", KLD 0.000005, " # six decimals, as lvd check prints it: four would read 0.0000, "no difference"
holds "$r" " vs #2 |"
r=$(row "$N" "| 2 | cuda · CUDA0, ngl 99, fa 1 | cuda (b9749) |")
holds "$r" ", KLD 0.0001, " # the fake's default: four decimals as before
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
assert [f.split("-194f08028caf-")[-1] for f in files] == ["pp-depth.svg", "pp-history.svg", "pp.svg",
                                                           "tg-depth.svg", "tg-history.svg", "tg.svg"], files
for f in files:
    ET.parse(f)
# tg against depth: the leading arms, one x label per depth lvd bench measured (0 and half of -c)
d = ET.parse([f for f in files if f.endswith("-tg-depth.svg")][0]).getroot()
ns = "{http://www.w3.org/2000/svg}"
labels = [t.text for t in d.iter(ns + "text") if t.text and t.text.startswith("d")]
assert labels[:2] == ["d0", "d2048"], labels
assert len(list(d.iter(ns + "polyline"))) == 3, "one line per leading arm"
PY
grep -qF -- "-194f08028caf-tg-depth.svg)" "$N" || fail "the page links the depth chart"

# --- every chart drawn (rsvg-convert): no text over another or cut by the edge ---
out=$(python3 "$LVD_SOURCE/tests/support/svg-text-boxes.py" "$(dirname "$OUT")"/*.svg "$tmp"/night/page-*.svg) ||
  fail "charts with overlapping text: $out"
e2e_finish
