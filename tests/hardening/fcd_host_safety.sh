#!/bin/sh
# Issue 19: the fcd program never runs a user's text as a command, never loses an output
# file, never exits 0 without an output that was asked for, and reads hostile input with
# a message. Each block failed before the fix.
set -u
fcd=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=${FCD_TEST_TMPDIR:-/tmp}/host_safety
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir" || exit 1
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# the pin on a flat (seed 000 Ex. 4.6), as in tests/stability/fcd_stability.sh
printf '%%%%MatrixMarket matrix coordinate real symmetric\n4 4 8\n1 1 1\n2 1 0.1\n3 1 -1\n2 2 0.0296\n3 2 -0.1\n4 2 0.0294\n3 3 1\n4 4 0.0588\n' > K.mtx
printf '%%%%MatrixMarket matrix coordinate real symmetric\n4 4 5\n1 1 3\n2 2 0.025\n3 2 -0.05\n3 3 1\n4 4 1\n' > M.mtx
printf '0\n0\n0\n0.01\n' > f.txt
printf '0 0.3\n' > fixed.txt
printf 'fcd-contacts 1\ndim 2\nrigid 2 3   0 1   1 0   0 2.2   0.015\n' > pull.txt
stab() { "$fcd" stability --mass M.mtx --stiffness K.mtx --fixed fixed.txt --load f.txt \
           --contacts pull.txt --steady-sliding --nev 4 "$@"; }

# 4. gnuplot injection: quotes in --plot, --out and the lattice directory run nothing
if command -v gnuplot >/dev/null 2>&1; then
  evil="x';system('touch PWNED');print('.png"
  out=$(stab --out chart.csv --plot "$evil" 2>&1) || bad "stability --plot with a quote: $out"
  [ ! -e PWNED ] || bad "a file name ran a command through gnuplot"
  [ -s "$evil" ] || bad "the plot was not written under its hostile name"
  mkdir -p "bob's"
  out=$(stab --out "bob's/chart.csv" --plot "bob's/c.png") || bad "bob's: $out"
  [ -s "bob's/c.png" ] || bad "bob's/c.png not written"
  case "$out" in *PNG*) bad "the image went to stdout";; esac
  ldir="l';system('touch PWNED2');print('"
  "$fcd" lattice --rect 3x3 --dt 0.01 --t-end 0.05 --out "$ldir" >/dev/null 2>&1 ||
    bad "lattice into a directory with a quote"
  [ ! -e PWNED2 ] && [ ! -e "$ldir/PWNED2" ] || bad "the lattice directory ran a command"
  [ -s "$ldir/damage.png" ] || bad "the lattice damage plot was not written"
  ls -a . "$ldir" | grep -q fcd-plot && bad "a plot work directory was left behind"
fi

# 9. --plot without gnuplot: a non-zero exit, said before the work is done
out=$(PATH=/nonexistent stab --out c9.csv --plot c9.png 2>&1); rc=$?
[ $rc -ne 0 ] || bad "--plot without gnuplot exited 0"
echo "$out" | grep -q "gnuplot" || bad "no word of gnuplot: $out"
# --vtk with --mu writes nothing: a usage error, and no directory
printf '# vtk DataFile Version 3.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 2 double\n0 0 0\n1 0 0\nCELLS 1 3\n2 0 1\nCELL_TYPES 1\n3\n' > mesh.vtk
"$fcd" stability --mass M.mtx --stiffness K.mtx --fixed fixed.txt --load f.txt \
  --contacts pull.txt --steady-sliding --mu 1 --out c10.csv --mesh mesh.vtk --vtk vdir \
  >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || bad "--vtk with --mu: exit $rc, expected 2"
[ ! -e vdir ] || bad "--vtk with --mu created its directory"

# 5. a failed run leaves the previous output as it was, and no partial file
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 2.0\n2 2 2.0\n' > M2.mtx
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 1 50.0\n' > K2.mtx
printf 'fcd-contacts 1\ndim 2\nrigid 0 1   0 -1   1 0   0.05 0.4\n' > c2.txt
# two masses on a spring, dropped on a rough floor; one contact iteration per step cannot
# solve the coupled impact, so the run fails at t = 0.11 after 10 good steps
printf '%%%%MatrixMarket matrix coordinate real symmetric\n4 4 4\n1 1 1\n2 2 1\n3 3 1\n4 4 1\n' > M4.mtx
printf '%%%%MatrixMarket matrix coordinate real symmetric\n4 4 6\n1 1 100\n3 1 -100\n3 3 100\n2 2 100\n4 2 -100\n4 4 100\n' > K4.mtx
printf '0\n-9.81\n0\n-9.81\n' > f4.txt
printf 'fcd-contacts 1\ndim 2\nrigid 0 1   0 -1   1 0   0.05 0.4\nrigid 2 3   0 -1   1 0   0.05 0.4\n' > c4.txt
printf '0\n-0.02\n0\n0.02\n' > u4.txt
echo "previous history" > history.csv
out=$("$fcd" simulate --mass M4.mtx --stiffness K4.mtx --load f4.txt --u0 u4.txt --contacts c4.txt \
  --dt 1e-2 --t-end 1 --max-iter 1 --out history.csv --mesh mesh.vtk --vtk sdir 2>&1); rc=$?
[ $rc -eq 1 ] || bad "simulate failing at its first impact: exit $rc"
echo "$out" | grep -q 't = 0.11' || bad "the failing step is not named: $out"
[ "$(cat history.csv)" = "previous history" ] || bad "a failed simulate changed the history"
[ ! -e sdir ] || bad "a failed simulate created its --vtk directory"
ls | grep -q 'history.csv.tmp' && bad "a failed simulate left a temporary file"
# stability: every free dof of this 2-dof model is held by a stuck contact, so the
# reduced pencil is empty and the solve fails
printf 'fcd-contacts 1\ndim 2\nrigid 0 1   0 1   1 0   0 0.5\n' > c3.txt
printf 'contact,status,slip_t,slip_b\n0,stick,0,0\n' > stuck.csv
echo "previous chart" > chart3.csv
"$fcd" stability --mass M2.mtx --stiffness K2.mtx --contacts c3.txt --state stuck.csv \
  --out chart3.csv >/dev/null 2>&1; rc=$?
[ $rc -ne 0 ] || bad "stability on an empty pencil exited 0"
[ "$(cat chart3.csv)" = "previous chart" ] || bad "a failed stability changed the chart"

# 7. parser defects
"$fcd" simulate --mass M2.mtx --stiffness K2.mtx --contacts c2.txt --dt 0.01 --t-end 0.1 \
  --rayleigh 0.1,0.2junk --out h7.csv >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || bad "--rayleigh 0.1,0.2junk: exit $rc, expected 2"
{ printf 'contact,status,slip_t,slip_b\n0,stick,0,0'; head -c 5000 /dev/zero | tr '\0' ' '; printf '\n'; } > long.csv
out=$("$fcd" stability --mass M2.mtx --stiffness K2.mtx --contacts c3.txt --state long.csv \
      --out c7.csv 2>&1)
echo "$out" | grep -q 'long.csv:3' && bad "a long state line was split: $out"
printf 'fcd-contacts 1\ndim 2\nrigid 0 1 2   0 1   1 0   0 0.5\n' > c7.txt
out=$("$fcd" simulate --mass M2.mtx --stiffness K2.mtx --contacts c7.txt --dt 0.01 --t-end 0.1 \
      --out h8.csv 2>&1)
echo "$out" | grep -q 'fields' || bad "a rigid line with 3 dofs in 2D does not count its fields: $out"
{ printf 'fcd-contacts 1\ndim 2\nrigid'; i=0; while [ $i -lt 40 ]; do printf ' 1'; i=$((i + 1)); done; printf '\n'; } > c8.txt
out=$("$fcd" simulate --mass M2.mtx --stiffness K2.mtx --contacts c8.txt --dt 0.01 --t-end 0.1 \
      --out h9.csv 2>&1)
echo "$out" | grep -q 'not 40' || bad "an over-long contact line is not counted: $out"

# 2. a 74-byte header asking for 2^31 dofs: a message, not the kernel's OOM killer
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2147483648 2147483648 0\n' > huge.mtx
out=$("$fcd" info --mass huge.mtx --stiffness huge.mtx 2>&1); rc=$?
[ $rc -eq 1 ] || bad "huge header: exit $rc"
echo "$out" | grep -q '2147483648 dofs' || bad "huge header: $out"

# 3. /dev/zero and a directory as input files
out=$("$fcd" simulate --mass M2.mtx --stiffness K2.mtx --contacts /dev/zero --dt 0.01 --t-end 0.1 \
      --out h10.csv 2>&1); rc=$?
[ $rc -eq 1 ] || bad "/dev/zero as contacts: exit $rc"
echo "$out" | grep -q 'NUL byte' || bad "/dev/zero as contacts: $out"
out=$("$fcd" info --mass M2.mtx --stiffness . 2>&1)
echo "$out" | grep -q 'directory' || bad "a directory as a matrix: $out"

[ $fails -eq 0 ] || { echo "fcd host safety: $fails failed"; exit 1; }
echo "fcd host safety: ok"
