#!/bin/sh
# `fcd simulate` on a point mass dropped on a rough floor: a history row per step, the
# ledger printed at the end closes (initial energy 0), and bad input is reported.
set -u
fcd=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=${FCD_TEST_TMPDIR:-/tmp}/simulate
mkdir -p "$dir"
cd "$dir" || exit 1
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 2.0\n2 2 2.0\n' > M.mtx
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 1 50.0\n' > K.mtx
printf '0\n-19.62\n' > f.txt
printf '0.3\n0\n' > u0.txt
printf 'fcd-contacts 1\ndim 2\nrigid 0 1   0 -1   1 0   0.05 0.4\n' > contacts.txt
out=$("$fcd" simulate --mass M.mtx --stiffness K.mtx --load f.txt --u0 u0.txt \
      --contacts contacts.txt --scheme fremond --dt 1e-3 --t-end 0.5 --restitution 0.5 \
      --out history.csv) || { echo "simulate failed: $out"; exit 1; }
echo "$out"
rows=$(($(wc -l < history.csv) - 1))
[ "$rows" -eq 500 ] || { echo "history has $rows rows, expected 500"; exit 1; }
echo "$out" | tail -n 1 | grep -q '^simulated: dofs=2 contacts=1 t=0.5 ' || { echo "bad last line"; exit 1; }
# the initial energy is 1/2 k x0^2 = 2.25; E - E0 = W - dissipations
echo "$out" | grep '^energy:' | tr ' =' '\n\n' | awk '
  /^kinetic$/ {getline; k=$1} /^potential$/ {getline; p=$1} /^external_work$/ {getline; w=$1}
  /^damping$/ {getline; d=$1} /^friction$/ {getline; f=$1} /^impact$/ {getline; i=$1}
  /^numerical$/ {getline; n=$1}
  END { r = (k + p - 2.25) - (w - d - f - i - n); if (r < 0) r = -r;
        if (r > 1e-8) { print "ledger residual " r; exit 1 }
        if (i <= 0 || f <= 0) { print "expected impact and friction dissipation"; exit 1 } }' || exit 1
# bad input: a malformed contact file names its line, nothing is written
printf 'fcd-contacts 1\ndim 2\nrigid 0 1   0 -1   1 0   0.05\n' > bad.txt
rm -f h2.csv
err=$("$fcd" simulate --mass M.mtx --stiffness K.mtx --contacts bad.txt --dt 1e-3 --t-end 0.1 \
      --out h2.csv 2>&1); rc=$?
[ $rc -eq 1 ] || { echo "bad contact file: exit status $rc"; exit 1; }
echo "$err" | grep -q 'bad.txt:3:' || { echo "message lacks the line: $err"; exit 1; }
[ ! -e h2.csv ] || { echo "a history was written for a failed run"; exit 1; }
"$fcd" simulate --mass M.mtx --stiffness K.mtx --contacts contacts.txt --dt -1 --t-end 1 --out h3.csv \
  >/dev/null 2>&1; [ $? -eq 2 ] || { echo "negative dt accepted"; exit 1; }
"$fcd" simulate --mass M.mtx --stiffness K.mtx --load f.txt --contacts contacts.txt \
  --scheme modified-theta --dt 1e-3 --t-end 0.1 --out h4.csv >/dev/null 2>&1 ||
  { echo "modified-theta run failed"; exit 1; }
# --monitor and --perturb-mode (issue 64): a column per monitored dof; bad values refused
"$fcd" simulate --mass M.mtx --stiffness K.mtx --load f.txt --contacts contacts.txt \
  --dt 1e-3 --t-end 0.01 --monitor 1,0 --out h5.csv >/dev/null 2>&1 ||
  { echo "--monitor run failed"; exit 1; }
head -n 1 h5.csv | grep -q ',slip,u_1,u_0$' || { echo "monitor header: $(head -n 1 h5.csv)"; exit 1; }
[ "$(awk -F, 'NR == 2 { print NF }' h5.csv)" -eq 13 ] || { echo "monitor columns"; exit 1; }
for bad in "--monitor 1,x" "--monitor -1" "--monitor 1,1" "--monitor 99999" \
           "--perturb-mode 0" "--perturb-mode x --state s.csv" "--state s.csv"; do
  # shellcheck disable=SC2086
  "$fcd" simulate --mass M.mtx --stiffness K.mtx --contacts contacts.txt --dt 1e-3 \
    --t-end 0.01 --out h6.csv $bad >/dev/null 2>&1; rc=$?
  [ $rc -eq 2 ] || { echo "'$bad': exit status $rc"; exit 1; }
done
[ ! -e h6.csv ] || { echo "a history was written for a refused run"; exit 1; }
echo "fcd simulate: ok"
