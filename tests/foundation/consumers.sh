#!/bin/sh
# The ways a host project finds fcd (issue 11), each building and running the consumer
# program against an installed prefix or the source tree:
#   cmake      find_package(fcd 0.1) and the imported target fcd::fcd; a request for
#              an incompatible version (0.2, 1.0) must fail to configure
#   meson      dependency('fcd', version: ...) through pkg-config
#   subproject dependency('fcd') falling back to fcd as a meson subproject
# usage: consumers.sh KIND BUILD_DIR SOURCE_DIR CONSUMER_C VERSION [SANITIZE]
set -eu
kind=$1 build=$2 src=$3 consumer=$4 version=$5 sanitize=${6:-none}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
major_minor=$(echo "$version" | cut -d. -f1,2)
san_c="" san_l=""
if [ "$sanitize" != none ]; then
  san_c="-fsanitize=$sanitize"
  san_l="-fsanitize=$sanitize"
fi
mkdir -p "$tmp/proj"
cp "$consumer" "$tmp/proj/consumer.c"

install_tree() {
  meson install -C "$build" --destdir "$tmp/dest" --no-rebuild --quiet >/dev/null
  pc=$(find "$tmp/dest" -name fcd.pc | head -n 1)
  [ -n "$pc" ] || { echo "fcd.pc was not installed"; exit 1; }
  prefix=$(sed -n 's/^prefix=//p' "$pc")
  root="$tmp/dest$prefix"
  libdir=$(dirname "$(dirname "$pc")")
}

case "$kind" in
cmake)
  command -v cmake >/dev/null || { echo "cmake not installed: skipped"; exit 77; }
  install_tree
  [ -f "$libdir/cmake/fcd/fcdConfig.cmake" ] || { echo "no fcdConfig.cmake under $libdir"; exit 1; }
  write_lists() {
    cat > "$tmp/proj/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.13)
project(consumer C)
find_package(fcd $1 REQUIRED)
add_executable(consumer consumer.c)
target_compile_options(consumer PRIVATE -std=c11 -Wall -Wextra -Werror $san_c)
target_link_options(consumer PRIVATE $san_l)
target_link_libraries(consumer PRIVATE fcd::fcd m)
EOF
  }
  write_lists "$major_minor"
  cmake -S "$tmp/proj" -B "$tmp/b" -DCMAKE_PREFIX_PATH="$root" >"$tmp/log" 2>&1 ||
    { cat "$tmp/log"; echo "find_package(fcd $major_minor) failed"; exit 1; }
  cmake --build "$tmp/b" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
  "$tmp/b/consumer" "$version"
  # the package must refuse what docs/abi-policy.md calls incompatible
  for bad in 0.0 0.99 1.0; do
    write_lists "$bad"
    rm -rf "$tmp/b"
    if cmake -S "$tmp/proj" -B "$tmp/b" -DCMAKE_PREFIX_PATH="$root" >"$tmp/log" 2>&1; then
      echo "find_package(fcd $bad) accepted fcd $version"
      exit 1
    fi
  done
  echo "CMake: find_package(fcd $major_minor) and fcd::fcd work; 0.0, 0.99 and 1.0 are refused"
  ;;
meson)
  install_tree
  cat > "$tmp/proj/meson.build" <<EOF
project('consumer', 'c', default_options: ['c_std=c11', 'warning_level=2', 'werror=true'])
fcd = dependency('fcd', version: '>= $major_minor', method: 'pkg-config')
executable('consumer', 'consumer.c', dependencies: [fcd, meson.get_compiler('c').find_library('m')])
EOF
  # the .pc file says prefix=$prefix: the sysroot maps it into the scratch tree
  PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$tmp/dest" \
    meson setup "$tmp/b" "$tmp/proj" -Db_sanitize="$sanitize" -Db_lundef=false >"$tmp/log" 2>&1 ||
    { cat "$tmp/log"; exit 1; }
  ninja -C "$tmp/b" >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
  LD_LIBRARY_PATH="$libdir" "$tmp/b/consumer" "$version"
  echo "meson: dependency('fcd') through pkg-config works"
  ;;
subproject)
  mkdir -p "$tmp/proj/subprojects"
  ln -s "$src" "$tmp/proj/subprojects/fcd"
  cat > "$tmp/proj/meson.build" <<EOF
project('consumer', 'c', default_options: ['c_std=c11', 'warning_level=2'])
fcd = dependency('fcd', version: '>= $major_minor', fallback: ['fcd', 'fcd_dep'],
                 default_options: ['tests=false', 'bench=false', 'werror=false'])
executable('consumer', 'consumer.c', dependencies: [fcd, meson.get_compiler('c').find_library('m')])
EOF
  meson setup "$tmp/b" "$tmp/proj" --wrap-mode=forcefallback -Db_sanitize="$sanitize" \
    -Db_lundef=false >"$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
  grep -Eq "Dependency fcd (from subproject|found: YES .*\(overridden\))" "$tmp/log" ||
    { cat "$tmp/log"; echo "fcd did not come from the subproject"; exit 1; }
  ninja -C "$tmp/b" consumer >"$tmp/log" 2>&1 || { tail -40 "$tmp/log"; exit 1; }
  "$tmp/b/consumer" "$version"
  echo "meson: dependency('fcd') with fcd as a subproject works"
  ;;
*)
  echo "unknown kind $kind"
  exit 2
  ;;
esac
