#!/bin/sh
# `fcd lattice --count-only` prints the published sizes of seed 001's lattices (section 6:
# 150 / 527 / 21 / 248 and 157 / 404 / 21 / 111) on one line, and refuses bad input.
set -u
fcd=$1
out=$("$fcd" lattice --rect 10x15 --count-only) || { echo "rect failed"; exit 1; }
[ "$out" = "nodes=150 springs=527 constraints=21 selfstress_dim=248" ] || { echo "rect: $out"; exit 1; }
out=$("$fcd" lattice --tri 10x15 --h 1.1 --s 0.2 --count-only) || { echo "tri failed"; exit 1; }
[ "$out" = "nodes=157 springs=404 constraints=21 selfstress_dim=111" ] || { echo "tri: $out"; exit 1; }
out=$("$fcd" lattice --rect 10x15 --defect 94:0.3,-0.35 --count-only) || { echo "defect"; exit 1; }
[ "$out" = "nodes=150 springs=527 constraints=21 selfstress_dim=248" ] || { echo "defect: $out"; exit 1; }
"$fcd" lattice --rect 10x15 --c0 0 --count-only >/dev/null 2>&1; [ $? -eq 1 ] || { echo "c0 = 0 accepted"; exit 1; }
"$fcd" lattice --rect 1x15 --count-only >/dev/null 2>&1; [ $? -eq 2 ] || { echo "1x15 accepted"; exit 1; }
"$fcd" lattice --rect 10x15 --defect 20:-1,0 --count-only >/dev/null 2>&1  # onto node 5
[ $? -eq 1 ] || { echo "a defect onto a neighbour accepted"; exit 1; }
echo "fcd lattice: ok"
