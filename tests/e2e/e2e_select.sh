#!/usr/bin/env bash
# e2e_select.sh: `lvd select` end to end on a store built the way the nightly
# builds it: fake engines (copies of tests/fake-engine) registered with
# `lvd fetch --register`, probed, checked (`lvd check`), benched (`lvd bench`),
# then `lvd select --model M --record`. The launch line it prints is parsed
# back from --json and run (argv, no shell) as the fake llama-server with
# FAKE_SERVER_CHECK=1, which validates every flag and loads the model; a model
# path with spaces, quotes, $ and a newline survives the JSON and the shell
# line. Also: select spawns nothing, a changed binary makes the verdict stale,
# a failed check retires the winner, profiles win and fail with file:line,
# --record --artifact (no model file) prints the same line, exit codes. Not a test of the rules in detail (test_select).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE

# One store; every engine must register and probe cleanly.
world engines
REGISTER_OK=0

# calls: how many times any fake engine was invoked
calls() { cat "$W"/*/calls.log 2>/dev/null | wc -l; }

# The model lives under a hostile directory name; the file name has a space.
HOSTILE="$tmp/we ird 'dir\" \$HOME \`x\`
nl"
mkdir -p "$HOSTILE"
MODEL="$HOSTILE/tiny llama.gguf"
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$MODEL"
PLAIN=$tmp/tiny-llama-q4_0.gguf
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$PLAIN"

# A Pascal box: CUDA and Vulkan builds see the same GTX 1060; Vulkan decodes faster.
engine cpu "noise = 0.005" "cpu.tg = 50" "cpu.pp = 400"
engine cuda "noise = 0.005" "device = CUDA0|NVIDIA GeForce GTX 1060 6GB|6144|5800|6.1" "dev.CUDA0.tg = 500" "dev.CUDA0.pp = 3000"
engine vk "noise = 0.005" "device = Vulkan0|NVIDIA GeForce GTX 1060 6GB|6144|5900" "dev.Vulkan0.tg = 700" "dev.Vulkan0.pp = 2500"

lvd probe --json
expect_rc "probe" 0
lvd check --model "$PLAIN" --json
expect_rc "check: every device passes" 0
lvd bench --model "$PLAIN" --fa on --reps 5 --budget 120s --session e2e-select --json
expect_rc "bench decides" 0

# ------------------------------------------------------------ record, then select
lvd select --model "$PLAIN" --record --json
expect_rc "select --record" 0
check "the verdict is recorded: a win" is "d['recorded']['rule']" "win"
check "for Vulkan (it decodes 40 % faster)" is "d['engine']" "vk"
check "tg is the default objective" is "d['recorded']['objective']" "tg"
check "its statistics name the session" is "d['recorded']['stats']['session']" "e2e-select"
check "the CPU arm was measured too" is "len(d['recorded']['stats']['arms'])" "3"

before=$(calls)
lvd select --model "$PLAIN" --json
expect_rc "select from the verdict" 0
check "no engine was run by select" test "$(calls)" -eq "$before"
check "rule 2 decided" is "d['rule']" "verdict"
check "on the Vulkan device, selector verbatim" is "d['device']" "Vulkan0"
check "fully resident" is "d['placement']['rung']" "fully resident"
check "argv[0] is the registered engine's llama-server" is "d['argv'][0]" "$W/vk/llama-server"
check "with the measured flash attention" is "d['argv'][d['argv'].index('-fa') + 1]" "on"

# run_printed: runs the argv and env of the JSON in $tmp/out as a process (no shell)
run_printed() {
  python3 - "$tmp/out" <<'EOF'
import json, os, subprocess, sys
d = json.load(open(sys.argv[1]))
env = dict(os.environ, FAKE_SERVER_CHECK="1")
for kv in d["env"]:
    k, v = kv.split("=", 1)
    env[k] = v
p = subprocess.run(d["argv"], env=env, capture_output=True, text=True)
sys.stderr.write(p.stderr[-2000:] if p.returncode else "")
sys.exit(p.returncode)
EOF
}
check "the fake llama-server accepts the launch line" run_printed
check "and loaded the model" grep -q "llama-server -m $PLAIN --device Vulkan0" "$W/vk/calls.log"

lvd select --model "$PLAIN"
expect_rc "the plain line" 0
check "one line on stdout" test "$(wc -l < "$tmp/out")" -eq 1
check "it is the launch line" has "^$W/vk/llama-server -m $PLAIN --device Vulkan0 -ngl 3 -fa on -c 4096$"
plain_line=$(head -1 "$tmp/out")

# ------------------------------------------------------------ --record --artifact: no model file needed
SHA=$(sha256sum "$PLAIN" | cut -d' ' -f1)
lvd select --record --artifact "$SHA"
expect_rc "select --record --artifact" 0
check "the verdict's launch line is the one select prints" test "$(head -1 "$tmp/out")" = "$plain_line"
check "then the recorded verdict, as a comment" has "^# recorded verdict #[0-9]+ \(win, objective tg\): win: vulkan · Vulkan0, [^;]* on vk, "
check "and the placement" has "^# placement: reduced ubatch|^# placement: .* on Vulkan0 \(5900 MiB free, context 4096\)"
lvd select --record --artifact "$SHA" --json
check "--json: the verdict, argv and the model's last known path" \
  is "(d['recorded']['rule'], d['engine'], d['argv'][2], d['model_placeholder'])" "('win', 'vk', '$PLAIN', False)"
lvd select --artifact "$SHA"
expect_rc "--artifact without --record" 2
lvd select --record --artifact "$SHA" --model "$PLAIN"
expect_rc "--artifact with --model" 2
lvd select --record --artifact "$SHA" --profile "$tmp/x.profile"
expect_rc "--artifact with --profile" 2
lvd select --record --artifact "$(printf 'e%.0s' $(seq 64))"
expect_rc "an artifact the store does not know" 3
lvd select --record --artifact "$SHA" --host elsewhere
expect_rc "no bench run on that host" 1

lvd select --model "$PLAIN" --explain
check "--explain says which rule decided" has "^# decided by rule: verdict$"
check "and why the rule above did not" has "^# rule 1 \(profile\): no profile$"
check "and where the model goes" has "^# placement: fully resident on Vulkan0"

# ------------------------------------------------------------ hostile model path
lvd select --model "$MODEL" --json
expect_rc "a hostile path: identified (hashed once) and selected" 0
check "the same artifact's verdict applies" is "d['rule']" "verdict"
check "argv carries the path byte for byte" python3 -c "
import json,sys; d=json.load(open('$tmp/out')); sys.exit(d['argv'][2] != sys.argv[1])" "$MODEL"
check "the fake llama-server loads it" run_printed
cp "$tmp/out" "$tmp/hostile.json"
lvd select --model "$MODEL"
check "one command: its only line breaks are the path's own, inside quotes" python3 -c "
import json,sys
d=json.load(open('$tmp/hostile.json')); out=open('$tmp/out').read()
sys.exit(not (out.endswith('\\n') and out[:-1].count('\\n') == sum(w.count('\\n') for w in d['argv']) == 1))"
check "shlex reads the shell line back to argv" python3 -c "
import json,shlex,sys
d=json.load(open('$tmp/hostile.json')); line=open('$tmp/out').read().rstrip('\n')
sys.exit(shlex.split(line) != d['env'] + d['argv'])"
check "sh -c reads it back to the same words" python3 -c "
import json,subprocess,sys
d=json.load(open('$tmp/hostile.json')); line=open('$tmp/out').read().rstrip('\n')
out=subprocess.run(['sh','-c',\"printf '%s\\\\0' \" + line], capture_output=True).stdout
sys.exit(out.split(b'\\0')[:-1] != [w.encode() for w in d['env'] + d['argv']])"

# ------------------------------------------------------------ stale and failed
touch -d '2001-01-01 00:00:00' "$W/vk/llama-server"
lvd select --model "$PLAIN" --json
expect_rc "a changed binary" 0
check "makes the verdict stale: the heuristic decides" is "d['rule']" "heuristic"
check "and the explanation names the engine and file" is "any('is stale: engine vk: llama-server changed since the verdict (mtime)' in e for e in d['explain'])" True
check "the engine's probe no longer describes its files either" is "any('llama-server changed since the last probe (mtime) (run lvd probe)' in e for e in d['explain'])" True
lvd probe --engine vk
lvd select --model "$PLAIN" --record --json
check "a new verdict fingerprints the binary as it is" is "d['rule']" "verdict"

# the Vulkan device stops reproducing the CPU's result
printf '%s\n' "dev.Vulkan0.kld = 0.4" "dev.Vulkan0.ppl_ratio = 1.3" >> "$W/vk/fake-scenario"
lvd check --model "$PLAIN" --engines cpu,vk
expect_rc "check: the Vulkan device fails" 5
lvd select --model "$PLAIN" --json
check "the failed winner's verdict is not used" is "d['rule']" "heuristic"
check "the heuristic leaves the device out too: CUDA" is "d['device']" "CUDA0"
check "saying why" is "any('whose newest correctness check says fail' in e for e in d['explain'])" True
lvd select --model "$PLAIN" --record --json
check "a new verdict excludes it" is "d['recorded']['engine_id'] is not None and d['engine']" "cuda"
check "naming the failed check" is "'check fail on Vulkan0' in d['recorded']['explain']" True

# ------------------------------------------------------------ profiles
printf '%s\n' "# operator" "backend = cpu" "threads = 3" "ctx = 1024" > "$tmp/cpu.profile"
lvd select --model "$PLAIN" --profile "$tmp/cpu.profile" --json
expect_rc "a CPU profile" 0
check "wins outright" is "d['rule']" "profile"
check "the CPU engine, no GPU flag" is "d['engine'] == 'cpu' and '-ngl' not in d['argv'] and '--device' not in d['argv']" True
check "the profile's flags" is "d['argv'][d['argv'].index('-t') + 1] + ' ' + d['argv'][d['argv'].index('-c') + 1]" "3 1024"
check "the fake CPU llama-server accepts it" run_printed
printf '%s\n' "engine = vk" "device = Vulkan1" > "$tmp/bad.profile"
lvd select --model "$PLAIN" --profile "$tmp/bad.profile"
expect_rc "a selector the probe does not show" 3
check "is an error naming file:line" has_err "bad.profile:2: engine vk's probe shows no device Vulkan1 \(it shows: Vulkan0\)"
printf '%s\n' "backend = cpu" "ctk = q8_0" "ctv = q8_0" "fa = off" > "$tmp/kv.profile"
lvd select --model "$PLAIN" --profile "$tmp/kv.profile"
expect_rc "a quantized V cache with fa off" 3
check "is refused in one line, as llama.cpp refuses it" has_err "^lvd-select: error: -ctv q8_0 with -fa off: llama.cpp needs flash attention for a quantized V cache \(use -fa on, or -ctv f16\)$"
printf '%s\n' "speed = fast" > "$tmp/typo.profile"
lvd select --model "$PLAIN" --profile "$tmp/typo.profile"
expect_rc "an unknown key" 3
check "names file:line" has_err "typo.profile:1: unknown key 'speed'"

# ------------------------------------------------------------ placement and exit codes
# tiny-llama whole: 1.1 MiB of weights, 1 MiB of KV at 4096, the 512 MiB
# reserve over its predicted 63 MiB compute buffer: 514 MiB; at 514 free the
# output head (and its 1 MiB) stays on the host
lvd select --model "$PLAIN" --free-mib 514 --json
check "--free-mib moves the rung" is "d['placement']['rung']" "partial offload"
lvd select --model "$tmp/missing.gguf"
expect_rc "a missing model" 3
lvd select --model "$PLAIN" --store "$tmp/none.db"
expect_rc "no store" 4
lvd select
expect_rc "no --model" 2
lvd select --model "$PLAIN" --objective fast
expect_rc "a bad objective" 2
lvd select --help
expect_rc "--help" 0
check "with an example" has "^examples:"

e2e_finish
