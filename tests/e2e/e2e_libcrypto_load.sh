#!/usr/bin/env bash
# e2e_libcrypto_load.sh: libcrypto is loaded at the first SHA-256
# (common/sha256.c): no tool names it among its NEEDED libraries (a libcurl
# tool gets it through libcurl), a warm lvd select hashes nothing and runs
# without it, and a hash without it is one line naming the library and the
# package, exit 1.
. "$(dirname "$0")/e2e_lib.sh"
e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_FIXTURES

no_tool_links libcrypto

world crypto
engine cpu
cp "$LVD_FIXTURES/models/kv-llama.gguf" "$tmp/m.gguf"
NONE=$tmp/no-such-libcrypto.so.3
LVD_LIBCRYPTO_LIBRARY=$NONE expect_exit 1 "fatal: SHA-256 needs libcrypto.so.3 (Debian package libssl3)" \
  "$LVD_BIN/lvd" select --model "$tmp/m.gguf"
lvd select --model "$tmp/m.gguf"
expect_rc "select hashes the model once (libcrypto loaded)" 0
first=$(cat "$tmp/out")
LVD_LIBCRYPTO_LIBRARY=$NONE lvd select --model "$tmp/m.gguf"
expect_rc "a warm select hashes nothing: runs without libcrypto" 0
check "the warm select prints the same line" [ "$(cat "$tmp/out")" = "$first" ]
e2e_finish
