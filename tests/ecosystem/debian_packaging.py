#!/usr/bin/env python3
"""The Debian packaging (debian/, issue 67) agrees with the build it packages, so that
`scripts/build-deb.sh` (dpkg-buildpackage, lintian, the consumers) cannot drift from
the source without a test failing here, in the suite that runs everywhere:

- debian/changelog's version is the project's (meson.build);
- the library package is named for the SONAME the build gives (libfcd<soversion>), its
  .install file claims exactly that SONAME, and its symbols file lists exactly the
  symbols of lib/fcd.map, in their version node;
- every file `meson install` puts under the prefix is claimed by exactly one package's
  .install patterns, and every pattern claims something;
- the build dependencies include what .ci/run installs to build the library.

usage: debian_packaging.py SOURCE_DIR BUILD_DIR
"""
import fnmatch
import json
import os
import re
import subprocess
import sys

src, build = sys.argv[1], sys.argv[2]
fails = []


def read(*p):
    with open(os.path.join(src, *p)) as f:
        return f.read()


project = re.search(r"project\('fcd',\s*'c',\s*version:\s*'([^']+)'", read("meson.build"))
version = project.group(1) if project else None
deb_version = re.match(r"fcd \(([^)]+)\)", read("debian", "changelog")).group(1)
if deb_version != version:
    fails.append("debian/changelog has %s, meson.build %s" % (deb_version, version))

parts = version.split(".")
soversion = "0." + parts[1] if parts[0] == "0" else parts[0]
libpkg = "libfcd" + soversion
control = read("debian", "control")
packages = re.findall(r"^Package: (\S+)", control, re.M)
if libpkg not in packages:
    fails.append("no package %s for SONAME libfcd.so.%s (packages: %s)" % (libpkg, soversion,
                                                                           packages))
if not os.path.exists(os.path.join(src, "debian", libpkg + ".install")):
    fails.append("debian/%s.install is missing" % libpkg)
elif read("debian", libpkg + ".install").split() != ["usr/lib/*/libfcd.so.%s*" % soversion]:
    fails.append("debian/%s.install does not claim libfcd.so.%s*" % (libpkg, soversion))

fmap = read("lib", "fcd.map")
node = re.search(r"^(FCD_[0-9.]+)\s*\{", fmap, re.M).group(1)
want = {"%s@%s" % (s, node) for s in re.findall(r"^\s+(fcd_\w+);", fmap, re.M)} | {node + "@" + node}
symfile = os.path.join(src, "debian", libpkg + ".symbols")
if not os.path.exists(symfile):
    fails.append("debian/%s.symbols is missing" % libpkg)
else:
    lines = read("debian", libpkg + ".symbols").splitlines()
    if not lines or lines[0].split()[:2] != ["libfcd.so." + soversion, libpkg]:
        fails.append("the symbols file's first line names another SONAME or package")
    have = {l.split()[0] for l in lines[1:] if l.startswith(" ")}
    if have != want:
        fails.append("symbols file against lib/fcd.map: missing %s, extra %s"
                     % (sorted(want - have)[:5], sorted(have - want)[:5]))

# what meson installs, relative to the prefix as the packages see it (prefix /usr)
installed = json.loads(subprocess.run(["meson", "introspect", "--installed", build],
                                      capture_output=True, text=True, check=True).stdout)
opts = json.loads(subprocess.run(["meson", "introspect", "--buildoptions", build],
                                 capture_output=True, text=True, check=True).stdout)
prefix = next(o["value"] for o in opts if o["name"] == "prefix")
# the build's own libdir (a prefix install as docs/getting-started.md shows it has
# --libdir lib), which the packages see as Debian's multiarch directory: debhelper
# configures with --libdir=lib/<triplet>. Python's directory is not under it.
libdir = next(o["value"] for o in opts if o["name"] == "libdir")
if os.path.isabs(libdir):
    libdir = os.path.relpath(libdir, prefix)
triplet = subprocess.run(["gcc", "-print-multiarch"], capture_output=True,
                         text=True).stdout.strip() or "x86_64-linux-gnu"
files = set()
for dest in installed.values():
    rel = os.path.relpath(dest, prefix)
    if rel.startswith("local/"):
        rel = rel.replace("local/", "", 1)
    if rel.startswith(libdir + "/") and not rel.startswith("lib/python3/"):
        rel = "lib/" + triplet + rel[len(libdir):]
    files.add("usr/" + rel)
# the shared library's symlinks meson makes beside it
for f in list(files):
    m = re.match(r"(.*/libfcd\.so)\.(\d+)\.(\d+)\.(\d+)$", f)
    if m:
        files |= {m.group(1), "%s.%s.%s" % (m.group(1), m.group(2), m.group(3))}
claims = {}
for p in packages:
    path = os.path.join(src, "debian", p + ".install")
    if not os.path.exists(path):
        continue
    for pat in read("debian", p + ".install").split():
        hit = {f for f in files if fnmatch.fnmatch(f, pat) or fnmatch.fnmatch(f, pat + "/*")}
        if not hit:
            fails.append("%s.install: %s claims nothing meson installs" % (p, pat))
        for f in hit:
            claims.setdefault(f, []).append(p)
for f in sorted(files):
    if len(claims.get(f, [])) != 1:
        fails.append("%s is claimed by %s" % (f, claims.get(f, "no package")))

ci = read(".ci", "run")
for dep in ("libsuitesparse-dev", "petsc-dev", "slepc-dev", "libmumps-dev", "libfclib-dev",
            "libhdf5-dev", "liblapacke-dev", "libscalapack-openmpi-dev"):
    if dep in ci and dep not in control:
        fails.append("debian/control's Build-Depends lack %s" % dep)

for f in fails:
    print("FAIL:", f)
print("debian packaging: %d files in %d packages, %d symbols; %d problems"
      % (len(files), len(packages), len(want), len(fails)))
sys.exit(1 if fails else 0)
