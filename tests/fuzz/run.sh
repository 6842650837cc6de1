#!/bin/sh
# run.sh HARNESS CORPUS SECONDS: fuzzes for SECONDS, starting from the committed corpus
# (read only) and keeping what it finds in a scratch corpus beside the harness. A crash
# leaves crash-* in the current directory and fails the run.
set -eu
harness=$1
corpus=$2
seconds=$3
work="$(dirname "$harness")/work-$(basename "$harness")"
# any sanitizer report is a finding: stop on it and leave the input (UBSan recovers by
# default, which would let a report scroll by with exit status 0)
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
mkdir -p "$work"
exec "$harness" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
  -print_final_stats=1 "$work" "$corpus"
