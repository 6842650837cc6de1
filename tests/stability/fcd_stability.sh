#!/bin/sh
# `fcd stability` on seed 000 Ex. 4.6 (the pin on a flat, Fig. 9 data): from the steady
# sliding state computed in the same run, the unstable pair lambda = 0.081837 +- 1.034251 i
# (digest 3.3); a friction sweep whose chart brackets the flutter onset (the digest's
# window for this geometry starts at mu = 1.7357); the state file of `fcd equilibrium`
# read back; bad input.
set -u
fcd=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=${FCD_TEST_TMPDIR:-/tmp}/stability
mkdir -p "$dir"
cd "$dir" || exit 1
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
cat > M.mtx <<'MTX'
%%MatrixMarket matrix coordinate real symmetric
4 4 5
1 1 3
2 2 0.025
3 2 -0.05
3 3 1
4 4 1
MTX
printf '0\n0\n0\n0.01\n' > f.txt
printf '0 0.3\n' > fixed.txt
printf 'fcd-contacts 1\ndim 2\nrigid 2 3   0 1   1 0   0 2.2   0.015\n' > pull.txt
out=$("$fcd" stability --mass M.mtx --stiffness K.mtx --fixed fixed.txt --load f.txt \
      --contacts pull.txt --steady-sliding --nev 4 --out chart.csv) ||
  { echo "stability failed: $out"; exit 1; }
echo "$out"
echo "$out" | grep -q '^stability: dofs=4 reduced=2 contacts=1 steps=1 unstable=yes ' ||
  { echo "bad summary"; exit 1; }
# the dense solve's certificate: the eigenpairs' backward error, below its 1e-8 bound
echo "$out" | grep -Eq '^certificate: backward_error=[0-9.]+e-(1[0-9]|[2-9][0-9]) tolerance=1.0e-08 norm=' ||
  { echo "no certificate line, or a backward error above 1e-10"; exit 1; }
head -n 1 chart.csv | grep -q '^mu,mode,track,re,im,freq_hz,' || { echo "bad header"; exit 1; }
awk -F, 'NR == 2 { d = $4 - 0.081837; if (d < 0) d = -d; e = $5; if (e < 0) e = -e;
                   e = e - 1.034251; if (e < 0) e = -e;
                   if (d > 1e-6 || e > 1e-6 || $8 != "flutter") { print "row: " $0; exit 1 } }' \
  chart.csv || exit 1
# the sweep: onset bracketed by the grid around 1.7357
out=$("$fcd" stability --mass M.mtx --stiffness K.mtx --fixed fixed.txt --load f.txt \
      --contacts pull.txt --steady-sliding --mu-sweep 0:4:41 --nev 4 --out sweep.csv) ||
  { echo "sweep failed: $out"; exit 1; }
echo "$out" | grep -q '^critical: track=[0-9]* mu_from=1.7 mu_to=1.8 .*becomes unstable' ||
  { echo "no onset in (1.7, 1.8]: $out"; exit 1; }
[ "$(($(wc -l < sweep.csv) - 1))" -eq 164 ] || { echo "sweep rows"; exit 1; }
# the state written by fcd equilibrium, read back
"$fcd" equilibrium --stiffness K.mtx --fixed fixed.txt --load f.txt --contacts pull.txt \
  --kind steady-sliding --out state.csv >/dev/null || { echo "equilibrium failed"; exit 1; }
"$fcd" stability --mass M.mtx --stiffness K.mtx --fixed fixed.txt --contacts pull.txt \
  --state state.csv --nev 4 --out chart2.csv >/dev/null || { echo "--state failed"; exit 1; }
cmp -s chart.csv chart2.csv || { echo "--state and --steady-sliding differ"; exit 1; }
# bad input
printf 'contact,status,slip_t,slip_b\n0,slip,0.5,0\n' > bad_state.csv
err=$("$fcd" stability --mass M.mtx --stiffness K.mtx --fixed fixed.txt --contacts pull.txt \
      --state bad_state.csv --out x.csv 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q 'not 1' || { echo "non-unit slip: $rc $err"; exit 1; }
printf 'contact,status,slip_t,slip_b\n0,slip,1,0\n1,open,0,0\n' > long_state.csv
err=$("$fcd" stability --mass M.mtx --stiffness K.mtx --fixed fixed.txt --contacts pull.txt \
      --state long_state.csv --out x.csv 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q 'long_state.csv:3' || { echo "long state: $rc $err"; exit 1; }
"$fcd" stability --mass M.mtx --stiffness K.mtx --contacts pull.txt --steady-sliding \
  --mu-sweep -1:2:5 --out x.csv >/dev/null 2>&1; [ $? -eq 2 ] || { echo "negative mu"; exit 1; }
"$fcd" stability --mass M.mtx --stiffness K.mtx --contacts pull.txt --steady-sliding \
  --target-hz -3 --out x.csv >/dev/null 2>&1; [ $? -eq 2 ] || { echo "negative target"; exit 1; }
echo "fcd stability: ok"
