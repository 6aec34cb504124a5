#!/usr/bin/env bash
# e2e_store_pg.sh: the tools on a PostgreSQL store end to end (docs/store.md,
# "PostgreSQL store"), against a server tests/pg/with-postgres.sh starts for
# this script alone (skipped, exit 77, without PostgreSQL installed):
#   probe, check, bench, select --record, select and evidence on fake engines
#     with --store/LVD_STORE a postgresql:// URI: the same verdict as on an
#     SQLite store measured the same way;
#   two nightlies from two hosts (LVD_HOST) writing the one database at once:
#     both nights whole (their runs each there once, the same for both hosts);
#   an unreachable server: one line naming it, exit 4; the nightly records
#     into its local fallback store and says so (stderr, log, --json);
#   lvd store merge from SQLite into PostgreSQL and back: the same verdict explained;
#   a password in the URI: refused in one line saying where it goes, never echoed.
if [ -z "${LVD_TEST_PG:-}" ]; then
  exec bash "$(dirname "$0")/../pg/with-postgres.sh" bash "$0" "$@"
fi
. "$(dirname "$0")/e2e_lib.sh"
e2e_needs LVD_BIN LVD_FAKE_ENGINE LVD_SOURCE
export XDG_DATA_HOME="$tmp/xdg"
MODEL=$tmp/tiny-llama-q4_0.gguf
cp "$LVD_SOURCE/share/models/tiny-llama-q4_0.gguf" "$MODEL"
SOCK=${LVD_TEST_PG##*host=}
# database NAME: a new database on the test server; prints its URI
database() {
  psql -q "$LVD_TEST_PG" -c "CREATE DATABASE $1" >/dev/null || fail "CREATE DATABASE $1"
  echo "postgresql://lvd@/$1?host=$SOCK"
}

# ------------------------------------------------------------ the tools on either store
# measure: probe, check, bench and select --record the Pascal box into $LVD_STORE
measure() {
  lvd probe --json
  expect_rc "probe ($1)" 0
  lvd check --model "$MODEL" --json
  expect_rc "check ($1)" 0
  lvd bench --model "$MODEL" --fa on --reps 5 --budget 120s --session e2e-pg --json
  expect_rc "bench ($1)" 0
  lvd select --model "$MODEL" --record --json
  expect_rc "select --record ($1)" 0
  q "d['engine'], d['recorded']['rule'], len(d['recorded']['stats']['arms'])" >"$tmp/verdict-$1"
}
world tools
engine cpu "noise = 0.005" "cpu.tg = 50" "cpu.pp = 400"
engine cuda "noise = 0.005" "device = CUDA0|NVIDIA GeForce GTX 1060 6GB|6144|5800|6.1" "dev.CUDA0.tg = 500" "dev.CUDA0.pp = 3000"
engine vk "noise = 0.005" "device = Vulkan0|NVIDIA GeForce GTX 1060 6GB|6144|5900" "dev.Vulkan0.tg = 700" "dev.Vulkan0.pp = 2500"
measure sqlite
PG=$(database tools)
export LVD_STORE=$PG
for e in cpu cuda vk; do register "$W/$e"; done
measure pg
check "the same verdict on PostgreSQL as on SQLite" same "$tmp/verdict-sqlite" "$tmp/verdict-pg"
check "Vulkan wins (it decodes 40 % faster)" grep -qx "vk win 3" "$tmp/verdict-pg"
lvd select --model "$MODEL" --json
expect_rc "select from the PostgreSQL verdict" 0
check "rule 2 decided" is "d['rule']" "verdict"
check "argv[0] is the Vulkan engine's llama-server" is "d['argv'][0]" "$W/vk/llama-server"
lvd evidence --store "$PG" --out "$tmp/page.md"
expect_rc "evidence from the PostgreSQL store" 0
check "the page names the winner" grep -q "vk" "$tmp/page.md"
printf '[lvd-e2e]\nhost=%s\nuser=lvd\ndbname=tools\nsslmode=disable\n' "$SOCK" >"$tmp/pg_service.conf"
PGSERVICEFILE=$tmp/pg_service.conf lvd store --store service=lvd-e2e info --json
expect_rc "the same database through a service (sslmode passed through)" 0
cp "$tmp/out" "$tmp/info-service"
lvd store --store "$PG" info --json
expect_rc "store info" 0
check "the service names the same store" test "$(q "d['counts']['runs'] if 'counts' in d else d['runs']")" -eq \
  "$(python3 -c "import json; d=json.load(open('$tmp/info-service')); print(d['counts']['runs'] if 'counts' in d else d['runs'])")"
check "the runs are in the database" test "$(q "d['counts']['runs'] if 'counts' in d else d['runs']")" -gt 0

# ------------------------------------------------------------ lvd store merge, both ways
# the SQLite store (its verdict's statistics packed: store/store_docs.h) into a
# new PostgreSQL database (text), and that into a new SQLite file (packed
# again): the same statistics in all three, the verdict explained the same
LITE=$tmp/tools.db
MERGED=$(database merged)
lvd store --store "$MERGED" merge "$LITE"
expect_rc "merge the SQLite store into PostgreSQL" 0
lvd store --store "$tmp/back.db" merge "$MERGED"
expect_rc "and that into a new SQLite file" 0
for s in lite merged back; do
  case $s in lite) spec=$LITE ;; merged) spec=$MERGED ;; back) spec=$tmp/back.db ;; esac
  lvd select --store "$spec" --model "$MODEL" --explain
  expect_rc "select --explain from the $s store" 0
  cp "$tmp/out" "$tmp/explain-$s"
done
# docs FILE: an SQLite store's verdict statistics as text, unpacked (tag,
# 4 bytes of length, zlib), one line each in decided order
docs() {
  python3 -c 'import sqlite3,sys,zlib
for (b,) in sqlite3.connect(sys.argv[1]).execute("SELECT stats_json FROM verdicts ORDER BY decided_at, id"):
    print(zlib.decompress(b[5:]).decode() if isinstance(b, bytes) else b)' "$1"
}
docs "$LITE" >"$tmp/docs-lite"
docs "$tmp/back.db" >"$tmp/docs-back"
psql -X -A -t "$MERGED" -c "SELECT stats_json FROM verdicts ORDER BY decided_at, id" >"$tmp/docs-merged"
check "the SQLite store holds the verdicts' statistics packed" test "$(python3 -c 'import sqlite3,sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM verdicts WHERE typeof(stats_json) = '"'blob'"'").fetchone()[0])' "$LITE")" -gt 0
check "PostgreSQL holds them as the same text" same "$tmp/docs-lite" "$tmp/docs-merged"
check "and the SQLite store merged back too" same "$tmp/docs-lite" "$tmp/docs-back"
check "with the arms in them" grep -q '"arms"' "$tmp/docs-back"
check "the verdict explained the same from PostgreSQL" same "$tmp/explain-lite" "$tmp/explain-merged"
check "and from the SQLite store merged back" same "$tmp/explain-lite" "$tmp/explain-back"

# ------------------------------------------------------------ two hosts, one database
NIGHTS=$(database nights)
world fleet
engine cpu "cpu.tg = 50" "cpu.pp = 400" "noise = 0.005"
engine gpu "device = CUDA0|NVIDIA GeForce RTX 4090|24564|23000|8.9" "dev.CUDA0.tg = 900" "noise = 0.005"
cat >"$W/nightly.conf" <<CONF
model = $MODEL
fetch = off
candidate = none
budget = 1m
max_samples = 6
pin_file = $LVD_SOURCE/share/pin.default
promote = off
discover = off
CONF
# night HOST [STORE]: host HOST's nightly (its own state directory) on STORE
# (default: the shared database)
night() {
  mkdir -p "$tmp/$1"
  LVD_HOST=$1 XDG_DATA_HOME="$tmp/$1" LVD_STORE=${2:-$NIGHTS} \
    "$LVD_BIN/lvd" nightly --config "$W/nightly.conf" --json >"$tmp/$1.json" 2>"$tmp/$1.err"
}
# arms STORE HOST: the runs HOST recorded in STORE, one line each (arm, status,
# tests), sorted: what one night's whole record looks like
arms() {
  "$LVD_BIN/lvd" store --store "$1" runs --limit 0 --json >"$tmp/out" || fail "runs of $2"
  q "'\\n'.join(sorted('%s %s %s' % (r['arm_key'], r['status'], ','.join(x['test'] for x in r.get('results', []))) for r in d if r['host'] == '$2'))"
}
# the reference: one night alone on an SQLite store
REF=$tmp/reference.db
LVD_HOST=box-r LVD_STORE=$REF register "$W/cpu"
LVD_HOST=box-r LVD_STORE=$REF register "$W/gpu"
night box-r "$REF" || fail "the reference night"
arms "$REF" box-r >"$tmp/arms-ref"
check "the reference night recorded runs" test -s "$tmp/arms-ref"
for h in box-a box-b; do
  LVD_HOST=$h LVD_STORE=$NIGHTS register "$W/cpu"
  LVD_HOST=$h LVD_STORE=$NIGHTS register "$W/gpu"
done
night box-a & a=$!
night box-b & b=$!
ra=0; wait $a || ra=$?
rb=0; wait $b || rb=$?
check "box-a's night succeeded" test "$ra" -eq 0
check "box-b's night succeeded" test "$rb" -eq 0
arms "$NIGHTS" box-a >"$tmp/arms-a"
arms "$NIGHTS" box-b >"$tmp/arms-b"
check "box-a's night is whole: its runs are the lone night's, none lost or twice" same "$tmp/arms-ref" "$tmp/arms-a"
check "box-b's night is whole too" same "$tmp/arms-ref" "$tmp/arms-b"
check "one session per night" test "$(q "len({(r['host'], r['session']) for r in d})")" -eq 2
cp "$tmp/box-a.json" "$tmp/out"
check "the night's report names the shared store" is "d['store']" "$NIGHTS"
check "and no fallback" is "d['store_fallback_from']" None

# ------------------------------------------------------------ unreachable, the fallback
GONE="postgresql://lvd@/lvd?host=$tmp/no-server"
lvd store --store "$GONE" info
expect_rc "unreachable: the store error" 4
check "one line" test "$(wc -l <"$tmp/err")" -eq 1
check "it names the server" has_err "host $tmp/no-server, port 5432, database lvd"
# box-c has a local store from before (its engines registered there)
mkdir -p "$tmp/box-c"
LVD_HOST=box-c LVD_STORE=$tmp/box-c/llama-verdict/store.db register "$W/cpu"
LVD_HOST=box-c LVD_STORE=$tmp/box-c/llama-verdict/store.db register "$W/gpu"
rc=0
LVD_HOST=box-c XDG_DATA_HOME="$tmp/box-c" LVD_STORE=$GONE \
  "$LVD_BIN/lvd" nightly --config "$W/nightly.conf" --json >"$tmp/out" 2>"$tmp/err" || rc=$?
check "the night goes on locally" test "$rc" -eq 0
check "it says so" has_err "records into the local fallback store $tmp/box-c/llama-verdict/store.db"
check "the report names the unreachable store" is "d['store_fallback_from']" "$GONE"
check "and the store it used" is "d['store']" "$tmp/box-c/llama-verdict/store.db"
check "the log says so" grep -q "unreachable: this night records into the local fallback store" \
  "$tmp/box-c/llama-verdict/nightly.log"
lvd store --store "$tmp/box-c/llama-verdict/store.db" runs --limit 0 --json
check "the night's runs are in the fallback store" test "$(q "sum(r['host'] == 'box-c' for r in d)")" -gt 0

# ------------------------------------------------------------ passwords
lvd store --store "postgresql://lvd:hunter2@/lvd?host=$SOCK" info
expect_rc "a password in the URI: the store error" 4
check "one line saying where it goes" has_err "put it in ~/.pgpass, PGPASSWORD or a service file"
check "the password is not echoed" bash -c "! grep -q hunter2 '$tmp/err' '$tmp/out'"
lvd store --store "postgresql://lvd@/lvd?host=$SOCK&password=hunter2" info
expect_rc "a password parameter: refused too" 4
check "not echoed either" bash -c "! grep -q hunter2 '$tmp/err' '$tmp/out'"
e2e_finish
