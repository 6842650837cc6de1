#!/bin/sh
# `mpiexec -n N fcd equilibrium|stability|simulate` (N = 2, 3) against the serial `fcd` on the
# block of test_distributed (902 dofs, 41 contacts on a flat, the top clamped and
# pushed), from Matrix Market files (rank 0 reads them) and from PETSc binary files (each
# rank reads its rows): the same state file (statuses, slip directions, reactions, gaps) and the same
# displacements to 1e-10 relative, the same stability chart and simulation history to
# 1e-8 (they are printed to 10 digits); a command that does
# not run on several ranks says so; a missing file fails on every rank without a hang.
# usage: fcd_mpi.sh FCD TEST_DISTRIBUTED MPIEXEC [quick]
# quick (the sanitized builds, where each run takes ten times as long): each comparison
# on one rank count, 3 (2 for the PETSc binary files), instead of every one; the same
# code runs, fewer times
set -u
fcd=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
model=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
mpiexec=$3
ranks="2 3" pranks="1 2 3"
[ "${4:-}" = quick ] && ranks=3 pranks=2
dir=${FCD_TEST_TMPDIR:-/tmp}/fcd_mpi
mkdir -p "$dir"
cd "$dir" || exit 1
rm -f ./*.csv ./*.txt ./*.mtx ./*.petsc
"$model" --write . || { echo "writing the model failed"; exit 1; }
run() { timeout 300 "$@"; }
args="--stiffness K.mtx --fixed fixed.txt --contacts contacts.txt --kind steady-sliding"
# shellcheck disable=SC2086
run "$fcd" equilibrium $args --out s1.csv --displacements u1.txt > out1.txt ||
  { cat out1.txt; echo "serial equilibrium failed"; exit 1; }
# numbers of two files, field by field: the largest difference relative to the largest
# magnitude of the column (text fields must be equal)
same() { # file1 file2 tol
  awk -F, -v tol="$3" 'NR == FNR { for (i = 1; i <= NF; i++) a[FNR, i] = $i; n = FNR; next }
    { for (i = 1; i <= NF; i++) {
        x = a[FNR, i]; y = $i
        if (x ~ /^[-+0-9.eE]+$/ && y ~ /^[-+0-9.eE]+$/) {
          d = x - y; if (d < 0) d = -d; diff[i] = d > diff[i] ? d : diff[i]
          m = x < 0 ? -x : x; big[i] = m > big[i] ? m : big[i]
        } else if (x != y) { print "field " i " of line " FNR ": " x " vs " y; bad = 1 } } }
    END { if (FNR != n) { print "line counts " n " and " FNR; bad = 1 }
          for (i in diff) if (diff[i] > tol * (big[i] > 0 ? big[i] : 1)) {
            print "column " i ": difference " diff[i] " of " big[i]; bad = 1 }
          exit bad }' "$1" "$2"
}
for np in $ranks; do
  # shellcheck disable=SC2086
  run "$mpiexec" --oversubscribe -n $np "$fcd" equilibrium $args --out s$np.csv \
    --displacements u$np.txt > out$np.txt 2> err$np.txt ||
    { cat out$np.txt err$np.txt; echo "equilibrium on $np ranks failed"; exit 1; }
  [ "$(grep -c '^equilibrium:' out$np.txt)" -eq 1 ] ||
    { cat out$np.txt; echo "$np ranks: one summary line expected (rank 0's)"; exit 1; }
  same s1.csv s$np.csv 1e-10 || { echo "state differs on $np ranks"; exit 1; }
  same u1.txt u$np.txt 1e-10 || { echo "displacements differ on $np ranks"; exit 1; }
  grep -o 'open=[0-9]* stick=[0-9]* slip=[0-9]*' out$np.txt
done
grep -q 'slip=4[01]' out1.txt || { cat out1.txt; echo "expected the contacts to slide"; exit 1; }
# the same model from PETSc binary files (every rank reads its own rows; the Matrix
# Market runs above had rank 0 read and send each rank its rows): the serial answer
pargs="--stiffness K.petsc --fixed fixed.txt --contacts contacts.txt --kind steady-sliding"
for np in $pranks; do
  # shellcheck disable=SC2086
  run "$mpiexec" --oversubscribe -n $np "$fcd" equilibrium $pargs --out p$np.csv \
    --displacements pu$np.txt > pout$np.txt 2>&1 ||
    { cat pout$np.txt; echo "equilibrium from PETSc binary on $np ranks failed"; exit 1; }
  same s1.csv p$np.csv 1e-10 || { echo "state from PETSc binary differs on $np ranks"; exit 1; }
  same u1.txt pu$np.txt 1e-10 ||
    { echo "displacements from PETSc binary differ on $np ranks"; exit 1; }
done
# a PETSc binary file whose last entry's column is out of range: only the last rank's rows
# hold it; that rank says so, every rank stops, none hangs, nothing is written
/usr/bin/python3 - <<'PY' || { echo "writing the damaged file failed"; exit 1; }
import struct
b = bytearray(open("K.petsc", "rb").read())
nr, nc, nz = struct.unpack(">iii", b[4:16])
off = 16 + 4 * nr + 4 * (nz - 1)
b[off:off + 4] = struct.pack(">i", nc + 7)
open("Kcol.petsc", "wb").write(b)
PY
run "$mpiexec" --oversubscribe -n 2 "$fcd" equilibrium --stiffness Kcol.petsc \
  --fixed fixed.txt --contacts contacts.txt --out p9.csv > pout9.txt 2>&1; rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || { cat pout9.txt; echo "damaged file: status $rc"; exit 1; }
[ "$(grep -c 'has column 909, outside' pout9.txt)" -eq 1 ] ||
  { cat pout9.txt; echo "damaged file: the owning rank's message expected once"; exit 1; }
[ ! -e p9.csv ] || { echo "a state was written for a failed run"; exit 1; }
# stability from the equilibrium's state: the chart of 2 ranks is the serial one
sargs="--mass M.mtx --stiffness K.mtx --fixed fixed.txt --contacts contacts.txt --state s1.csv --nev 6"
# shellcheck disable=SC2086
run "$fcd" stability $sargs --out c1.csv > sout1.txt || { cat sout1.txt; exit 1; }
# shellcheck disable=SC2086
run "$mpiexec" --oversubscribe -n 2 "$fcd" stability $sargs --out c2.csv > sout2.txt ||
  { cat sout2.txt; echo "stability on 2 ranks failed"; exit 1; }
same c1.csv c2.csv 1e-8 || { echo "stability chart differs on 2 ranks"; exit 1; }
# shellcheck disable=SC2086
run "$mpiexec" --oversubscribe -n 2 "$fcd" stability --mass M.petsc --stiffness K.petsc \
  --fixed fixed.txt --contacts contacts.txt --state s1.csv --nev 6 --out cp.csv > spout.txt ||
  { cat spout.txt; echo "stability from PETSc binary on 2 ranks failed"; exit 1; }
same c1.csv cp.csv 1e-8 || { echo "stability chart from PETSc binary differs"; exit 1; }
# a friction sweep: its coefficients shared out over 2 and 3 ranks, the serial chart
# shellcheck disable=SC2086
run "$fcd" stability $sargs --mu-sweep 0.1:0.6:5 --out w1.csv > wout1.txt ||
  { cat wout1.txt; exit 1; }
for np in $ranks; do
  # shellcheck disable=SC2086
  run "$mpiexec" --oversubscribe -n $np "$fcd" stability $sargs --mu-sweep 0.1:0.6:5 \
    --out w$np.csv > wout$np.txt || { cat wout$np.txt; echo "sweep on $np ranks failed"; exit 1; }
  same w1.csv w$np.csv 1e-8 || { echo "sweep chart differs on $np ranks"; exit 1; }
done
[ "$(tail -n +2 w1.csv | cut -d, -f1 | sort -u | wc -l)" -eq 5 ] ||
  { cat w1.csv; echo "sweep: 5 coefficients expected"; exit 1; }
# 50 steps of Moreau-Jean from rest, the top pushed down at once: the history (energy
# ledger and contact counts per step, printed to 10 digits) of 2 and 3 ranks is the
# serial one
margs="--mass M.mtx --stiffness K.mtx --fixed fixed.txt --contacts contacts.txt --dt 1e-3 --t-end 0.05"
# shellcheck disable=SC2086
run "$fcd" simulate $margs --out h1.csv > mout1.txt || { cat mout1.txt; exit 1; }
for np in $ranks; do
  # shellcheck disable=SC2086
  run "$mpiexec" --oversubscribe -n $np "$fcd" simulate $margs --out h$np.csv > mout$np.txt ||
    { cat mout$np.txt; echo "simulate on $np ranks failed"; exit 1; }
  same h1.csv h$np.csv 1e-8 || { echo "history differs on $np ranks"; exit 1; }
  [ "$(grep -c '^simulated:' mout$np.txt)" -eq 1 ] || { echo "$np ranks: one summary"; exit 1; }
done
# --series: rank 0 writes the frames (the start and every 10 steps), the serial run's to
# 1e-8 (VTK's reader, python3-vtk9)
# shellcheck disable=SC2086
run "$fcd" simulate $margs --out hs1.csv --mesh mesh.vtk --series ser1 --every 10 > sout1.txt ||
  { cat sout1.txt; echo "serial simulate --series failed"; exit 1; }
np=${ranks##* }
# shellcheck disable=SC2086
run "$mpiexec" --oversubscribe -n $np "$fcd" simulate $margs --out hs$np.csv --mesh mesh.vtk \
  --series ser$np --every 10 > sout$np.txt ||
  { cat sout$np.txt; echo "simulate --series on $np ranks failed"; exit 1; }
[ "$(grep -c '^series: ser'$np'/series.pvd (6 frames)' sout$np.txt)" -eq 1 ] ||
  { cat sout$np.txt; echo "$np ranks: one series of 6 frames, said once"; exit 1; }
/usr/bin/python3 - ser1 ser$np <<'PY' || { echo "series differ on $np ranks"; exit 1; }
import sys
import xml.etree.ElementTree as ET
import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy
def frames(d):
    sets = ET.parse(d + "/series.pvd").getroot().find("Collection").findall("DataSet")
    out = []
    for s in sets:
        rd = vtk.vtkXMLUnstructuredGridReader()
        rd.SetFileName(d + "/" + s.get("file"))
        rd.Update()
        pd = rd.GetOutput().GetPointData()
        out.append((float(s.get("timestep")),
                    {pd.GetArrayName(k): vtk_to_numpy(pd.GetArray(k)) for k in range(pd.GetNumberOfArrays())}))
    return out
a, b = frames(sys.argv[1]), frames(sys.argv[2])
assert len(a) == len(b) == 6, (len(a), len(b))
for (ta, fa), (tb, fb) in zip(a, b):
    assert ta == tb and fa.keys() == fb.keys(), (ta, tb, sorted(fa), sorted(fb))
    for k in fa:
        x, y = np.nan_to_num(fa[k]), np.nan_to_num(fb[k])
        assert np.abs(x - y).max() <= 1e-8 * max(np.abs(x).max(), 1e-300), (ta, k)
PY
# the same from PETSc binary files, mass and stiffness
run "$mpiexec" --oversubscribe -n 2 "$fcd" simulate --mass M.petsc --stiffness K.petsc \
  --fixed fixed.txt --contacts contacts.txt --dt 1e-3 --t-end 0.05 --out hp.csv > mpout.txt ||
  { cat mpout.txt; echo "simulate from PETSc binary on 2 ranks failed"; exit 1; }
same h1.csv hp.csv 1e-8 || { echo "history from PETSc binary differs"; exit 1; }
[ "$(wc -l < h1.csv)" -eq 51 ] || { echo "history of $(wc -l < h1.csv) lines"; exit 1; }
awk -F, 'NR > 1 && $10 + $11 > 0 { c = 1 } END { exit !c }' h1.csv ||
  { echo "no contact ever closed"; exit 1; }
# issue 64: a contact that carries the whole load at zero displacement (a chain of 6
# nodes on ground springs, node 2 resting on a flat and pushed into it: u = 0, r_n = -0.01
# exactly, so u_N is round-off of either sign). Its status comes from its reaction, the
# same on every rank count ("open" with u_N = -1.2e-16 on two ranks, "stick" serially,
# and the stability analysis of the two-rank file lost the contact); the states and the
# spectra from them agree
{
  echo '%%MatrixMarket matrix coordinate real symmetric'
  echo '12 12 22'
  i=1; while [ $i -le 12 ]; do echo "$i $i 2"; [ $i -lt 11 ] && echo "$((i + 2)) $i -1"; i=$((i + 1)); done
} > Kc.mtx
printf '%%%%MatrixMarket matrix coordinate real symmetric\n12 12 12\n' > Mc.mtx
i=1; while [ $i -le 12 ]; do echo "$i $i 1" >> Mc.mtx; i=$((i + 1)); done
printf '0\n0\n0\n0\n0.001\n-0.01\n0\n0\n0\n0\n0\n0\n' > fc.txt
printf 'fcd-contacts 1\ndim 2\nrigid 4 5  0 -1  1 0  0 0.5\n' > cc.txt
cargs="--stiffness Kc.mtx --load fc.txt --contacts cc.txt"
# shellcheck disable=SC2086
run "$fcd" equilibrium $cargs --out z1.csv > zout1.txt || { cat zout1.txt; exit 1; }
[ "$(sed -n 2p z1.csv | cut -d, -f2)" = stick ] || { cat z1.csv; echo "not stuck"; exit 1; }
run "$fcd" stability --mass Mc.mtx $cargs --state z1.csv --out y1.csv > yout1.txt ||
  { cat yout1.txt; exit 1; }
for np in $ranks; do
  # shellcheck disable=SC2086
  run "$mpiexec" --oversubscribe -n $np "$fcd" equilibrium $cargs --out z$np.csv \
    > zout$np.txt 2>&1 || { cat zout$np.txt; echo "equilibrium on $np ranks failed"; exit 1; }
  cut -d, -f1-5 z1.csv > zs1.txt
  cut -d, -f1-5 z$np.csv > zs$np.txt
  cmp -s zs1.txt zs$np.txt || { cat z1.csv z$np.csv; echo "statuses differ on $np ranks"; exit 1; }
  run "$fcd" stability --mass Mc.mtx $cargs --state z$np.csv --out y$np.csv > yout$np.txt ||
    { cat yout$np.txt; exit 1; }
  cmp -s y1.csv y$np.csv || { echo "the spectrum from $np ranks' state differs"; exit 1; }
done
# what does not run on several ranks says so, on rank 0 only
err=$(run "$mpiexec" --oversubscribe -n 2 "$fcd" info --mass M.mtx --stiffness K.mtx 2>&1); rc=$?
[ $rc -ne 0 ] || { echo "info on 2 ranks accepted"; exit 1; }
[ "$(echo "$err" | grep -c 'does not run on several MPI ranks')" -eq 1 ] ||
  { echo "info on 2 ranks: $err"; exit 1; }
# a missing contact file: every rank fails and returns
# shellcheck disable=SC2086
run "$mpiexec" --oversubscribe -n 2 "$fcd" equilibrium --stiffness K.mtx --contacts none.txt \
  --out s9.csv > /dev/null 2>&1; rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || { echo "missing file on 2 ranks: status $rc"; exit 1; }
[ ! -e s9.csv ] || { echo "a state was written for a failed run"; exit 1; }
echo "fcd under mpiexec: ok"
