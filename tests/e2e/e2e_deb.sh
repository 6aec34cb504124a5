#!/usr/bin/env bash
# e2e_deb: scripts/package builds the .deb (cpack -G DEB, in this build's own
# deb/ folder), its control fields are right (Depends from dpkg-shlibdeps and
# libssl3, loaded at run time),
# dpkg -i installs it, the installed lvd runs from /usr/bin and finds its
# tools, the man pages and completions are where man and bash-completion look,
# and dpkg -r removes every file again. The package is removed on any exit
# (trap). Needs root or passwordless sudo, else says "skipped" in one line;
# never touches an llama-verdict already installed. ctest runs it alone
# (RUN_SERIAL): it puts lvd in /usr/bin for a while.
. "$(dirname "$0")/e2e_lib.sh"
e2e_needs LVD_BIN LVD_SOURCE
build=$(cd "$LVD_BIN/.." && pwd)

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "e2e_deb: skipped (installing a package needs root or passwordless sudo)"
  exit 0
fi
for c in dpkg dpkg-deb dpkg-shlibdeps cpack; do
  command -v "$c" >/dev/null 2>&1 ||
    { echo "e2e_deb: skipped ($c is absent; scripts/deps --test installs dpkg-dev)"; exit 0; }
done
if dpkg-query -W -f='${Status}' llama-verdict 2>/dev/null | grep -q ' installed'; then
  echo "e2e_deb: skipped (llama-verdict is installed on this machine; not touching it)"
  exit 0
fi
for f in /usr/bin/lvd /usr/bin/lvd-select /usr/share/man/man1/lvd.1; do
  [ ! -e "$f" ] || { echo "e2e_deb: skipped ($f exists and would be replaced)"; exit 0; }
done

installed=0
deb_cleanup() {
  if [ "$installed" = 1 ]; then
    "${sudo[@]}" dpkg -r llama-verdict > /dev/null 2>&1 || "${sudo[@]}" dpkg --purge --force-all llama-verdict > /dev/null 2>&1
  fi
  e2e_cleanup
}
trap deb_cleanup EXIT

dir=$build/deb
capture "$LVD_SOURCE/scripts/package" "$dir"
expect_rc "scripts/package $dir" 0
[ "$rc" -eq 0 ] || { cat "$tmp/err" | tail -20; e2e_finish; exit; }
deb=$(tail -1 "$tmp/out")
check "it printed the .deb: $deb" test -f "$deb"
version=$("$LVD_BIN/lvd" --version | awk '{print $NF}')
field() { dpkg-deb -f "$deb" "$1"; }
check "Package: llama-verdict" test "$(field Package)" = llama-verdict
check "Version: $version (lvd --version)" test "$(field Version)" = "$version"
check "Section: utils" test "$(field Section)" = utils
check "Maintainer: $(field Maintainer)" grep -qE '^[^<]+ <[^@>]+@[^>]+>$' <(field Maintainer)
check "Description has a summary and a body" test "$(field Description | wc -l)" -ge 3
depends=$(field Depends)
libs="libc6 libcjson libcurl libssl libpcre2-8 libarchive"
# SQLite is linked statically unless the build said -DLVD_STATIC_SQLITE=OFF
readelf -d "$LVD_BIN/lvd-store" | grep -q 'libsqlite3' && libs="$libs libsqlite3"
for lib in $libs; do
  [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib (dpkg-shlibdeps): $depends"
done
ok "Depends from dpkg-shlibdeps: $depends"
check "Recommends libpq5 (loaded at run time for a PostgreSQL store)" grep -qw libpq5 <(field Recommends)
dpkg-deb -c "$deb" | awk '{print $6}' > "$tmp/contents"
for p in usr/bin/lvd usr/bin/lvd-select usr/share/man/man1/lvd.1 usr/share/man/man1/lvd-select.1 \
         usr/share/bash-completion/completions/lvd usr/share/bash-completion/completions/lvd-select \
         usr/share/llama-verdict/pin.default; do
  grep -qx "./$p" "$tmp/contents" || fail "the package lacks /$p"
done
ok "the package holds the tools, man pages, completions and data"

installed=1
# --path-include: a minimal image's dpkg may exclude /usr/share/man
capture "${sudo[@]}" dpkg -i --path-include='/usr/share/man/man1/lvd*' "$deb"
expect_rc "dpkg -i $(basename "$deb")" 0
check "dpkg says it is installed" grep -q ' installed' <(dpkg-query -W -f='${Status}' llama-verdict)

capture /usr/bin/lvd --version
check "/usr/bin/lvd --version: $(cat "$tmp/out")" test "$(cat "$tmp/out")" = "lvd (llama-verdict) $version"
"$LVD_BIN/lvd-select" --help > "$tmp/want"
capture env PATH=/usr/bin:/bin lvd select --help
expect_rc "lvd select --help from PATH=/usr/bin" 0
check "it ran lvd-select" same "$tmp/out" "$tmp/want"
capture env PATH=/nonexistent /usr/bin/lvd select --help
expect_rc "/usr/bin/lvd select --help with no PATH: lvd-select beside it" 0
check "it ran lvd-select" same "$tmp/out" "$tmp/want"
capture env PATH=/usr/bin:/bin lvd-store --version
check "lvd-store --version: $(cat "$tmp/out")" test "$(cat "$tmp/out")" = "lvd-store (llama-verdict) $version"

for t in lvd $(cd "$LVD_BIN" && ls lvd-*); do
  page=/usr/share/man/man1/$t.1
  [ -f "$page" ] || { fail "$page not installed"; continue; }
  w=$(MANWIDTH=80 man -l --warnings "$page" 2>&1 >/dev/null)
  [ -z "$w" ] || fail "$page: $w"
  [ -f "/usr/share/bash-completion/completions/$t" ] || fail "no completion for $t"
done
ok "every page installed in /usr/share/man/man1 renders; every completion installed"
check "man -w lvd-select finds /usr/share/man/man1/lvd-select.1" \
  test "$(MANPATH=/usr/share/man man -w lvd-select 2>/dev/null)" = /usr/share/man/man1/lvd-select.1
if [ -f /usr/share/bash-completion/bash_completion ]; then
  spec=$(bash -c '. /usr/share/bash-completion/bash_completion; __load_completion lvd-select; complete -p lvd-select' 2>&1)
  check "bash-completion loads it for lvd-select: $spec" test "$spec" = "complete -o default -F _lvd lvd-select"
fi
check "data in /usr/share/llama-verdict" test -f /usr/share/llama-verdict/pin.default

capture "${sudo[@]}" dpkg -r llama-verdict
expect_rc "dpkg -r llama-verdict" 0
installed=0
left=()
while read -r p; do
  p=${p#.}
  case $p in /usr/|/usr/bin/|/usr/share/|/usr/share/man/|/usr/share/man/man1/|/usr/share/bash-completion/|/usr/share/bash-completion/completions/) continue ;; esac
  [ -e "$p" ] && left+=("$p")
done < "$tmp/contents"
check "dpkg -r left none of its files${left:+ (left: ${left[*]})}" test ${#left[@]} -eq 0
check "dpkg says it is gone" test -z "$(dpkg-query -W -f='${Status}' llama-verdict 2>/dev/null | grep ' installed')"
e2e_finish
