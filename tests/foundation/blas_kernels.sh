#!/bin/sh
# The fcd program runs OpenBLAS' kernels for its CPU (tools/fcd.c, blas_kernels_fix):
# Debian 12's OpenBLAS falls back to its SSE3 "Prescott" kernels on x86 models newer than
# it knows, five times slower in dgemm; the program then starts itself again with
# OPENBLAS_CORETYPE set. Where the BLAS is OpenBLAS and the CPU (as the kernel enables it)
# has AVX2 and FMA, `fcd --version` must name other kernels than Prescott; a user's own
# OPENBLAS_CORETYPE is kept as it is.
set -u
fcd=$1
out=$(env -u OPENBLAS_CORETYPE "$fcd" --version) || { echo "fcd --version failed"; exit 1; }
echo "$out"
line=$(echo "$out" | grep '^blas: OpenBLAS') || { echo "not OpenBLAS: nothing to check"; exit 0; }
if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
  case $line in
    *Prescott*) echo "FAIL: Prescott kernels on a CPU with AVX2 and FMA"; exit 1 ;;
  esac
fi
kept=$(OPENBLAS_CORETYPE=Prescott "$fcd" --version | grep '^blas:')
case $kept in
  *Prescott*) ;;
  *) echo "FAIL: the user's OPENBLAS_CORETYPE=Prescott was not kept ($kept)"; exit 1 ;;
esac
echo "ok: $line; a user's setting kept"
