#!/usr/bin/env bash
# Order independence of the test suite (issue 25). Usage:
#   scripts/suites-alone.sh BUILD LOGDIR
# BUILD is a configured and compiled build directory in which no test has run yet. For
# each suite (from `meson test --list`), BUILD is restored to that pristine state and the
# suite runs alone; then, once more from the pristine state, every test runs in the
# reverse of the defined order. The test logs are kept as LOGDIR/meson-logs/testlog-*.json
# (the format the CI counts), and BUILD is left pristine again; exits 1 when a test
# failed, 2 when a run left no log.
set -uo pipefail
build=$(cd "$1" && pwd) || exit 2
logdir=$2
mkdir -p "$logdir/meson-logs"
# the copy goes back to the same path: meson's files and the tests' environment name
# the build directory absolutely
pristine="$build.pristine"
rm -rf "$pristine"
cp -a "$build" "$pristine" || exit 2

restore() {
  rm -rf "$build" && cp -a "$pristine" "$build"
}

list=$(meson test -C "$build" --no-rebuild --list 2>/dev/null | grep ' / ') || exit 2
# suite more_ranks: programs that run here on 1 to 3 ranks, again on 4 and 5; their
# order independence is that of the same programs, so those runs are left out here
skip=more_ranks
list=$(echo "$list" | grep -v "[:+]$skip[+ ]")
suites=$(echo "$list" | sed 's/^[^:]*:\([^ ]*\) \/ .*/\1/' | tr '+' '\n' | sort -u)
# test names in the order meson defines them; reversed for the last run
names=$(echo "$list" | sed 's/^.* \/ //' | awk '!seen[$0]++')
reversed=$(echo "$names" | tac)

bad=0
nolog=0
for s in $suites; do
  restore || exit 2
  echo "=== suite $s alone, in a fresh build directory"
  if ! meson test -C "$build" --no-rebuild --print-errorlogs --num-processes 2 \
       --logbase "testlog-alone-$s" --suite "$s" --no-suite "$skip"; then
    echo "=== suite $s FAILED when run alone"
    bad=1
  fi
  cp "$build/meson-logs/testlog-alone-$s.json" "$logdir/meson-logs/" 2>/dev/null ||
    { echo "=== suite $s: no test log"; nolog=1; }
done

restore || exit 2
echo "=== every test, in reverse order, in a fresh build directory"
# shellcheck disable=SC2086  # one argument per test name
if ! meson test -C "$build" --no-rebuild --print-errorlogs --num-processes 2 \
     --logbase testlog-reversed $reversed; then
  echo "=== the reversed run FAILED"
  bad=1
fi
cp "$build/meson-logs/testlog-reversed.json" "$logdir/meson-logs/" 2>/dev/null ||
  { echo "=== reversed run: no test log"; nolog=1; }
# BUILD goes back as it came, with no test log in it: a caller that later counts BUILD's
# logs must not count these runs a second time (they are in LOGDIR)
restore || exit 2
rm -rf "$pristine"
[ $nolog -eq 0 ] || exit 2
exit $bad
