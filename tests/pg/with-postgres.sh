#!/usr/bin/env bash
# tests/pg/with-postgres.sh CMD [ARGS...]: runs CMD against a PostgreSQL server
# of its own. It finds Debian's server (/usr/lib/postgresql/*/bin, package
# postgresql), runs initdb (trust, superuser lvd) in a temporary directory,
# starts the server there with a Unix socket in that directory and no TCP,
# creates the database lvd, exports LVD_TEST_PG=postgresql://lvd@/lvd?host=DIR,
# runs CMD, then stops the server and removes the directory, whatever happens.
# PostgreSQL refuses to run as root: under root (CI) the server runs as
# nobody. Without PostgreSQL it prints one line and exits 77 (ctest: skipped).
set -uo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ] || [ ! -x "$bin/pg_ctl" ]; then
  echo "skipped: PostgreSQL is not installed (apt-get install postgresql; scripts/deps --test installs it)"
  exit 77
fi
dir=$(mktemp -d /tmp/lvd-pg.XXXXXX) || exit 1
as=()
if [ "$(id -u)" -eq 0 ]; then
  chown nobody "$dir" || exit 1
  as=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups --)
fi
started=0
cleanup() {
  if [ "$started" = 1 ]; then
    "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
  fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if ! (cd "$dir" && "${as[@]}" "$bin/initdb" -A trust -U lvd -D "$dir/data" >"$dir/initdb.log" 2>&1); then
  echo "with-postgres: initdb failed:" >&2
  cat "$dir/initdb.log" >&2
  exit 1
fi
started=1
if ! (cd "$dir" && "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses='' -k $dir -c fsync=off -c max_connections=200" start >/dev/null); then
  echo "with-postgres: the server did not start:" >&2
  cat "$dir/server.log" >&2
  exit 1
fi
if ! "$bin/createdb" -h "$dir" -U lvd lvd; then
  echo "with-postgres: cannot create database lvd" >&2
  exit 1
fi
export LVD_TEST_PG="postgresql://lvd@/lvd?host=$dir"
"$@"
rc=$?
if [ "$rc" -ne 0 ] && [ -s "$dir/server.log" ] && [ -n "${LVD_PG_SHOW_LOG:-}" ]; then
  tail -n 40 "$dir/server.log" >&2
fi
exit "$rc"
