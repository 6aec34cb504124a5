#!/usr/bin/env bash
# e2e_identity.sh: an engine is every file it loads (engine/files.h), end to
# end on fake engines (copies of tests/fake-engine) beside fake shared
# libraries and backend modules: the registered digest is over the whole set
# (by its definition, sha256sum lines) and a second registration re-hashes
# nothing; replacing a library or adding a module re-probes (said why) and
# makes the verdict stale (--explain names the file, the next rule decides);
# a Vulkan build whose backend lists no device says so; CUDA archs learnt
# from lvd check's perplexity log flag a device the build has no code for,
# in lvd probe and in lvd select --explain. Not a test of the ELF reader or
# the RUNPATH rules (test_identity).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
world id
REGISTER_OK=0
PLAIN=$tmp/tiny-llama-q4_0.gguf
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$PLAIN"
probes() { grep -c -- '--list-devices' "$W/$1/calls.log" 2>/dev/null || true; }
# note ENGINE TEXT: the probe table's lines of ENGINE (up to the next engine) hold TEXT
note() { awk -v e="$1" '$1 == e { on = 1; print; next } /^[^ ]/ { on = 0 } on' "$tmp/out" | grep -qF -- "$2"; }

libs() { local d=$W/$1; shift; for l in "$@"; do printf '%s\n' "fake $l of $(basename "$d")" > "$d/$l"; done; }
fake_engine "$W/cpu" "noise = 0.005" "cpu.tg = 50" "cpu.pp = 400"
libs cpu libggml-base.so.0 libggml-cpu.so.0 libllama.so.0
fake_engine "$W/vk" "noise = 0.005" "backends = Vulkan" "device = CUDA0|NVIDIA GeForce RTX 4090|24564|24000|8.9" \
  "dev.CUDA0.tg = 500" "dev.CUDA0.pp = 3000" "cuda_archs = 900"
libs vk libggml-base.so.0 libggml-cpu.so.0 libggml-cuda.so libggml-vulkan.so libllama.so.0

# ------------------------------------------------------------ registration
lvd fetch --register "$W/cpu" --build b9749 --name cpu --json
expect_rc "register the CPU engine" 0
want=$(cd "$W/cpu" && LC_ALL=C sha256sum libggml-base.so.0 libggml-cpu.so.0 libllama.so.0 llama-bench \
  llama-perplexity llama-server | sha256sum | cut -d' ' -f1)
check "the digest is over the whole file set" is "d['engine']['digest']" "$want"
check "the probe records the backends the files carry" is "d['probe']['backends']" "['cpu']"
check "and how many files" is "d['probe']['n_files']" "6"
lvd fetch --register "$W/vk" --build b9749 --name vk --json
expect_rc "register the Vulkan+CUDA engine" 0
check "vk carries cpu, cuda and vulkan" is "d['probe']['backends']" "['cpu', 'cuda', 'vulkan']"
check "its Vulkan backend lists no device: said so" is "d['probe']['no_device']" \
  "Vulkan backend present, no Vulkan device (driver missing?)"
check "the label stays the devices' (cuda)" is "d['probe']['backend']" "cuda"
check "no CUDA archs known yet" is "d['probe']['cuda_archs']" "None"
# a second registration reads no file: strace-free proof, the digest's cache
# rows keep their hashed_at
sqlite3 "$LVD_STORE" "UPDATE file_hashes SET hashed_at = 1" 2>/dev/null || python3 -c "
import sqlite3; c = sqlite3.connect('$LVD_STORE'); c.execute('UPDATE file_hashes SET hashed_at = 1'); c.commit()"
lvd fetch --register "$W/cpu" --build b9749 --no-probe --json
expect_rc "register the CPU engine again" 0
check "the same digest" is "d['engine']['digest']" "$want"
rehashed=$(python3 -c "
import sqlite3; c = sqlite3.connect('$LVD_STORE'); print(c.execute('SELECT count(*) FROM file_hashes WHERE hashed_at <> 1').fetchone()[0])")
check "no file was hashed again (the file hash cache answered)" [ "$rehashed" = 0 ]

lvd probe
expect_rc "probe: both from the cache" 0
check "the no-device note in the table" note vk "note: Vulkan backend present, no Vulkan device (driver missing?)"
check "the backends line" note vk "backends: cpu,cuda,vulkan"

# ------------------------------------------------------------ a verdict
lvd check --model "$PLAIN" --json
expect_rc "check" 0
lvd bench --model "$PLAIN" --fa on --reps 5 --budget 120s --session e2e-identity --json
expect_rc "bench" 0
lvd select --model "$PLAIN" --record --json
expect_rc "select --record" 0
check "the verdict: vk's CUDA0" is "d['engine'] + ' ' + d['device']" "vk CUDA0"
check "the CUDA archs from the check's perplexity log flag the 8.9 device (archs 900) in --explain" is \
  "any(\"warning: vk CUDA0: cc 8.9 is not among the build's CUDA archs (900)\" in e for e in d['explain'])" True

lvd probe --engine vk --json
check "the probe keeps the archs" is "d['probes'][0]['cuda_archs']" "900"
check "and flags the device" is "d['probes'][0]['devices'][0]['cuda_arch_flag'] is not None" True
lvd probe --engine vk
check "the table shows the flag" has "CUDA0: NVIDIA GeForce RTX 4090 .*cc 8.9 -- WARNING: cc 8.9 is not among the build's CUDA archs \(900\)"

# ------------------------------------------------------------ a library replaced
lvd select --model "$PLAIN" --json
check "rule 2 decides" is "d['rule']" "verdict"
before=$(probes vk)
printf 'a rebuilt libggml-cpu\n' > "$W/vk/libggml-cpu.so.0"
lvd select --model "$PLAIN" --json
check "a replaced library makes the verdict stale and names it" is \
  "any('is stale: engine vk: libggml-cpu.so.0 changed since the verdict (size)' in e for e in d['explain'])" True
check "the next rule decides" is "d['rule'] != 'verdict'" True
lvd probe --engine vk
expect_rc "probe after the library changed" 0
check "is asked again" [ "$(probes vk)" = $((before + 1)) ]
check "and says why" note vk "re-probed: libggml-cpu.so.0 changed since the last probe (size)"
lvd probe --engine vk
check "then cached again" has "^vk +cuda +cached"

# ------------------------------------------------------------ a module added
lvd select --model "$PLAIN" --record --json
expect_rc "a new verdict" 0
printf 'a new tier\n' > "$W/vk/libggml-cpu-haswell.so"
lvd select --model "$PLAIN" --json
check "a module added makes the verdict stale too" is \
  "any('is stale: engine vk: libggml-cpu-haswell.so appeared since the verdict' in e for e in d['explain'])" True
lvd probe --engine vk
check "and re-probes" note vk "re-probed: libggml-cpu-haswell.so appeared since the last probe"
rm "$W/vk/libggml-vulkan.so"
lvd probe --engine vk --json
check "a module removed: re-probed, said so" is "d['probes'][0]['reprobed_because']" \
  "libggml-vulkan.so is gone since the last probe"
check "no Vulkan backend, no note" is "d['probes'][0]['no_device']" "None"
check "the files' new identity has new archs to learn" is "d['probes'][0]['cuda_archs']" "None"

e2e_finish
