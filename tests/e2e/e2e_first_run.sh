#!/usr/bin/env bash
# e2e_first_run.sh: the main job's first run on a machine with no engine and
# no network: the nightly says it is offline, then once what is missing and
# how to get it, skips every step that needs an engine (probe, check, bench,
# select) instead of failing each, and still writes the evidence page;
# exit 1 (nothing was measured). The same with a registered engine runs
# the steps (e2e_nightly covers that night).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN
unset LVD_HOST LVD_PIN_FILE
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg XDG_CACHE_HOME=$tmp/cache XDG_CONFIG_HOME=$tmp/config
export LVD_STORE=$tmp/store.db PATH=/usr/bin:/bin
export LVD_RELEASES_API=http://127.0.0.1:1/api LVD_RELEASES_DOWNLOAD=http://127.0.0.1:1/download
for v in $(env | sed -n 's/^\(LVD_ENGINE_[A-Za-z0-9_]*\)=.*/\1/p; s/^\(AIDE_LLAMA_SERVER[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
mkdir -p "$HOME"
lvd nightly
expect_rc "nothing measured" 1
check "offline said once" test "$(grep -c '^offline:' "$tmp/out")" -eq 1
check "what is missing and how to get it, once" \
  test "$(grep -c '^engines .*none registered or found: register a llama.cpp build with .lvd fetch --register DIR.' "$tmp/out")" -eq 1
check "no step that needs an engine ran" bash -c "! grep -qE '^(probe|check|bench|serve|select) ' '$tmp/out'"
check "no 'no engines registered' error" bash -c "! grep -q 'no engines registered' '$tmp/out' '$tmp/err'"
check "the page is written" test -s "$XDG_DATA_HOME/llama-verdict/evidence/backend-selection.md"
e2e_finish
