#!/usr/bin/env bash
# e2e_select_cache.sh: lvd select's answer cache (select/cache.h) end to end,
# on a store built the way the nightly builds it. A kept answer prints byte
# for byte what the whole selection prints (stdout, stderr, exit code) in
# every output mode; the nightly's --record keeps the plain select's answer;
# a write to the store, a changed engine file, a changed model, another
# option or environment each make the next select compute again; a damaged
# kept file is a miss, never a crash or a wrong answer; --record is never
# answered from the cache; LVD_SELECT_CACHE=off neither reads nor writes it.
# Hit or miss is told by the kept file: a miss rewrites it (a new inode), a
# hit leaves it. Not a test of the rules (e2e_select.sh).
. "$(dirname "$0")/e2e_lib.sh"

e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE

world cache
MODEL=$tmp/tiny-llama-q4_0.gguf
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$MODEL"
engine cpu "noise = 0.005" "cpu.tg = 50" "cpu.pp = 400"
engine cuda "noise = 0.005" "device = CUDA0|NVIDIA GeForce GTX 1060 6GB|6144|5800|6.1" "dev.CUDA0.tg = 500"
engine vk "noise = 0.005" "device = Vulkan0|NVIDIA GeForce GTX 1060 6GB|6144|5900" "dev.Vulkan0.tg = 700"
lvd check --model "$MODEL"
expect_rc "check" 0
lvd bench --model "$MODEL" --fa on --reps 5 --budget 120s --session e2e-cache
expect_rc "bench" 0

KEPT=$LVD_STORE-select
SEL=$LVD_BIN/lvd-select
# sel ARGS...: lvd-select, captured; full ARGS...: the same without the cache,
# into $tmp/full.out, full.err and $full_rc
sel() { capture "$SEL" "$@"; }
full() {
  full_rc=0
  LVD_SELECT_CACHE=off "$SEL" "$@" > "$tmp/full.out" 2> "$tmp/full.err" || full_rc=$?
}
# inodes: every kept file as "inode name", sorted
inodes() { (cd "$KEPT" 2>/dev/null && for f in *; do [ -f "$f" ] && echo "$(stat -c %i "$f") $f"; done) | sort; }
# as_full DESCRIPTION ARGS...: the captured call printed what the whole selection prints
as_full() {
  local d=$1; shift
  full "$@"
  if same "$tmp/out" "$tmp/full.out" && same "$tmp/err" "$tmp/full.err" && [ "$rc" = "$full_rc" ]; then
    ok "$d: stdout, stderr and exit code as without the cache"
  else
    fail "$d: differs from the selection without the cache (exit $rc against $full_rc)"
  fi
}
# A file's timestamps are whole clock ticks: what a select keeps must be
# older than the tick it starts in, so a change is followed by a short wait.
tick() { sleep 0.05; }

# ------------------------------------------------------------ the nightly's --record keeps the plain answer
capture "$SEL" --model "$MODEL" --record
expect_rc "select --record" 0
check "its output is the recorded verdict's" has "recorded verdict"
check "the plain select's answer is kept" test "$(inodes | wc -l)" -eq 1
before=$(inodes)
sel --model "$MODEL"
expect_rc "the select after the night" 0
check "is a hit: the kept file untouched" test "$(inodes)" = "$before"
as_full "the hit after --record" --model "$MODEL"

# ------------------------------------------------------------ every output mode: miss then hit, byte for byte
for mode in "" "--json" "--explain" "-c 2048" "--free-mib 3000 --json" "--objective pp" "--host other-box"; do
  # shellcheck disable=SC2086 # the mode's words
  sel --model "$MODEL" $mode
  first_rc=$rc
  cp "$tmp/out" "$tmp/miss.out"
  cp "$tmp/err" "$tmp/miss.err"
  kept_after_miss=$(inodes)
  # shellcheck disable=SC2086
  sel --model "$MODEL" $mode
  if [ "$first_rc" -eq 0 ]; then
    check "'$mode': the second run is a hit" test "$(inodes)" = "$kept_after_miss"
  fi
  check "'$mode': the hit prints what the miss printed" same "$tmp/out" "$tmp/miss.out"
  check "'$mode': on stderr too" same "$tmp/err" "$tmp/miss.err"
  # shellcheck disable=SC2086
  as_full "'$mode'" --model "$MODEL" $mode
done

# ------------------------------------------------------------ a kept answer is what is printed
# Plant a different output into the kept file of the plain question (a
# well-formed file, checksum recomputed): the next select prints it, so a hit
# really answers from the file, and every test above compared real hits.
plant() { # plant FILE TEXT: replaces the file's stdout with TEXT
  python3 - "$1" "$2" <<'PY'
import re, sys
path, text = sys.argv[1], sys.argv[2].encode()
data = open(path, "rb").read()
body = data[: data.rindex(b"C ")]
i = body.index(b"\nO ") + 1
n = int(body[i + 2 : body.index(b"\n", i)])
start = body.index(b"\n", i) + 1
body = body[:i] + b"O %d\n" % len(text) + text + body[start + n :]
h = 14695981039346656037
for b in body:
    h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
open(path, "wb").write(body + b"C %016x\n" % h)
PY
}
sel --model "$MODEL"
plain_file=$(ls -t "$KEPT" | head -1)
for f in "$KEPT"/*; do grep -q "options ctx=-1 free-mib=-1 objective=tg json=0 explain=0 host=-" "$f" && plain_file=$f; done
plant "$plain_file" "planted answer"
sel --model "$MODEL"
check "a well-formed kept file is what a hit prints" test "$(cat "$tmp/out")" = "planted answer"

# a kept file others could have written answers nothing (a launch line is run)
chmod g+w "$plain_file"
sel --model "$MODEL"
as_full "a kept file writable by its group: a miss" --model "$MODEL"
plant "$plain_file" "planted answer"
chmod 755 "$KEPT" && chmod o+w "$KEPT"
sel --model "$MODEL"
as_full "a kept file in a directory others can write: a miss" --model "$MODEL"
chmod o-w "$KEPT"
plant "$plain_file" "planted answer"

# ------------------------------------------------------------ --record is never answered from the cache
capture "$SEL" --model "$MODEL" --record
expect_rc "--record with a planted answer kept" 0
check "--record ran the selection (the verdict it recorded is printed)" has "recorded verdict"
check "and not the planted answer" test "$(grep -c "planted answer" "$tmp/out")" -eq 0
tick
sel --model "$MODEL"
as_full "after --record, the kept plain answer" --model "$MODEL"

# ------------------------------------------------------------ damaged kept files are misses
damage() { # damage HOW: damages the plain question's kept file, then selects
  case $1 in
    truncate) head -c 700 "$plain_file" > "$tmp/cut" && cat "$tmp/cut" > "$plain_file" ;;
    flip) python3 -c "
import sys; p=sys.argv[1]; d=bytearray(open(p,'rb').read()); i=d.rindex(b'llama-server'); d[i]^=1; open(p,'wb').write(d)" "$plain_file" ;;
    empty) : > "$plain_file" ;;
    garbage) head -c 3000 /dev/urandom > "$plain_file" ;;
    huge-length) sed -i 's/^O [0-9]*$/O 99999999999/' "$plain_file" ;;
  esac
  sel --model "$MODEL"
}
for how in truncate flip empty garbage huge-length; do
  tick
  sel --model "$MODEL" # a good kept file first
  damage $how
  as_full "a kept file damaged ($how): a miss" --model "$MODEL"
  check "($how): the kept file was written anew, whole" grep -q "^C [0-9a-f]\{16\}$" "$plain_file"
done

# ------------------------------------------------------------ invalidation
# miss_after DESCRIPTION CMD...: with a kept answer, CMD changes something;
# the next select must print what the whole selection prints, and the kept
# file must be written anew by it or the one after (a hit never rewrites it;
# a miss whose run changed the store's files, as the first SQLite connection
# after a writer that removed its -wal file does, keeps nothing).
miss_after() {
  local d=$1 before; shift
  tick
  sel --model "$MODEL" --json
  sel --model "$MODEL" --json
  before=$(inodes)
  "$@"
  tick
  sel --model "$MODEL" --json
  as_full "$d" --model "$MODEL" --json
  cp "$tmp/full.out" "$tmp/changed.out"
  tick
  sel --model "$MODEL" --json
  check "$d: a miss, the answer kept again" test "$(inodes)" != "$before"
  check "$d: the answer after it is the same" same "$tmp/out" "$tmp/changed.out"
}
# a write to the store that changes the answer: the Vulkan engine renamed
rename_vk() { python3 -c "
import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE engines SET name = 'vk-renamed' WHERE name = 'vk'\"); c.commit()" "$LVD_STORE"; }
miss_after "a store write (an engine renamed)" rename_vk
check "the answer names the renamed engine" is "d['engine']" "vk-renamed"
# a store write through the tools: a new check recorded
miss_after "a store write by lvd check" "$LVD_BIN/lvd" check --model "$MODEL"
# an engine file: the winner's server binary changes (its verdict goes stale)
miss_after "an engine's file changed" touch -d '2001-01-01 00:00:00' "$W/vk/llama-server"
check "the stale verdict no longer decides" is "d['rule']" "heuristic"
# a library added to an engine's directory joins its file set
miss_after "a library added to an engine" cp "$LVD_FAKE_ENGINE" "$W/cuda/libggml-extra.so"
# the model: replaced by a copy (another inode, another mtime)
replace_model() { cp "$MODEL" "$MODEL.new" && mv "$MODEL.new" "$MODEL"; }
miss_after "the model file replaced" replace_model

# another option or environment is another question: its own kept file
tick
sel --model "$MODEL" --json
before=$(inodes | wc -l)
for env in "LVD_HOST=elsewhere" "CUDA_VISIBLE_DEVICES=" "LVD_FAKE_NOW=2030-01-01T00:00:00Z" "LVD_PIN_FILE=$tmp/no.pin"; do
  capture env "$env" "$SEL" --model "$MODEL" --json
  env_out=$tmp/env.out
  cp "$tmp/out" "$env_out"
  full_rc=0
  env "$env" LVD_SELECT_CACHE=off "$SEL" --model "$MODEL" --json > "$tmp/full.out" 2> "$tmp/full.err" || full_rc=$?
  check "$env: answered as without the cache" same "$env_out" "$tmp/full.out"
done
# the other host and the hidden CUDA devices have no engine that can serve
# (exit 1: not kept); the clock and the pin file each keep their own
check "each environment that answered kept its own answer" test "$(inodes | wc -l)" -eq $((before + 2))
# what does not change the answer is the same question: the store named by
# --store rather than LVD_STORE, and without a terminal the colour and
# progress settings
before=$(inodes)
capture env -u LVD_STORE NO_COLOR= LVD_NO_PROGRESS= "$SEL" --store "$LVD_STORE" --model "$MODEL" --json
check "--store, NO_COLOR and LVD_NO_PROGRESS without a terminal: a hit" test "$(inodes)" = "$before"
as_full "that hit" --model "$MODEL" --json

# every variable the library under select reads is accounted for in the key
# (keyed, or not keyed with the reason, in select/cache_key.c)
names=$(cd "$LVD_SOURCE" && grep -rhoE 'getenv\("[A-Z_]+"\)' common store engine builds select placement stats |
        sed 's/getenv("\(.*\)")/\1/' | sort -u)
missing=""
for name in $names; do grep -q "$name" "$LVD_SOURCE/select/cache_key.c" || missing="$missing $name"; done
check "every getenv under select is weighed by the key (missing:${missing:- none})" test -z "$missing"

# ------------------------------------------------------------ off
rm -rf "$KEPT"
capture env LVD_SELECT_CACHE=off "$SEL" --model "$MODEL"
expect_rc "LVD_SELECT_CACHE=off" 0
check "keeps nothing" test ! -e "$KEPT"
# an unwritable place for the kept file never fails select
rm -rf "$KEPT" && : > "$KEPT"
sel --model "$MODEL"
expect_rc "the kept directory cannot be made (a file is in its way)" 0
check "nothing said about it" test ! -s "$tmp/err"
rm -f "$KEPT"

e2e_finish
