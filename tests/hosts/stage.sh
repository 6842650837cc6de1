# Sourced by the hosts' prefix tests (usage of each: SCRIPT BUILD PREFIX SOURCE): a fresh
# scratch directory $tmp, the build installed into $tmp/stage as `meson install` would
# install it to PREFIX, $P the staged prefix, and the host NAME of examples/hosts copied
# to $tmp/host, away from the source tree. Call: stage_host NAME "$@"
set -u
stage_host() {
  host=$1 build=$2 prefix=$3 src=$4
  tmp=${FCD_TEST_TMPDIR:?}
  rm -rf "$tmp"
  mkdir -p "$tmp"
  meson install -C "$build" --destdir "$tmp/stage" --no-rebuild --quiet >/dev/null ||
    { echo "meson install failed"; exit 1; }
  P="$tmp/stage$prefix"
  cp -r "$src/examples/hosts/$host" "$tmp/host"
}
