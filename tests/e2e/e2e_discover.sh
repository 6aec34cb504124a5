#!/usr/bin/env bash
# e2e_discover.sh: `lvd probe --discover` and the nightly's discover step end
# to end. Fake engines (tests/fake-engine, as llama-bench,
# llama-server and llama-perplexity) sit in each kind of place: on PATH (as
# symlinks), in $HOME/llama.cpp/build/bin, in a directory named by
# LVD_ENGINE_X and beside the binary AIDE_LLAMA_SERVER_VULKAN names. PATH, HOME,
# XDG_DATA_HOME and the places list are temporary, so no real binary on this
# machine (/usr/bin/llama-server) is ever found. Checks: each is registered
# once, with the build its --version prints and the name its probe gives; a
# second run registers nothing; a directory reached twice (a symlink on PATH)
# is one engine; --dry-run writes nothing; bad operands and nothing found exit
# 3 and 1; a nightly with no engine registered measures the discovered ones.
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
for v in $(env | sed -n 's/^\(LVD_ENGINE_[^=]*\|AIDE_LLAMA_SERVER[^=]*\)=.*/\1/p'); do unset "$v"; done
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg LVD_STORE=$tmp/store.db
export LVD_DISCOVER_PLACES='~/llama.cpp/build*/bin'   # the default list minus the system dirs
P=$tmp/pathbin                                        # the only PATH the tools see
# dlvd ARGS...: lvd with PATH=$P, captured
dlvd() { capture env PATH="$P" "$LVD_BIN/lvd" "$@"; }
# n_engines: how many engines the store holds
n_engines() { "$LVD_BIN/lvd" store engines --json | python3 -c "import json,sys; d=json.load(sys.stdin); print(len(d if isinstance(d, list) else d['engines']))"; }
# found NAME FIELD: FIELD of the found entry named NAME in $tmp/out
found() { q "[f['$2'] for f in d['found'] if f['name'] == '$1']"; }

# on PATH: symlinks to the fake (its scenario is found beside the link), build 9750
mkdir -p "$P"
for b in llama-bench llama-server llama-perplexity; do ln -s "$LVD_FAKE_ENGINE" "$P/$b"; done
printf '%s\n' "build_number = 9750" "build_commit = abc9750" > "$P/fake-scenario"
# ~/llama.cpp/build/bin: a CUDA build
fake_engine "$HOME/llama.cpp/build/bin" "device = CUDA0|NVIDIA H200|143155|142629|9.0" "dev.CUDA0.tg = 900"
# LVD_ENGINE_X: a CPU build; also reached through a symlink on PATH
fake_engine "$tmp/engines/x"
ln -s "$tmp/engines/x" "$tmp/x-link"
P="$P:$tmp/x-link:relative/bin"
# AIDE_LLAMA_SERVER_VULKAN: a Vulkan build, named by its llama-server
fake_engine "$tmp/engines/aide vk" "device = Vulkan0|AMD Radeon RX 7900 XTX (RADV NAVI31)|24560|24000" "dev.Vulkan0.tg = 300"
export LVD_ENGINE_X=$tmp/engines/x AIDE_LLAMA_SERVER_VULKAN="$tmp/engines/aide vk/llama-server"

# ------------------------------------------------------------ usage
dlvd probe --dry-run
expect_rc "--dry-run without --discover is a usage error" 2
mkdir -p "$tmp/empty/build/bin"
dlvd probe --discover "$tmp/empty"
expect_rc "an operand holding no engine is refused" 3
check "it says why" has_err "holds no executable llama-server or llama-bench"
capture env PATH=/nonexistent HOME=$tmp/nohome LVD_ENGINE_X= AIDE_LLAMA_SERVER_VULKAN= "$LVD_BIN/lvd" probe --discover --store "$tmp/none.db"
expect_rc "nothing found" 1
check "says so" has "no llama.cpp engine found"

# ------------------------------------------------------------ dry run
dlvd probe --discover --dry-run --json
expect_rc "a dry run" 0
check "lists four engines, all new" is "[f['status'] for f in d['found']].count('new')" 4
check "writes no store" test ! -e "$LVD_STORE"

# ------------------------------------------------------------ first run
dlvd probe --discover --json
expect_rc "discovery registers" 0
check "four found" is "len(d['found'])" 4
check "four new" is "d['new']" 4
check "the env engine first: named b9749-cpu" is "d['found'][0]['name'] + ' ' + d['found'][0]['source']" "b9749-cpu env:LVD_ENGINE_X"
check "AIDE_LLAMA_SERVER_VULKAN: its directory, b9749-vulkan" is "[f['name'] for f in d['found'] if f['source'] == 'env:AIDE_LLAMA_SERVER_VULKAN']" "['b9749-vulkan']"
check "the PATH engine: build from --version, b9750-cpu" is "[(f['name'], f['build'], f['commit']) for f in d['found'] if f['source'] == 'path']" "[('b9750-cpu', 'b9750', 'abc9750')]"
check "the home build: b9749-cuda, a place" is "[(f['name'], f['source'], f['devices']) for f in d['found'] if f['backend'] == 'cuda']" "[('b9749-cuda', 'place', ['CUDA0'])]"
check "the symlinked PATH entry is the env engine, not another" is "[f['path'] for f in d['found']].count('$(realpath "$tmp/engines/x")')" 1
check "the store holds four engines" test "$(n_engines)" -eq 4
"$LVD_BIN/lvd" store engines > "$tmp/engines.txt"
check "registered with the build --version printed" grep -q "b9750-cpu  *b9750 " "$tmp/engines.txt"

# ------------------------------------------------------------ second run
dlvd probe --discover
expect_rc "a second run" 0
check "registers nothing and says so" has "nothing new: 4 engines found, 4 already registered"
check "each is known" test "$(grep -c '^known ' "$tmp/out")" -eq 4
check "the store still holds four" test "$(n_engines)" -eq 4
dlvd probe --discover "$tmp/x-link"
expect_rc "an operand already registered" 0
check "is known under its name" has "^known +b9749-cpu +.* operand "

# ------------------------------------------------------------ dry run, one new
fake_engine "$HOME/llama.cpp/build-cpu2/bin"
"$LVD_BIN/lvd" store info --json > "$tmp/info.before"
dlvd probe --discover --dry-run
expect_rc "a dry run with one new engine" 0
check "would register it, collision suffixed" has "^new +b9749-cpu-2 "
check "says it wrote nothing" has "dry run: would register 1 new engine .*nothing written"
"$LVD_BIN/lvd" store info --json > "$tmp/info.after"
check "the store is untouched (engines, probes)" same "$tmp/info.before" "$tmp/info.after"
rm -rf "$HOME/llama.cpp/build-cpu2"

# ------------------------------------------------------------ a Vulkan build with no device
# As the real b9749 Vulkan build without a reachable GPU: it carries
# libggml-vulkan.so, prints "ggml_vulkan: No devices found." and lists none.
# Named by the backend it carries, not as a CPU build; its label stays cpu.
NODEV=$tmp/engines/vk-nodev
fake_engine "$NODEV" "backends = Vulkan"
for l in libggml-base.so.0 libggml-cpu.so.0 libggml-vulkan.so; do echo "fake $l" > "$NODEV/$l"; done
dlvd probe --discover --dry-run --json "$NODEV"
expect_rc "a dry run with a Vulkan build that lists no device" 0
check "would register it as b9749-vulkan-2 (b9749-vulkan is taken), backend cpu, no device" \
  is "[(f['name'], f['backend'], f['devices']) for f in d['found'] if f['path'] == '$NODEV']" "[('b9749-vulkan-2', 'cpu', [])]"
check "its backends and the no-device note" \
  is "[(f['backends'], f['no_device']) for f in d['found'] if f['path'] == '$NODEV']" \
  "[(['cpu', 'vulkan'], 'Vulkan backend present, no Vulkan device (driver missing?)')]"
capture env PATH=/nonexistent HOME="$tmp/nohome" LVD_ENGINE_X= AIDE_LLAMA_SERVER_VULKAN= LVD_STORE="$tmp/nodev.db" \
  "$LVD_BIN/lvd" probe --discover "$NODEV"
expect_rc "registered alone on a store of its own" 0
check "named b9749-vulkan, backend cpu" has "^new +b9749-vulkan +b9749 .* cpu +operand "
check "the table says why" has "^  note: Vulkan backend present, no Vulkan device \(driver missing\?\)"
capture env LVD_STORE="$tmp/nodev.db" "$LVD_BIN/lvd" probe --json
check "its probe is served from the cache discovery recorded, with the note" \
  is "[(p['engine'], p['cached'], p['backend'], p['no_device']) for p in d['probes']]" \
  "[('b9749-vulkan', True, 'cpu', 'Vulkan backend present, no Vulkan device (driver missing?)')]"
rm -rf "$NODEV"

# ------------------------------------------------------------ the nightly discovers
export LVD_STORE=$tmp/night.db
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$tmp/model.gguf"
offline_conf "$tmp/nightly.conf" "tests = tg128"
capture env PATH="$P" "$LVD_BIN/lvd" nightly --config "$tmp/nightly.conf"
cat "$tmp/out" "$tmp/err"
expect_rc "a nightly on a store with no engine" 0
check "its console says what discovery found" has "^discover +registered 4 new engines"
check "its log lists them" grep -qE "^new +b9749-vulkan " "$tmp/nightly.log"
check "discovery runs before the probe" test "$(grep -n "step 'discover'" "$tmp/nightly.log" | head -1 | cut -d: -f1)" -lt "$(grep -n "step 'probe'" "$tmp/nightly.log" | head -1 | cut -d: -f1)"
for e in b9749-cpu b9749-cuda b9749-vulkan b9750-cpu; do
  "$LVD_BIN/lvd" store runs --engine "$e" --json > "$tmp/runs.json" 2>&1
  check "bench runs recorded for discovered $e" python3 -c "import json; d=json.load(open('$tmp/runs.json')); r=d if isinstance(d, list) else d['runs']; assert len(r) > 0"
done
e2e_finish
