#!/bin/sh
# `fcd solve` ends with the line other programs read; bad options are refused.
set -u
fcd=$1 file=$2
out=$("$fcd" solve "$file" --solver newton --tol 1e-9) || { echo "fcd solve failed"; exit 1; }
last=$(printf '%s\n' "$out" | tail -n 1)
echo "$last" | grep -Eq '^solved: contacts=60 iterations=[0-9]+ residual=[0-9.e+-]+ seconds=[0-9.]+$' ||
  { echo "unexpected last line: $last"; exit 1; }
res=$(echo "$last" | sed 's/.*residual=\([^ ]*\).*/\1/')
awk -v r="$res" 'BEGIN { exit !(r <= 1e-9) }' || { echo "residual $res above 1e-9"; exit 1; }
"$fcd" solve "$file" --solver magic >/dev/null 2>&1; [ $? -eq 2 ] || { echo "bad solver accepted"; exit 1; }
"$fcd" solve /nonexistent.hdf5 >/dev/null 2>&1; [ $? -eq 1 ] || { echo "missing file not reported"; exit 1; }
out=$("$fcd" solve "$file" --max-iter 1 --solver fixed-point 2>/dev/null); [ $? -eq 3 ] ||
  { echo "non-convergence not reported by the exit status"; exit 1; }
# nor by a last line that reads as solved
printf '%s\n' "$out" | tail -n 1 | grep -q '^not solved: contacts=60 iterations=1 ' ||
  { echo "non-converged run's last line: $(printf '%s\n' "$out" | tail -n 1)"; exit 1; }
echo "fcd solve: $last"
