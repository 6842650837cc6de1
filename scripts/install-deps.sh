#!/bin/sh
# Installs the Debian 12 packages fcd needs to build, test, run its demo and its benchmarks.
set -eu
pkgs="meson ninja-build pkg-config gcc g++ python3
      libsuitesparse-dev petsc-dev slepc-dev libmumps-dev libscalapack-openmpi-dev libopenblas-dev
      liblapacke-dev libfclib-dev libsiconos-numerics-dev gnuplot-nox binutils
      python3-siconos python3-numpy python3-scipy time python3-getfem python3-gmsh
      libdeal.ii-dev
      zlib1g-dev python3-meshio
      libhdf5-dev abigail-tools valgrind clang libclang-rt-14-dev doxygen cmake python3-pytest python3-vtk9
      groff-base man-db bsdextrautils xvfb xauth debhelper dh-python lintian"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $pkgs
