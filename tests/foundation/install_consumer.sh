#!/bin/sh
# Installs the build into a scratch DESTDIR, then builds and runs a consumer program
# with nothing but pkg-config: the way a host code would find fcd.
# usage: install_consumer.sh BUILD_DIR CONSUMER_C VERSION [SANITIZE]
set -eu
build=$1 consumer=$2 version=$3 sanitize=${4:-none}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --destdir "$tmp/dest" --no-rebuild --quiet >/dev/null
pc=$(find "$tmp/dest" -name fcd.pc | head -n 1)
[ -n "$pc" ] || { echo "fcd.pc was not installed"; exit 1; }
prefix=$(sed -n 's/^prefix=//p' "$pc")
export PKG_CONFIG_PATH="$(dirname "$pc")"
pc_cmd="pkg-config --define-variable=prefix=$tmp/dest$prefix"
got=$($pc_cmd --modversion fcd)
[ "$got" = "$version" ] || { echo "pkg-config --modversion fcd says '$got', expected '$version'"; exit 1; }
cflags=$($pc_cmd --cflags fcd)
libs=$($pc_cmd --libs fcd)
case "$cflags $libs" in
  *"$tmp/dest"*) ;;
  *) echo "pkg-config flags do not point into the install prefix: $cflags $libs"; exit 1 ;;
esac
san=""
[ "$sanitize" = none ] || san="-fsanitize=$sanitize"
cc -std=c11 -Wall -Wextra -Werror -pedantic $san $cflags "$consumer" -o "$tmp/consumer" $libs -lm
libdir=$($pc_cmd --variable=libdir fcd)
# the installed library must carry the documented SONAME
soname=$(readelf -d "$libdir/libfcd.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
case "$soname" in
  libfcd.so.*) ;;
  *) echo "unexpected SONAME '$soname'"; exit 1 ;;
esac
LD_LIBRARY_PATH="$libdir" "$tmp/consumer" "$version"
echo "installed fcd $got (SONAME $soname) found and linked through pkg-config"
