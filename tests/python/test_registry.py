"""The registries of named choices (fcd/fcd_registry.h): every enumerator the public headers
declare for a family is a row of its registry, and the lists that the command-line program
and the Python binding offer are read from it, not kept beside it (issue 86)."""
import os
import re
import subprocess

import pytest

import fcd

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.join(HERE, "..", "..", "include", "fcd")
FCD = os.environ.get("FCD_EXE", "fcd")


def enumerators(header, prefix):
    """{ENUMERATOR: value} of the header's enumerators that start with prefix, as written
    there (read here, not through the library)"""
    text = open(os.path.join(INCLUDE, header)).read()
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"\b(%s\w*)\s*=\s*(\d+)" % prefix, text)}


@pytest.mark.parametrize("family,header,prefix", [
    ("scheme", "fcd_integrator.h", "FCD_SCHEME_"),
    ("contact-solver", "fcd_fc.h", "FCD_FC_(?:AUTO|FIXED_POINT|NSGS|NEWTON|ADMM|PROX)"),
    ("matrix-format", "fcd_import.h", "FCD_MATRIX_FORMAT_"),
    ("mesh-format", "fcd_vtk.h", "FCD_MESH_(?:VTK_LEGACY|VTU|GMSH|ABAQUS|NASTRAN)"),
    ("eigen-path", "fcd_stability.h", "FCD_EIGEN_"),
    ("output-format", "fcd_vtk.h", "FCD_OUTPUT_"),
])
def test_every_enumerator_is_registered_once(family, header, prefix):
    rows = fcd.registry(family)
    values = [v for _, v, _ in rows]
    names = [n for n, _, _ in rows]
    assert sorted(values) == sorted(enumerators(header, prefix).values())
    assert len(set(names)) == len(names) and all(re.fullmatch(r"[a-z0-9-]+", n) for n in names)
    assert all(s for _, _, s in rows)


def test_the_binding_keywords_are_the_registry():
    assert fcd._SCHEME == {n: v for n, v, _ in fcd.registry("scheme")}
    assert fcd._FC_SOLVER == {n: v for n, v, _ in fcd.registry("contact-solver")}
    assert fcd.Mesh._FORMATS == {v: n for n, v, _ in fcd.registry("mesh-format")}
    assert fcd._EIGEN_PATH == {n: v for n, v, _ in fcd.registry("eigen-path")}
    assert fcd._OUTPUT_FORMAT == {n: v for n, v, _ in fcd.registry("output-format")}
    with pytest.raises(ValueError, match="unknown family"):
        fcd.registry("schemes")


def help_choices(command, option):
    out = subprocess.run([FCD, command, "--help"], capture_output=True, text=True).stdout
    m = re.search(r"^\s+%s (\S+)" % re.escape(option), out, re.M)
    assert m, out
    return m.group(1).split("|")


def test_the_program_lists_are_the_registry():
    schemes = [n for n, _, _ in fcd.registry("scheme")]
    assert help_choices("simulate", "--scheme") == schemes
    assert help_choices("periodic", "--scheme") == schemes
    assert help_choices("solve", "--solver") == [n for n, _, _ in fcd.registry("contact-solver")]
    paths = [n for n, _, _ in fcd.registry("eigen-path")]
    assert help_choices("stability", "--eigen-path") == ["auto"] + paths
    formats = [n for n, _, _ in fcd.registry("output-format")]
    assert help_choices("stability", "--series-format") == formats
    assert help_choices("simulate", "--series-format") == formats


def test_an_unknown_name_is_refused_with_the_registry_list(tmp_path):
    r = subprocess.run([FCD, "solve", str(tmp_path / "x.hdf5"), "--solver", "gauss"],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "unknown solver 'gauss' (%s)" % ", ".join(
        n for n, _, _ in fcd.registry("contact-solver")) in r.stderr
