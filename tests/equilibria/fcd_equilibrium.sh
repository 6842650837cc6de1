#!/bin/sh
# `fcd equilibrium` on seed 000 Ex. 4.6 (the pin on a flat, Fig. 9 data): the steady
# sliding state when pulled, the closed form r_N = -F / (1 + 3/2 mu H_B/L) = -0.0075188
# (digest 3.3), the contract's state columns; pushing past 2 - 3 mu H_B/L <= 0 fails
# with a message; a static solve of the same system.
set -u
fcd=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=${FCD_TEST_TMPDIR:-/tmp}/equilibrium
mkdir -p "$dir"
cd "$dir" || exit 1
# dofs 1 u_D, 2 u_theta, 3 u_T, 4 u_N (1-based); h = 0.1, rho = 0.07
cat > K.mtx <<'MTX'
%%MatrixMarket matrix coordinate real symmetric
4 4 8
1 1 1
2 1 0.1
3 1 -1
2 2 0.0296
3 2 -0.1
4 2 0.0294
3 3 1
4 4 0.0588
MTX
printf '0\n0\n0\n0.01\n' > f.txt
printf '0 0.3\n' > fixed.txt
printf 'fcd-contacts 1\ndim 2\nrigid 2 3   0 1   1 0   0 2.2   0.015\n' > pull.txt
printf 'fcd-contacts 1\ndim 2\nrigid 2 3   0 1   1 0   0 10   -0.015\n' > push.txt
out=$("$fcd" equilibrium --stiffness K.mtx --fixed fixed.txt --load f.txt --contacts pull.txt \
      --kind steady-sliding --out state.csv --displacements u.txt) ||
  { echo "steady sliding failed: $out"; exit 1; }
echo "$out"
echo "$out" | grep -q '^equilibrium: kind=steady-sliding dofs=4 contacts=1 open=0 stick=0 slip=1 ' ||
  { echo "bad summary line"; exit 1; }
head -n 1 state.csv | grep -q '^contact,status,slip_t,slip_b,' || { echo "bad header"; exit 1; }
awk -F, 'NR == 2 {
  if ($2 != "slip" || $3 != -1 || $4 != 0) { print "state row: " $0; exit 1 }
  d = $6 - (-0.01 / 1.33); if (d < 0) d = -d; if (d > 1e-14) { print "r_n " $6; exit 1 }
  d = $7 - (-2.2 * $6); if (d < 0) d = -d; if (d > 1e-14) { print "r_t " $7; exit 1 } }' state.csv ||
  exit 1
[ "$(wc -l < u.txt)" -eq 4 ] || { echo "u.txt does not hold 4 values"; exit 1; }
# u_theta = mu F h / (4 rho^2 (1 + 1.5 mu h)) = 0.084395...
awk 'NR == 2 { d = $1 - 2.2 * 0.01 * 0.1 / (4 * 0.0049 * 1.33); if (d < 0) d = -d;
               if (d > 1e-13) { print "u_theta " $1; exit 1 } }' u.txt || exit 1
# pushing with mu = 10: no steady sliding state, a clear failure, no state written
rm -f s2.csv
err=$("$fcd" equilibrium --stiffness K.mtx --fixed fixed.txt --load f.txt --contacts push.txt \
      --kind steady-sliding --out s2.csv 2>&1); rc=$?
[ $rc -eq 1 ] || { echo "pushing: exit status $rc"; exit 1; }
echo "$err" | grep -q 'no steady sliding state' || { echo "message: $err"; exit 1; }
[ ! -e s2.csv ] || { echo "a state was written for a failed solve"; exit 1; }
# static, no tangential history: the pin presses, r_N = -F r(K) ..., one row, closed
"$fcd" equilibrium --stiffness K.mtx --fixed fixed.txt --load f.txt --contacts pull.txt \
  --out s3.csv | grep -q 'kind=static .* open=0 ' || { echo "static solve"; exit 1; }
"$fcd" equilibrium --stiffness K.mtx --contacts pull.txt --kind sideways --out s4.csv \
  >/dev/null 2>&1; [ $? -eq 2 ] || { echo "unknown kind accepted"; exit 1; }
# a non-symmetric K from a 'general' Matrix Market file (factored by LU): the slipping
# closed form of test_equilibrium's nonsymmetric_equilibria, u = (0, 0.0912, -0.0544),
# r_N = -0.936, r_T = -0.2808
cat > Kn.mtx <<'MTX'
%%MatrixMarket matrix coordinate real general
3 3 8
1 1 4
1 2 1
1 3 0.5
2 2 3
2 3 1
3 1 1
3 2 -1
3 3 2
MTX
printf '1\n0.5\n-0.2\n' > fn.txt
printf 'fcd-contacts 1\ndim 2\nrigid 0 1  1 0  0 1  0 0.3\n' > cn.txt
"$fcd" equilibrium --stiffness Kn.mtx --load fn.txt --contacts cn.txt --out sn.csv \
  --displacements un.txt >/dev/null || { echo "non-symmetric K failed"; exit 1; }
awk 'function a(x) { return x < 0 ? -x : x }
     NR == 2 && a($1 - 0.0912) > 1e-12 { print "u_1 " $1; exit 1 }
     NR == 3 && a($1 + 0.0544) > 1e-12 { print "u_2 " $1; exit 1 }' un.txt || exit 1
awk -F, 'NR == 2 { if ($2 != "slip" || ($6 + 0.936) ^ 2 > 1e-24 || ($7 + 0.2808) ^ 2 > 1e-24) {
                     print "state " $0; exit 1 } }' sn.csv || exit 1
# issue 64: a --mesh that cannot be read fails the run even when no surface pair needs
# it (it exited 0), and an output over an input is refused by name, the input intact
"$fcd" equilibrium --stiffness Kn.mtx --load fn.txt --contacts cn.txt --mesh missing.vtk \
  --out sm.csv > /dev/null 2>&1 && { echo "a missing --mesh was accepted"; exit 1; }
[ ! -e sm.csv ] || { echo "a state was written for a failed run"; exit 1; }
cp Kn.mtx Kn.keep
err=$("$fcd" equilibrium --stiffness Kn.mtx --load fn.txt --contacts cn.txt --out Kn.mtx 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q "'Kn.mtx' is the same file as --stiffness" ||
  { echo "--out over --stiffness: $err"; exit 1; }
cmp -s Kn.mtx Kn.keep || { echo "the stiffness file was changed"; exit 1; }
err=$("$fcd" equilibrium --stiffness Kn.mtx --load fn.txt --contacts cn.txt --out s2.csv \
      --displacements ./s2.csv 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q "write both into one file" ||
  { echo "two outputs into one file: $err"; exit 1; }
echo "fcd equilibrium: ok"
