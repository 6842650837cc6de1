#!/bin/sh
# `fcd demo` (the README's main job) runs, writes at least three PNG plots, prints where
# they are, and its numbers hold: beam frequencies against Euler-Bernoulli theory, the
# pin's flutter threshold against its closed form, Fremond never creating energy.
set -u
fcd=$1
dir=$2
rm -rf "$dir"
out=$("$fcd" demo --out "$dir") || { echo "fcd demo failed"; echo "$out"; exit 1; }
echo "$out"
n=$(find "$dir" -name '*.png' -size +1k | wc -l)
[ "$n" -ge 3 ] || { echo "only $n PNG plots"; exit 1; }
echo "$out" | grep -q "plots under $dir" || { echo "no line saying where"; exit 1; }
# relative errors of the four beam frequencies (discretization: below 1e-5)
awk -F, 'NR > 1 && $4 > 1e-5 { bad = 1 } END { exit bad }' "$dir/frequencies.csv" ||
  { echo "beam frequencies off"; exit 1; }
echo "$out" | awk '/flutter from mu =/ { a = $5; b = $8; sub(/\);/, "", b); d = a - b; if (d < 0) d = -d;
  found = 1; if (d > 1e-5) exit 1 } END { if (!found) exit 1 }' || { echo "flutter threshold off"; exit 1; }
echo "$out" | awk '/largest energy created/ { g = $(NF - 4); if (g + 0 > 1e-12) exit 1; found = 1 }
  END { if (!found) exit 1 }' || { echo "Fremond created energy"; exit 1; }
echo "fcd demo: ok ($n plots)"
