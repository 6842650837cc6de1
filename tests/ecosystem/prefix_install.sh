#!/bin/sh
# Install to a prefix and use it from that prefix only (issue 20), with the lines
# docs/getting-started.md section 7 gives: a shared and a static C consumer through
# pkg-config, a shared and a static CMake consumer, the installed fcd program (no
# LD_LIBRARY_PATH), Python without FCD_LIBRARY or PYTHONPATH tricks beyond the prefix's
# site-packages, and `man fcd`.
#
# A build configured with a private prefix (CI: --prefix=$top/prefix-ci) is installed
# there for real. A build with a system prefix (/usr...) is staged under a scratch
# DESTDIR instead and used from there: the installed tree is relocatable (relative
# RPATH, CMake paths and Python library path; pkg-config told its new prefix).
# usage: prefix_install.sh BUILD PREFIX LIBDIR CONSUMER_C VERSION SANITIZE
set -u
build=$1 prefix=$2 libdir=$3 consumer=$4 version=$5 sanitize=$6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

case "$prefix" in
  /usr | /usr/*)
    meson install -C "$build" --destdir "$tmp/stage" --no-rebuild --quiet >/dev/null || exit 1
    P="$tmp/stage$prefix"
    pcdef="--define-variable=prefix=$P" ;;
  *)
    meson install -C "$build" --no-rebuild --quiet >/dev/null || exit 1
    P="$prefix"
    pcdef="" ;;
esac
echo "installed tree: $P"
# from here on, nothing of the build or the source tree: the environment a user sets
export PKG_CONFIG_PATH="$P/$libdir/pkgconfig"
unset LD_LIBRARY_PATH FCD_LIBRARY PYTHONPATH
san=""
[ "$sanitize" = none ] || san="-fsanitize=$sanitize"

# the program, through its RPATH
out=$("$P/bin/fcd" --version 2>&1) || bad "installed fcd --version: $out"
echo "$out" | grep -q "^fcd $version" || bad "installed fcd says: $out"

# a shared consumer: pkg-config, and the loader told where the library is
cflags=$(pkg-config $pcdef --cflags fcd) libs=$(pkg-config $pcdef --libs fcd) ||
  bad "pkg-config does not find fcd in $PKG_CONFIG_PATH"
cc -std=c11 -Wall -Wextra -Werror $san $cflags "$consumer" -o "$tmp/shared" $libs \
  -Wl,-rpath,"$P/$libdir" -lm || bad "shared consumer does not build"
"$tmp/shared" "$version" >/dev/null || bad "shared consumer does not run"

# a static consumer: libfcd.a and what pkg-config --static lists for it
if [ "$sanitize" = none ]; then
  slibs=$(pkg-config $pcdef --static --libs fcd | sed 's/ -lfcd / /; s/^-L[^ ]* -lfcd //')
  cc -std=c11 -Wall -Wextra -Werror $cflags "$consumer" -o "$tmp/static" \
    "$P/$libdir/libfcd.a" $slibs -lm || bad "static consumer does not link"
  if [ -x "$tmp/static" ]; then
    ldd "$tmp/static" | grep -q libfcd && bad "the static consumer loads libfcd.so"
    "$tmp/static" "$version" >/dev/null || bad "static consumer does not run"
  fi
fi

# CMake: find_package(fcd) with CMAKE_PREFIX_PATH, shared and static targets
if command -v cmake >/dev/null 2>&1 && [ "$sanitize" = none ]; then
  mkdir -p "$tmp/cm"
  cp "$consumer" "$tmp/cm/consumer.c"
  cat > "$tmp/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(host C)
find_package(fcd 0.1 REQUIRED)
add_executable(host_shared consumer.c)
target_link_libraries(host_shared PRIVATE fcd::fcd m)
add_executable(host_static consumer.c)
target_link_libraries(host_static PRIVATE fcd::fcd_static m)
CM
  if CMAKE_PREFIX_PATH="$P" cmake -S "$tmp/cm" -B "$tmp/cm/b" >"$tmp/cm.log" 2>&1 &&
     cmake --build "$tmp/cm/b" >>"$tmp/cm.log" 2>&1; then
    "$tmp/cm/b/host_shared" "$version" >/dev/null || bad "CMake shared consumer does not run"
    ldd "$tmp/cm/b/host_static" | grep -q libfcd && bad "the CMake static consumer loads libfcd.so"
    "$tmp/cm/b/host_static" "$version" >/dev/null || bad "CMake static consumer does not run"
  else
    bad "CMake consumers: $(tail -n 20 "$tmp/cm.log")"
  fi
fi

# Python from the prefix's site-packages, the library found without FCD_LIBRARY
if [ "$sanitize" = none ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  site=$(find "$P" -path '*/fcd/__init__.py' | head -n 1)
  if [ -z "$site" ]; then
    bad "the Python package was not installed"
  else
    site=$(dirname "$(dirname "$site")")
    out=$(cd "$tmp" && PYTHONPATH="$site" /usr/bin/python3 -c '
import fcd, sys
s = fcd.System(2)
print(fcd.library_path)
' 2>&1) || bad "python from the prefix: $out"
    case "$out" in "$P"/*) ;; *) bad "python loaded libfcd from outside the prefix: $out";; esac
  fi
fi

# the manual
if command -v man >/dev/null 2>&1; then
  MANPAGER=cat man -M "$P/share/man" fcd 2>/dev/null | grep -q "frictional contact" ||
    bad "man -M $P/share/man fcd shows nothing"
fi

[ $fails -eq 0 ] || { echo "prefix install: $fails failed"; exit 1; }
echo "prefix install: ok ($P)"
