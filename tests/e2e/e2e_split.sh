#!/usr/bin/env bash
# e2e_split.sh: a split model (NAME-00001-of-00003.gguf ...) through the tools.
# The shards of small-llama are made by test_split's splitter (LVD_SPLIT_KEEP).
# lvd store model names one artifact whichever shard it is given, with the
# shape of the whole model; lvd bench and lvd select hand llama.cpp the first
# shard (it loads a split model from there only); a missing shard is one line
# naming it, exit 3, and the store keeps what it had.
# Needs LVD_BIN, LVD_TEST_BIN, LVD_FAKE_ENGINE (set by ctest).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_TEST_BIN LVD_FAKE_ENGINE
unset LVD_HOST

M=$tmp/models
mkdir -p "$M"
LVD_SPLIT_KEEP=$M "$LVD_TEST_BIN/test_split" >/dev/null 2>&1 || fail "test_split made no shards"
S1=$M/small-00001-of-00003.gguf S2=$M/small-00002-of-00003.gguf S3=$M/small-00003-of-00003.gguf
WANT=$(for f in "$S1" "$S2" "$S3"; do sha256sum "$f" | cut -d' ' -f1; done | sha256sum | cut -d' ' -f1)

world split
lvd store model "$S2" --json
expect_rc "lvd store model on shard 2" 0
check "shard 2 names the split model: identity over every shard" is 'd["sha256"]' "$WANT"
check "the shape sums the shards" is 'd["shape"]["tensor_bytes"]' 20550656
check "outside blocks, summed" is 'd["shape"]["non_block_bytes"]' 17409024
check "its path is the first shard" is 'd["path"]' "$S1"
lvd store model "$S1" --json
check "shard 1: the same artifact, from the caches" is '(d["sha256"], d["hashed"])' "('$WANT', False)"

engine cpu "cpu.tg = 50" "cpu.pp = 400"
lvd select --model "$S3"
expect_rc "lvd select on shard 3" 0
check "the launch line names the first shard" has "llama-server -m $S1 "
lvd bench --model "$S2" --reps 2 --budget 30s
check "llama-bench is given the first shard" grep -q -- "-m $S1 " "$W/cpu/calls.log"
check "and never another shard" bash -c "! grep -q -- '-of-00003.gguf' <(grep -v -- '-m $S1 ' '$W/cpu/calls.log' | grep -- ' -m ')"

mv "$S3" "$tmp/aside.gguf"
expect_exit 3 "$S3: missing shard 3 of 3 of the split model $S1: No such file or directory" \
  "$LVD_BIN/lvd" store model "$S1"
lvd store artifacts --json
check "the store keeps its one artifact" is 'len(d)' 1

e2e_finish
