#!/bin/sh
# `fcd simulate|stability --reduce MODES` on the block of test_distributed (902 dofs, 41 frictional
# contacts on a flat, the top pushed down and sideways at once, 50 Moreau-Jean steps):
# with every interior mode kept (738) the reduced model is the full one in other
# coordinates, so its history (energy ledger, contact counts, monitored dofs, printed to
# 10 digits) is the full run's to 1e-8 and its indicator round-off; with fewer modes the
# run completes and its indicator shows the truncation; --modal gives the same histories
# (the same model in other coordinates) and monitors any dof; a monitored interior dof
# is otherwise a usage error, more modes than interior dofs an error that names the count;
# --inertia brings a reduced stability analysis closer to the full one.
# usage: fcd_reduce.sh FCD TEST_DISTRIBUTED
set -u
fcd=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
model=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
dir=${FCD_TEST_TMPDIR:-/tmp}/fcd_reduce
mkdir -p "$dir"
cd "$dir" || exit 1
rm -f ./*.csv ./*.txt ./*.mtx ./*.petsc
"$model" --write . > /dev/null || { echo "writing the model failed"; exit 1; }
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
margs="--mass M.mtx --stiffness K.mtx --fixed fixed.txt --contacts contacts.txt --dt 1e-3 --t-end 0.05 --monitor 1,821"
# shellcheck disable=SC2086
"$fcd" simulate $margs --out full.csv > full.txt || { cat full.txt; echo "full run failed"; exit 1; }
# shellcheck disable=SC2086
"$fcd" simulate $margs --reduce 738 --out all.csv > all.txt || { cat all.txt; echo "reduced run (every mode) failed"; exit 1; }
grep -q '^reduced: kept_dofs=164 modes=738 .* reduced_dofs=902' all.txt ||
  { cat all.txt; echo "expected 164 kept dofs (41 contacts x 2, the top's 82 moving dofs) and 738 modes"; exit 1; }
same full.csv all.csv 1e-8 || { echo "every mode kept: the history differs from the full run's"; exit 1; }
awk -F, 'NR > 1 && $9 > 0 && $11 > 0 { c = 1 } END { exit !c }' full.csv ||
  { echo "expected contacts to open and to slide"; exit 1; }
ind() { sed -n 's/^reduction indicator (last step): //p' "$1"; }
ia=$(ind all.txt)
awk -v a="$ia" 'BEGIN { exit !(a + 0 <= 1e-10) }' || { echo "indicator with every mode: $ia"; exit 1; }
# a truncated basis shows in the indicator (a pointwise residual of the last step: the
# trajectories, and their contact states, differ with the modes, so it need not fall
# monotonically from one count to the next on a shock start like this one)
for m in 20 100 400; do
  # shellcheck disable=SC2086
  "$fcd" simulate $margs --reduce $m --out r$m.csv > r$m.txt || { cat r$m.txt; echo "--reduce $m failed"; exit 1; }
  i=$(ind r$m.txt)
  echo "--reduce $m: indicator $i"
  awk -v a="$i" 'BEGIN { exit !(a + 0 > 1e-6) }' ||
    { echo "--reduce $m: the indicator $i does not show the truncation"; exit 1; }
done
# --modal: the same model in its pencil's modes (the top's 82 moving dofs one shape
# coordinate: 902 - 82 + 1 unknowns), the full run's history with every mode kept, and
# any dof monitored (500 is in the interior)
# shellcheck disable=SC2086
"$fcd" simulate $margs --reduce 738 --modal --out mall.csv > mall.txt || { cat mall.txt; echo "modal run (every mode) failed"; exit 1; }
grep -q '^reduced: kept_dofs=164 modes=738 .* reduced_dofs=821 coordinates=modal' mall.txt ||
  { cat mall.txt; echo "expected 821 modal coordinates"; exit 1; }
same full.csv mall.csv 1e-8 || { echo "every mode kept, modal: the history differs from the full run's"; exit 1; }
ia=$(ind mall.txt)
awk -v a="$ia" 'BEGIN { exit !(a + 0 <= 1e-10) }' || { echo "modal indicator with every mode: $ia"; exit 1; }
# shellcheck disable=SC2086
"$fcd" simulate $margs --reduce 20 --out c20.csv > c20.txt || { cat c20.txt; echo "--reduce 20 failed"; exit 1; }
# shellcheck disable=SC2086
"$fcd" simulate $margs --reduce 20 --modal --out m20.csv > m20.txt || { cat m20.txt; echo "--reduce 20 --modal failed"; exit 1; }
same c20.csv m20.csv 1e-8 || { echo "20 modes: modal and Craig-Bampton coordinates differ"; exit 1; }
# shellcheck disable=SC2086
"$fcd" simulate $margs --reduce 20 --modal --monitor 1,500 --out m500.csv > m500.txt ||
  { cat m500.txt; echo "--modal with an interior dof monitored failed"; exit 1; }
head -1 m500.csv | grep -q ',u_500$' || { head -1 m500.csv; echo "no column u_500"; exit 1; }
"$fcd" simulate --mass M.mtx --stiffness K.mtx --contacts contacts.txt --dt 1e-3 --t-end 0.01 --modal --out bad.csv > bad.txt 2> bad.err; rc=$?
[ $rc -eq 2 ] && grep -q -- "--modal goes with --reduce" bad.err || { cat bad.err; echo "--modal alone: exit $rc"; exit 1; }
# shellcheck disable=SC2086
"$fcd" simulate $margs --reduce 20 --monitor 500 --out bad.csv > bad.txt 2> bad.err; rc=$?
[ $rc -eq 2 ] || { echo "a monitored interior dof: exit $rc, expected 2"; exit 1; }
grep -q "dof 500 is in the reduced interior" bad.err || { cat bad.err; exit 1; }
[ ! -e bad.csv ] || { echo "a refused run wrote its history"; exit 1; }
# shellcheck disable=SC2086
"$fcd" simulate $margs --reduce 100000 --out bad.csv > bad.txt 2> bad.err; rc=$?
[ $rc -eq 1 ] || { echo "too many modes: exit $rc, expected 1"; exit 1; }
grep -q "the interior has 738 dofs" bad.err || { cat bad.err; exit 1; }
# fcd stability --reduce: the sweep's chart about the steady sliding state with every mode
# kept is the full one (eigenvalues printed to 12 digits; 1e-7 of each column's largest);
# with 60 modes the leading flutter pair at mu = 0.1 (19.79 Hz, growth 1.643 s^-1 on the
# full pencil's 40 pairs nearest 0 Hz) within 0.5 % in frequency and 3 % in growth
sargs="--mass M.mtx --stiffness K.mtx --fixed fixed.txt --contacts contacts.txt --steady-sliding"
# shellcheck disable=SC2086
"$fcd" stability $sargs --mu-sweep 0.1:0.6:5 --out wf.csv > wf.txt || { cat wf.txt; exit 1; }
# shellcheck disable=SC2086
"$fcd" stability $sargs --mu-sweep 0.1:0.6:5 --reduce 738 --out wa.csv > wa.txt || { cat wa.txt; exit 1; }
same wf.csv wa.csv 1e-7 || { echo "every mode kept: the stability chart differs"; exit 1; }
# shellcheck disable=SC2086
"$fcd" stability $sargs --mu 0.1 --nev 40 --out lf.csv > lf.txt || { cat lf.txt; exit 1; }
# shellcheck disable=SC2086
"$fcd" stability $sargs --mu 0.1 --nev 40 --reduce 60 --out l60.csv > l60.txt || { cat l60.txt; exit 1; }
# a reduced model's coordinates change seed 000's necessary condition: not given for it
grep -q 'necessary_divergence=n/a min_sym=n/a band_hz=' l60.txt && grep -q '^necessary: ' l60.txt ||
  { cat l60.txt; echo "a reduced model's necessary condition was given"; exit 1; }
grep -q 'necessary_divergence=\(yes\|no\) ' lf.txt || { cat lf.txt; exit 1; }
lead() { tail -n +2 "$1" | sort -t, -k4 -g -r | head -1; }
lf=$(lead lf.csv) l60=$(lead l60.csv)
echo "leading pair, full: $lf; 60 modes: $l60"
# (nine columns a row: mu,mode,track,re,im,freq_hz,damping_ratio,kind,in_band)
echo "$lf,$l60" | awk -F, '{ df = ($6 - $15) / $6; dr = ($4 - $13) / $4
  if (df < 0) df = -df; if (dr < 0) dr = -dr
  exit !($8 == "flutter" && $17 == "flutter" && $18 == 1 && df <= 5e-3 && dr <= 3e-2) }' ||
  { echo "60 modes: the leading flutter pair is not the full one's"; exit 1; }
# --inertia P: with 20 modes and 40 inertia correction vectors the full model's leading
# pair (19.79 Hz) comes out closer, in growth and in frequency, than with the 20 modes
# alone (the pair of each reduced chart nearest its frequency: a dense reduced analysis
# returns its whole spectrum, whose pairs near the highest kept modes are not the full
# model's); the same model in modal coordinates gives the same history; --inertia
# without --reduce is a usage error
# shellcheck disable=SC2086
"$fcd" stability $sargs --mu 0.1 --nev 40 --reduce 20 --out l20.csv > l20.txt || { cat l20.txt; exit 1; }
# shellcheck disable=SC2086
"$fcd" stability $sargs --mu 0.1 --nev 40 --reduce 20 --inertia 40 --out li.csv > li.txt || { cat li.txt; exit 1; }
grep -q '^reduced: kept_dofs=164 modes=60 .* reduced_dofs=224 inertia=40' li.txt ||
  { cat li.txt; echo "expected 20 modes and 40 inertia vectors"; exit 1; }
near() { # file freq: the pair (im > 0) nearest freq
  tail -n +2 "$1" | awk -F, -v f="$2" '$5 > 0 { d = $6 - f; if (d < 0) d = -d
    if (best == "" || d < bd) { bd = d; best = $0 } } END { print best }'; }
ff=$(echo "$lf" | cut -d, -f6)
l20=$(near l20.csv "$ff") li=$(near li.csv "$ff")
echo "the full leading pair with 20 modes: $l20; with 40 inertia vectors: $li"
echo "$lf,$l20,$li" | awk -F, '{ e1 = ($4 - $13) / $4; e2 = ($4 - $22) / $4
  f1 = ($6 - $15) / $6; f2 = ($6 - $24) / $6
  if (e1 < 0) e1 = -e1; if (e2 < 0) e2 = -e2; if (f1 < 0) f1 = -f1; if (f2 < 0) f2 = -f2
  print "growth error " e1 " -> " e2 ", frequency error " f1 " -> " f2
  exit !($17 == "flutter" && $26 == "flutter" && e2 < e1 && f2 < f1) }' ||
  { echo "the inertia vectors did not bring the leading pair closer"; exit 1; }
# shellcheck disable=SC2086
"$fcd" simulate $margs --reduce 20 --inertia 40 --out ci.csv > ci.txt || { cat ci.txt; echo "--inertia failed"; exit 1; }
# shellcheck disable=SC2086
"$fcd" simulate $margs --reduce 20 --inertia 40 --modal --out mi.csv > mi.txt || { cat mi.txt; echo "--inertia --modal failed"; exit 1; }
same ci.csv mi.csv 1e-8 || { echo "inertia vectors: modal and Craig-Bampton coordinates differ"; exit 1; }
"$fcd" simulate --mass M.mtx --stiffness K.mtx --contacts contacts.txt --dt 1e-3 --t-end 0.01 --inertia 4 --out bad.csv > bad.txt 2> bad.err; rc=$?
[ $rc -eq 2 ] && grep -q -- "--inertia goes with --reduce" bad.err || { cat bad.err; echo "--inertia alone: exit $rc"; exit 1; }
# --interface relative: this block's contacts are all against the flat (no node-to-node
# pair to convert), so the model and its history are the physical one's; an unknown
# name, or the option without --reduce, is a usage error
# shellcheck disable=SC2086
"$fcd" simulate $margs --reduce 20 --interface relative --out rel.csv > rel.txt || { cat rel.txt; echo "--interface relative failed"; exit 1; }
same r20.csv rel.csv 1e-12 || { echo "--interface relative without a pair changed the model"; exit 1; }
# shellcheck disable=SC2086
"$fcd" simulate $margs --reduce 20 --interface bonded --out bad.csv > bad.txt 2> bad.err; rc=$?
[ $rc -eq 2 ] && grep -q -- "unknown --interface 'bonded' (physical, relative)" bad.err || { cat bad.err; echo "--interface bonded: exit $rc"; exit 1; }
# shellcheck disable=SC2086
"$fcd" stability $sargs --mu 0.1 --interface relative --out bad.csv > bad.txt 2> bad.err; rc=$?
[ $rc -eq 2 ] && grep -q -- "--interface goes with --reduce" bad.err || { cat bad.err; echo "stability --interface alone: exit $rc"; exit 1; }
# --basis factored: the constraint modes through the interior's factor, the same model and
# history as the stored ones (whichever auto chose) to round-off (a few units of the
# printed digits after the steps); unknown names and the
# option alone are usage errors
for b in stored factored; do
  # shellcheck disable=SC2086
  "$fcd" simulate $margs --reduce 20 --basis $b --out b$b.csv > b$b.txt || { cat b$b.txt; echo "--basis $b failed"; exit 1; }
done
same bstored.csv bfactored.csv 1e-8 || { echo "--basis factored and stored differ"; exit 1; }
same r20.csv bfactored.csv 1e-8 || { echo "--basis factored and the default differ"; exit 1; }
# shellcheck disable=SC2086
"$fcd" simulate $margs --reduce 20 --basis disk --out bad.csv > bad.txt 2> bad.err; rc=$?
[ $rc -eq 2 ] && grep -q -- "unknown --basis 'disk' (auto, stored, factored)" bad.err || { cat bad.err; echo "--basis disk: exit $rc"; exit 1; }
# shellcheck disable=SC2086
"$fcd" stability $sargs --mu 0.1 --basis factored --out bad.csv > bad.txt 2> bad.err; rc=$?
[ $rc -eq 2 ] && grep -q -- "--basis goes with --reduce" bad.err || { cat bad.err; echo "stability --basis alone: exit $rc"; exit 1; }
# --prescribed-shape: the top's 82 moving prescribed dofs kept as one coordinate (83 kept
# dofs for 164), the same model and history; a monitored follower (821) reads its value
# shellcheck disable=SC2086
"$fcd" simulate $margs --reduce 20 --prescribed-shape --out ps.csv > ps.txt || { cat ps.txt; echo "--prescribed-shape failed"; exit 1; }
grep -q '^reduced: kept_dofs=83 modes=20 ' ps.txt || { cat ps.txt; echo "--prescribed-shape: expected 83 kept dofs"; exit 1; }
same r20.csv ps.csv 1e-8 || { echo "--prescribed-shape changed the history"; exit 1; }
for ps in "" --prescribed-shape; do
  # shellcheck disable=SC2086
  "$fcd" stability $sargs --mu 0.6 --reduce 20 $ps --out "s$ps.csv" > "s$ps.txt" || { cat "s$ps.txt"; echo "stability --reduce 20 $ps failed"; exit 1; }
done
same s.csv s--prescribed-shape.csv 1e-10 || { echo "--prescribed-shape changed the stability chart"; exit 1; }
# shellcheck disable=SC2086
"$fcd" stability $sargs --mu 0.1 --prescribed-shape --out bad.csv > bad.txt 2> bad.err; rc=$?
[ $rc -eq 2 ] && grep -q -- "--prescribed-shape goes with --reduce" bad.err || { cat bad.err; echo "stability --prescribed-shape alone: exit $rc"; exit 1; }
# --memory-limit: ample, the same history; below what the process holds, refused at once
# naming the memory the reduction needs; alone, refused as the other reduction options
# shellcheck disable=SC2086
"$fcd" simulate $margs --reduce 20 --memory-limit 64 --out ml.csv > ml.txt || { cat ml.txt; echo "--memory-limit 64 failed"; exit 1; }
same r20.csv ml.csv 1e-12 || { echo "--memory-limit changed the history"; exit 1; }
# shellcheck disable=SC2086
"$fcd" simulate $margs --reduce 20 --memory-limit 1e-6 --out bad.csv > bad.txt 2> bad.err; rc=$?
[ $rc -ne 0 ] && grep -q "dense arrays need .* GiB allowed" bad.err || { cat bad.err; echo "--memory-limit 1e-6: exit $rc"; exit 1; }
# shellcheck disable=SC2086
"$fcd" stability $sargs --mu 0.1 --memory-limit 8 --out bad.csv > bad.txt 2> bad.err; rc=$?
[ $rc -eq 2 ] && grep -q -- "--memory-limit goes with --reduce" bad.err || { cat bad.err; echo "stability --memory-limit alone: exit $rc"; exit 1; }
echo "fcd simulate|stability --reduce: every mode equals the full run; fewer show in the indicator"
