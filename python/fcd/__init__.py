"""fcd from Python: frictional contact dynamics of linear (visco)elastic structures.

A pure-Python binding over fcd's stable C ABI (ctypes, no compiled extension of its
own): it follows the installed libfcd, whatever its build. Arrays go in and out as
numpy arrays; matrices go in as scipy.sparse matrices (any format) or dense 2-D arrays.

    import fcd, scipy.sparse as sp
    sys = fcd.System(n)
    sys.set_matrix("stiffness", K)          # scipy.sparse or dense, n x n
    sys.set_matrix("mass", M)
    cs = fcd.ContactSet(sys, dim=2)
    cs.add_rigid([2, 3], normal=[0, 1], tangent=[1, 0], gap=0.0, mu=0.3)
    st = fcd.Stability(sys, cs)
    st.set_contact_state(["slip"], slip=[1.0])
    lam = st.solve()                        # complex eigenvalues, decreasing real part

Every failure raises FcdError, carrying fcd's status (``err.status``, ``err.name``) and
its message. Arguments are checked before they reach C: a wrong dtype (complex,
object, bool, strings) raises TypeError; a wrong shape or length raises ValueError,
naming the argument and what was expected. Inputs in any memory order or of any real
numeric dtype are copied to C-ordered float64 (int64 for indices).

The library is found through the environment variable FCD_LIBRARY (a path), then where
`meson install` put it (recorded in _installed.py beside this package), then in the
usual places of an installed tree, then by the system's loader (libfcd.so.0.1).
"""
import ctypes as _C
import ctypes.util as _cu
import numbers as _numbers
import os as _os

import numpy as _np

__all__ = ["registry", "FcdError", "System", "ContactSet", "Integrator", "Stability", "Equilibrium", "Mesh", "Series",
           "Reduction", "Periodic", "MatrixFile", "DofMap", "version", "has_feature", "features",
           "library_path"]

_real = _C.c_double
_index = _C.c_int64
_p = _C.c_void_p
_preal = _C.POINTER(_C.c_double)
_pindex = _C.POINTER(_C.c_int64)
_pint = _C.POINTER(_C.c_int)

_STATUS_NAMES = {
    0: "FCD_OK", -1: "FCD_E_INVALID_ARG", -2: "FCD_E_NOMEM", -3: "FCD_E_STATE",
    -4: "FCD_E_UNSUPPORTED", -5: "FCD_E_NOT_CONVERGED", -6: "FCD_E_SINGULAR",
    -7: "FCD_E_BACKEND", -8: "FCD_E_IO", -9: "FCD_E_INTERNAL", -10: "FCD_E_FORMAT",
    -11: "FCD_E_NOT_SPD", -12: "FCD_E_CALLBACK", -13: "FCD_E_NO_SOLUTION",
}


class FcdError(Exception):
    """A call into fcd failed: ``status`` (negative int), ``name`` (FCD_E_...) and
    ``message`` (fcd's own, naming the problem)."""

    def __init__(self, status, message):
        self.status = status
        self.name = _STATUS_NAMES.get(status, "FCD_E_%d" % -status)
        self.message = message
        super().__init__("%s: %s" % (self.name, message))


def _candidates():
    env = _os.environ.get("FCD_LIBRARY")
    if env:
        yield env
        return
    here = _os.path.dirname(_os.path.abspath(__file__))
    # installed by meson: the library's path as the install wrote it
    try:
        from . import _installed
        yield _os.path.normpath(_os.path.join(here, _installed.LIBRARY)
                                if _installed.RELATIVE else _installed.LIBRARY)
    except ImportError:
        pass
    # an installed tree: <prefix>/lib/python3/dist-packages/fcd -> <prefix>/lib/...
    for up in ("../../..", "../../../.."):
        root = _os.path.normpath(_os.path.join(here, up))
        for sub in ("lib", "lib64", "lib/x86_64-linux-gnu"):
            path = _os.path.join(root, sub, "libfcd.so")
            if _os.path.exists(path):
                yield path
    found = _cu.find_library("fcd")
    if found:
        yield found
    yield "libfcd.so.0.1"


def _load():
    errors = []
    for path in _candidates():
        try:
            return _C.CDLL(path), path
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    raise ImportError("cannot load libfcd (set FCD_LIBRARY to its path): " + "; ".join(errors))


_lib, library_path = _load()


def _fn(name, res, *args):
    f = getattr(_lib, name)
    f.restype = res
    f.argtypes = list(args)
    return f


_st = _C.c_int
class _ReductionOptions(_C.Structure):
    """fcd_reduction_options (fcd/fcd_reduction.h), size-prefixed"""
    _fields_ = [("struct_size", _C.c_size_t), ("nmodes", _index), ("ninertia", _index),
                ("modal", _C.c_int32), ("interface", _C.c_int32), ("cut", _real),
                ("damping", _real), ("basis", _C.c_int32), ("ntied", _index),
                ("tied", _pindex), ("tie_ptr", _pindex), ("tie_src", _pindex),
                ("tie_w", _preal), ("prescribed_shape", _C.c_int32),
                ("memory_limit", _real)]


_f = {}
for _name, _res, _args in [
    ("fcd_version_string", _C.c_char_p, []),
    ("fcd_has_feature", _C.c_int, [_C.c_char_p]),
    ("fcd_features", _C.c_char_p, []),
    ("fcd_status_str", _C.c_char_p, [_C.c_int]),
    ("fcd_system_create", _st, [_index, _C.POINTER(_p)]),
    ("fcd_system_destroy", None, [_p]),
    ("fcd_system_last_error", _C.c_char_p, [_p]),
    ("fcd_system_set_matrix_coo", _st, [_p, _C.c_int, _index, _pindex, _pindex, _preal, _C.c_uint]),
    ("fcd_system_fix_dofs", _st, [_p, _index, _pindex, _preal]),
    ("fcd_system_set_load", _st, [_p, _preal]),
    ("fcd_system_set_rayleigh", _st, [_p, _real, _real]),
    ("fcd_system_apply", _st, [_p, _C.c_int, _preal, _preal]),
    ("fcd_system_set_distribution", _st, [_p, _C.c_int64, _index, _index]),
    ("fcd_system_get_distribution", _st, [_p, _C.POINTER(_C.c_int), _C.POINTER(_C.c_int),
                                          _pindex, _pindex]),
    ("fcd_system_natural_modes", _st, [_p, _index, _preal, _preal, _pindex]),
    ("fcd_system_read_matrix_market", _st, [_p, _C.c_int, _C.c_char_p]),
    ("fcd_system_matrix_nnz", _st, [_p, _C.c_int, _pindex, _pindex]),
    ("fcd_system_get_matrix_coo", _st, [_p, _C.c_int, _pindex, _pindex, _preal]),
    ("fcd_system_write_matrix_market", _st, [_p, _C.c_int, _C.c_char_p]),
    ("fcd_system_read_petsc_binary", _st, [_p, _C.c_int, _C.c_char_p]),
    ("fcd_matrix_file_read", _st, [_C.c_char_p, _C.c_int, _C.POINTER(_p), _C.c_char_p, _C.c_size_t]),
    ("fcd_matrix_file_get_info", _st, [_p, _p]),
    ("fcd_matrix_file_destroy", None, [_p]),
    ("fcd_matrix_format_name", _C.c_char_p, [_C.c_int]),
    ("fcd_matrix_format_from_name", _st, [_C.c_char_p, _C.POINTER(_C.c_int)]),
    ("fcd_registry_count", _C.c_int, [_C.c_int]),
    ("fcd_registry_entry", _st, [_C.c_int, _C.c_int, _C.POINTER(_C.c_char_p),
                                 _C.POINTER(_C.c_int), _C.POINTER(_C.c_char_p)]),
    ("fcd_dofmap_create", _st, [_C.POINTER(_p)]),
    ("fcd_dofmap_add_matrix", _st, [_p, _p]),
    ("fcd_dofmap_add", _st, [_p, _C.c_int64, _C.c_int]),
    ("fcd_dofmap_size", _index, [_p]),
    ("fcd_dofmap_index", _st, [_p, _C.c_int64, _C.c_int, _pindex]),
    ("fcd_dofmap_pair", _st, [_p, _index, _pindex, _pint]),
    ("fcd_dofmap_write", _st, [_p, _C.c_char_p, _C.c_char_p, _C.c_size_t]),
    ("fcd_dofmap_destroy", None, [_p]),
    ("fcd_system_set_matrix_file", _st, [_p, _C.c_int, _p, _p]),
    ("fcd_system_set_dofmap", _st, [_p, _p]),
    ("fcd_system_write_petsc_binary", _st, [_p, _C.c_int, _C.c_char_p]),
    ("fcd_contact_set_create", _st, [_p, _C.c_int, _C.POINTER(_p)]),
    ("fcd_contact_set_destroy", None, [_p]),
    ("fcd_contact_set_add_rigid", _st, [_p, _pindex, _preal, _preal, _real, _real, _pindex]),
    ("fcd_contact_set_add_rows", _st, [_p, _pindex, _pindex, _preal, _real, _real, _pindex]),
    ("fcd_contact_set_add_surface_pair", _st, [_p, _p, _index, _pindex, _index, _pindex, _C.c_int,
                                               _real, _pindex, _pindex]),
    ("fcd_contact_set_add_pair", _st, [_p, _pindex, _pindex, _preal, _preal, _real, _real, _pindex]),
    ("fcd_contact_set_size", _index, [_p]),
    ("fcd_contact_set_set_restitution", _st, [_p, _real]),
    ("fcd_contact_set_set_friction", _st, [_p, _index, _real]),
    ("fcd_contact_set_set_sliding_velocity", _st, [_p, _index, _preal]),
    ("fcd_integrator_create", _st, [_p, _p, _C.c_int, _C.POINTER(_p)]),
    ("fcd_integrator_destroy", None, [_p]),
    ("fcd_integrator_set_param", _st, [_p, _C.c_int, _real]),
    ("fcd_integrator_set_state", _st, [_p, _real, _preal, _preal]),
    ("fcd_integrator_step", _st, [_p]),
    ("fcd_integrator_advance", _st, [_p, _real]),
    ("fcd_integrator_get_state", _st, [_p, _preal, _preal, _preal]),
    ("fcd_integrator_get_reactions", _st, [_p, _preal]),
    ("fcd_integrator_get_energy", _st, [_p, _preal]),
    ("fcd_integrator_get_contact_status", _st, [_p, _pint]),
    ("fcd_stability_create", _st, [_p, _p, _C.POINTER(_p)]),
    ("fcd_stability_destroy", None, [_p]),
    ("fcd_stability_set_contact_state", _st, [_p, _pint, _preal]),
    ("fcd_stability_set_param", _st, [_p, _C.c_int, _real]),
    ("fcd_stability_solve", _st, [_p, _pindex]),
    ("fcd_stability_get_eigenvalue", _st, [_p, _index, _preal, _preal]),
    ("fcd_stability_get_mode", _st, [_p, _index, _preal, _preal]),
    ("fcd_stability_get_summary", _st, [_p, _pint, _pint, _pint, _preal]),
    ("fcd_stability_get_infinite_count", _st, [_p, _pindex]),
    ("fcd_stability_get_band", _st, [_p, _preal, _pindex, _pindex]),
    ("fcd_mesh_create", _st, [_p, _C.c_int, _index, _preal, _pindex, _C.POINTER(_p)]),
    ("fcd_mesh_destroy", None, [_p]),
    ("fcd_mesh_add_cells", _st, [_p, _C.c_int, _index, _pindex]),
    ("fcd_mesh_read", _st, [_p, _C.c_int, _C.c_char_p, _C.POINTER(_p)]),
    ("fcd_mesh_read_vtk", _st, [_p, _C.c_int, _C.c_char_p, _C.POINTER(_p)]),
    ("fcd_mesh_get_format", _C.c_int, [_p]),
    ("fcd_mesh_get_coords", _st, [_p, _C.POINTER(_preal)]),
    ("fcd_mesh_get_cells", _st, [_p, _C.POINTER(_index), _C.POINTER(_pindex), _C.POINTER(_pindex),
                                 _C.POINTER(_C.POINTER(_C.c_int))]),
    ("fcd_mesh_node_count", _index, [_p]),
    ("fcd_mesh_get_node_label", _st, [_p, _index, _C.POINTER(_C.c_int64)]),
    ("fcd_mesh_surface_count", _index, [_p]),
    ("fcd_mesh_surface_name", _C.c_char_p, [_p, _index]),
    ("fcd_mesh_get_surface", _st, [_p, _C.c_char_p, _C.POINTER(_index), _C.POINTER(_pindex)]),
    ("fcd_mesh_set_vtk_format", _st, [_p, _C.c_int]),
    ("fcd_mesh_write_vtk", _st, [_p, _C.c_char_p, _index, _C.POINTER(_C.c_char_p),
                                 _C.POINTER(_preal), _p, _pint]),
    ("fcd_series_create", _st, [_p, _p, _C.c_char_p, _C.c_char_p, _C.POINTER(_p)]),
    ("fcd_series_destroy", None, [_p]),
    ("fcd_series_flush", _st, [_p]),
    ("fcd_series_set_async", _st, [_p, _C.c_int]),
    ("fcd_series_write", _st, [_p, _real, _preal, _preal, _preal, _pint]),
    ("fcd_series_write_integrator", _st, [_p, _p]),
    ("fcd_series_get_info", _st, [_p, _pindex, _preal]),
    ("fcd_series_set_field", _st, [_p, _C.c_char_p, _real]),
    ("fcd_series_set_format", _st, [_p, _C.c_int]),
    ("fcd_series_write_mode", _st, [_p, _preal, _preal, _real, _real, _index]),
    ("fcd_equilibrium_create", _st, [_p, _p, _C.POINTER(_p)]),
    ("fcd_equilibrium_destroy", None, [_p]),
    ("fcd_equilibrium_set_param", _st, [_p, _C.c_int, _real]),
    ("fcd_equilibrium_solve", _st, [_p, _C.c_int, _real]),
    ("fcd_equilibrium_get_state", _st, [_p, _preal]),
    ("fcd_equilibrium_get_reactions", _st, [_p, _preal]),
    ("fcd_equilibrium_get_contact_state", _st, [_p, _pint, _preal]),
    ("fcd_equilibrium_set_reference", _st, [_p, _preal]),
    ("fcd_equilibrium_get_residual", _st, [_p, _preal, _preal]),
    ("fcd_equilibrium_get_certificate", _st, [_p, _preal]),
    ("fcd_equilibrium_get_mechanism", _st, [_p, _C.c_void_p, _preal]),
    ("fcd_equilibrium_set_mesh", _st, [_p, _p]),
    ("fcd_integrator_get_certificate", _st, [_p, _preal]),
    ("fcd_integrator_set_observer", _st, [_p, _C.c_void_p, _C.c_void_p]),
    ("fcd_stability_get_certificate", _st, [_p, _preal]),
    ("fcd_stability_get_path", _st, [_p, _pint]),
    ("fcd_stability_get_estimate", _st, [_p, _preal, _preal, _preal, _pindex]),
    ("fcd_stability_sweep", _st, [_p, _real, _real, _index, _C.c_void_p, _C.c_void_p]),
    ("fcd_system_read_fixed", _st, [_p, _C.c_char_p]),
    ("fcd_system_read_vector", _st, [_p, _C.c_char_p, _index, _preal]),
    ("fcd_system_support_reactions", _st, [_p, _real, _preal, _preal, _preal, _preal]),
    ("fcd_system_num_fixed", _index, [_p]),
    ("fcd_contact_set_read", _st, [_p, _C.c_char_p, _C.POINTER(_p)]),
    ("fcd_contact_set_dim", _C.c_int, [_p]),
    ("fcd_contact_set_read_state", _st, [_p, _C.c_char_p, _pint, _preal]),
    ("fcd_contact_set_add_rigid_n", _st, [_p, _index, _pindex, _preal, _preal, _preal, _preal,
                                          _preal, _pindex]),
    ("fcd_reduction_create", _st, [_p, _p, _index, _C.POINTER(_p)]),
    ("fcd_reduction_create_modal", _st, [_p, _p, _index, _C.POINTER(_p)]),
    ("fcd_reduction_create_enriched", _st, [_p, _p, _index, _index, _C.c_int, _C.POINTER(_p)]),
    ("fcd_reduction_get_inertia", _st, [_p, _pindex]),
    ("fcd_reduction_get_memory", _st, [_p, _C.POINTER(_C.c_int), _preal, _preal, _preal]),
    ("fcd_reduction_create_band", _st, [_p, _p, _index, _index, _C.c_int, _real, _real,
                                        _C.POINTER(_p)]),
    ("fcd_reduction_get_band", _st, [_p, _preal, _preal, _pindex]),
    ("fcd_reduction_options_init", None, [_C.POINTER(_ReductionOptions)]),
    ("fcd_reduction_create_opts", _st, [_p, _p, _C.POINTER(_ReductionOptions), _C.POINTER(_p)]),
    ("fcd_reduction_band_energy", _st, [_p, _preal, _preal]),
    ("fcd_reduction_expand_dofs", _st, [_p, _preal, _index, _pindex, _preal]),
    ("fcd_reduction_destroy", None, [_p]),
    ("fcd_reduction_system", _p, [_p]),
    ("fcd_reduction_contact_set", _p, [_p]),
    ("fcd_reduction_expand", _st, [_p, _preal, _preal]),
    ("fcd_reduction_restrict", _st, [_p, _preal, _preal]),
    ("fcd_reduction_residual", _st, [_p, _real, _preal, _preal, _preal, _preal]),
    ("fcd_reduction_get_info", _st, [_p, _pindex, _pindex, _preal, _pindex]),
    ("fcd_system_ndofs", _index, [_p]),
    ("fcd_periodic_create", _st, [_p, _p, _C.c_int, _C.POINTER(_p)]),
    ("fcd_periodic_destroy", None, [_p]),
    ("fcd_periodic_set_param", _st, [_p, _C.c_int, _real]),
    ("fcd_periodic_solve", _st, [_p, _preal, _preal, _real]),
    ("fcd_periodic_get_orbit", _st, [_p, _preal, _preal, _preal]),
    ("fcd_periodic_get_range", _st, [_p, _preal, _preal]),
    ("fcd_periodic_get_info", _st, [_p, _p]),
    ("fcd_periodic_get_multipliers", _st, [_p, _index, _preal, _preal, _pindex]),
    ("fcd_periodic_continue", _st, [_p, _real, _real, _index, _p, _p]),
    ("fcd_periodic_set_forcing", _st, [_p, _real, _p, _p]),
    ("fcd_periodic_set_harmonic_forcing", _st, [_p, _real, _index, _pindex, _preal, _preal]),
    ("fcd_periodic_continue_forcing", _st, [_p, _C.c_int, _real, _real, _index, _p, _p]),
]:
    _f[_name] = _fn(_name, _res, *_args)

class _PeriodicInfo(_C.Structure):
    _fields_ = [("converged", _C.c_int), ("period", _real), ("steps", _index),
                ("iterations", _index), ("evaluations", _index), ("residual", _real),
                ("amplitude_u", _real), ("amplitude_v", _real), ("multipliers", _index),
                ("trivial_error", _real), ("max_multiplier", _real), ("mu", _real),
                ("stable", _C.c_int)]


class _Counts(_C.Structure):
    _fields_ = [("open", _index), ("stick", _index), ("slip", _index)]


class _Mechanism(_C.Structure):
    _fields_ = [("kind", _C.c_int), ("motion", _C.c_int), ("unbalance", _real),
                ("force_scale", _real), ("direction", _real * 3), ("point", _real * 3),
                ("dof", _index), ("contact", _index), ("pivot", _index), ("nmodes", _index),
                ("reserved", _real * 4)]


_MECH_KINDS = {0: None, 1: "unsupported", 2: "separation", 3: "tipping", 4: "gross-slip"}
_MOTION_KINDS = {0: None, 1: "translation", 2: "rotation", 3: "screw"}


_OBSERVER = _C.CFUNCTYPE(_C.c_int, _C.c_void_p, _real, _index, _preal, _preal, _index, _preal,
                         _C.POINTER(_Counts))
_SWEEP = _C.CFUNCTYPE(_C.c_int, _C.c_void_p, _real, _index, _preal, _preal, _pindex)
_CERT_KEYS = ("equilibrium", "penetration", "complementarity", "cone", "worst", "tolerance",
              "force_scale", "length_scale")


def _certificate(fn, h, check):
    c = _np.zeros(12)  # fcd_certificate: 8 figures and 4 reserved
    check(_f[fn](h, _pr(c)))
    return dict(zip(_CERT_KEYS, (float(x) for x in c[:8])))


_FAMILY = {"scheme": 0, "contact-solver": 1, "matrix-format": 2, "mesh-format": 3,
           "eigen-path": 4, "output-format": 5}


def registry(family):
    """The names of a family of choices as the library registers them
    (fcd/fcd_registry.h): a list of (name, value, summary), the default first where the
    family has one. family: 'scheme', 'contact-solver', 'matrix-format', 'mesh-format',
    'eigen-path' or 'output-format'. The binding's own keywords (Integrator(scheme=...),
    contact_solver=..., Stability(eigen_path=...), Series(format=...)) are these names."""
    if family not in _FAMILY:
        raise ValueError("unknown family %r (one of %s)" % (family, ", ".join(sorted(_FAMILY))))
    fam = _FAMILY[family]
    out = []
    for k in range(_f["fcd_registry_count"](fam)):
        name, summary, value = _C.c_char_p(), _C.c_char_p(), _C.c_int()
        _f["fcd_registry_entry"](fam, k, _C.byref(name), _C.byref(value), _C.byref(summary))
        out.append((name.value.decode(), value.value, summary.value.decode()))
    return out


def _names_of(family):
    return {name: value for name, value, _ in registry(family)}


_MATRIX = {"mass": 0, "stiffness": 1, "damping": 2}
_SCHEME = _names_of("scheme")
_CONTACT = {"open": 0, "stick": 1, "slip": 2}
_CONTACT_NAMES = {v: k for k, v in _CONTACT.items()}
_IT_PARAM = {"step": 100, "theta": 101, "tolerance": 102, "max_iter": 103, "contact_solver": 104,
             "cert_tol": 105, "energy_check": 106}
_FC_SOLVER = _names_of("contact-solver")
_ST_PARAM = {"nev": 500, "target_hz": 501, "mu": 502, "tolerance": 503, "damping": 504,
             "dense_max": 505, "projection_modes": 506, "max_iter": 507,
             "share_sweep": 508, "estimate_modes": 509, "band_hz": 510, "eigen_path": 511}
_EIGEN_PATH = _names_of("eigen-path")
_OUTPUT_FORMAT = _names_of("output-format")
_EQ_KIND = {"static": 0, "steady-sliding": 1}
_EQ_PARAM = {"tolerance": 102, "max_iter": 103, "contact_solver": 104, "classify_tol": 400}


def version():
    """Version of the loaded library, e.g. '0.1.0'."""
    return _f["fcd_version_string"]().decode()


def has_feature(name):
    """Whether the loaded library was built with the optional part ``name``."""
    if not isinstance(name, str):
        raise TypeError("has_feature: name must be a str")
    return bool(_f["fcd_has_feature"](name.encode()))


def features():
    """The optional parts the loaded library was built with."""
    return _f["fcd_features"]().decode().split()


# ---- argument checking --------------------------------------------------------------

def _real_array(x, name, shape=None):
    a = _np.asarray(x)
    if a.dtype.kind not in "iuf" or a.dtype == _np.bool_:
        raise TypeError("%s: expected real numbers, got an array of dtype %s" % (name, a.dtype))
    a = _np.ascontiguousarray(a, dtype=_np.float64)
    if shape is not None and a.shape != tuple(shape):
        raise ValueError("%s: expected shape %s, got %s" % (name, tuple(shape), a.shape))
    return a


_I64 = (-(1 << 63), (1 << 63) - 1)


def _scalar(x, name):
    """A real scalar argument as C will take it: an int, float or numpy real (a string,
    None or a complex number raises TypeError: float("1e-3") would pass a string on)."""
    if not isinstance(x, (_numbers.Real, _np.integer, _np.floating)):
        raise TypeError("%s: expected a real number, got %s" % (name, type(x).__name__))
    return float(x)


def _int(x, name, lo=_I64[0], hi=_I64[1]):
    """An integer argument as C will take it: an int or numpy integer (not a bool, not a
    float), within [lo, hi]. ctypes would wrap 2**64 + 3 to 3 without a word."""
    if isinstance(x, bool) or not isinstance(x, (int, _np.integer)):
        raise TypeError("%s: expected an int, got %s" % (name, type(x).__name__))
    v = int(x)
    if not lo <= v <= hi:
        raise OverflowError("%s: %d is outside [%d, %d]" % (name, v, lo, hi))
    return v


def _index_array(x, name, length=None, shape=None):
    a = _np.asarray(x)
    if a.dtype.kind == "O" and a.size and all(isinstance(v, (int, _np.integer))
                                              and not isinstance(v, bool) for v in a.flat):
        # Python ints past 64 bits make an object array: name the one that does not fit
        for v in a.flat:
            _int(v, name)
    if a.dtype.kind not in "iu":
        if a.dtype.kind == "f" and a.size and _np.all(_np.floor(a) == a):
            pass
        elif a.dtype.kind == "f" and a.size:
            bad = a.flat[int(_np.flatnonzero(_np.floor(a) != a)[0])]
            raise TypeError("%s: expected integer indices, got %r" % (name, bad))
        elif a.size:
            raise TypeError("%s: expected integer indices, got dtype %s" % (name, a.dtype))
    if a.size and a.dtype.kind in "uf":
        # compared as Python ints: 2**63 as uint64 against int64's largest compared in
        # float, equal, and the cast wrapped it to -2**63
        hi, lo = int(a.max()), int(a.min())
        if hi > _I64[1] or lo < _I64[0]:
            raise OverflowError("%s: %d does not fit a 64-bit index"
                                % (name, hi if hi > _I64[1] else lo))
    a = _np.ascontiguousarray(a, dtype=_np.int64)
    if shape is not None:
        if a.shape != tuple(shape):
            raise ValueError("%s: expected shape %s, got %s" % (name, tuple(shape), a.shape))
        return a
    if a.ndim != 1:
        raise ValueError("%s: expected a 1-D array of indices, got shape %s" % (name, a.shape))
    if length is not None and a.shape[0] != length:
        raise ValueError("%s: expected %d indices, got %d" % (name, length, a.shape[0]))
    return a


def _pr(a):
    return a.ctypes.data_as(_preal) if a is not None else None


def _pi(a):
    return a.ctypes.data_as(_pindex) if a is not None else None


def _key(table, value, what):
    if isinstance(value, str):
        if value not in table:
            raise ValueError("unknown %s %r (one of %s)" % (what, value, ", ".join(sorted(table))))
        return table[value]
    raise TypeError("%s must be a str (one of %s)" % (what, ", ".join(sorted(table))))


def _reraise(raised, owner, status):
    """After a C call that ran Python callbacks: the first exception a callback raised
    (the call's own failure, "observer returned 1", as its context), else the call's
    status."""
    if raised:
        try:
            owner._check(status)
        except FcdError as e:
            raise raised[0] from e
        raise raised[0]
    owner._check(status)


class _Owner:
    """A handle with its system (for the error message) and a destructor. close() (or
    leaving a ``with`` block) destroys the handle now; any later use raises ValueError
    naming it, where the C call would have failed with another call's message."""
    _destroy = None

    @property
    def _h(self):
        h = self.__dict__.get("_handle")
        if h is None:
            raise ValueError("this fcd.%s is closed (close() or a with block ended it)"
                             % type(self).__name__)
        return h

    @_h.setter
    def _h(self, h):
        self.__dict__["_handle"] = h

    def _check(self, status):
        if status != 0:
            msg = _f["fcd_system_last_error"](self._sys_handle())
            raise FcdError(status, msg.decode(errors="replace") if msg else "")

    def close(self):
        """Destroys the handle now (the garbage collector would later); idempotent."""
        h = self.__dict__.get("_handle")
        if h and self._destroy:
            _f[self._destroy](h)
        self.__dict__["_handle"] = None

    @property
    def closed(self):
        return self.__dict__.get("_handle") is None

    def __enter__(self):
        self._h  # a closed handle cannot be entered
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        self.close()


# ---- the system ---------------------------------------------------------------------

class System(_Owner):
    """A structure's M, C and K on ``ndofs`` degrees of freedom."""
    _destroy = "fcd_system_destroy"

    def __init__(self, ndofs):
        n = _int(ndofs, "ndofs", 0)
        h = _p()
        st = _f["fcd_system_create"](n, _C.byref(h))
        if st != 0:
            raise FcdError(st, "system_create: %d dofs" % n)
        self._h = h
        self.ndofs = n

    def _sys_handle(self):
        return self._h

    def set_matrix(self, which, A):
        """Sets 'mass', 'stiffness' or 'damping' from a scipy.sparse matrix or a dense
        2-D array (all entries given; explicit zeros are dropped)."""
        kind = _key(_MATRIX, which, "matrix")
        n = self.ndofs
        try:
            import scipy.sparse as sp
            is_sparse = sp.issparse(A)
        except ImportError:
            is_sparse = False
        if is_sparse:
            if A.dtype.kind not in "iuf" or A.dtype == _np.bool_:
                raise TypeError("%s: expected a real matrix, got dtype %s" % (which, A.dtype))
            if A.shape != (n, n):
                raise ValueError("%s: expected shape (%d, %d), got %s" % (which, n, n, A.shape))
            coo = A.tocoo()
            rows, cols, vals = coo.row, coo.col, coo.data
        else:
            dense = _real_array(A, which, (n, n))
            rows, cols = _np.nonzero(dense)
            vals = dense[rows, cols]
        rows = _index_array(rows, which + " rows")
        cols = _index_array(cols, which + " cols")
        vals = _real_array(vals, which + " values")
        self._check(_f["fcd_system_set_matrix_coo"](self._h, kind, rows.shape[0], _pi(rows),
                                                    _pi(cols), _pr(vals), 0))

    def matrix(self, which):
        """Matrix 'mass', 'stiffness' or 'damping' as a scipy.sparse CSR matrix (both
        triangles of a symmetric one; the Rayleigh terms are not included)."""
        import scipy.sparse as sp
        kind = _key(_MATRIX, which, "matrix")
        stored, full = _index(0), _index(0)
        self._check(_f["fcd_system_matrix_nnz"](self._h, kind, _C.byref(stored), _C.byref(full)))
        nz = full.value
        r, c = _np.empty(nz, dtype=_np.int64), _np.empty(nz, dtype=_np.int64)
        v = _np.empty(nz)
        self._check(_f["fcd_system_get_matrix_coo"](self._h, kind, _pi(r), _pi(c), _pr(v)))
        return sp.csr_matrix((v, (r, c)), shape=(self.ndofs, self.ndofs))

    def fix_dofs(self, dofs, values=None):
        """Prescribes ``dofs`` (to ``values``, default zero)."""
        d = _index_array(dofs, "dofs")
        v = None if values is None else _real_array(values, "values", (d.shape[0],))
        self._check(_f["fcd_system_fix_dofs"](self._h, d.shape[0], _pi(d), _pr(v)))

    def set_load(self, f):
        """A constant load vector (ndofs)."""
        a = _real_array(f, "f", (self.ndofs,))
        self._check(_f["fcd_system_set_load"](self._h, _pr(a)))

    def set_rayleigh(self, alpha, beta):
        """Rayleigh damping C += alpha M + beta K."""
        self._check(_f["fcd_system_set_rayleigh"](self._h, _scalar(alpha, "alpha"), _scalar(beta, "beta")))

    def set_distribution(self, comm_f, row_begin, row_end):
        """Distributes the system over the communicator whose Fortran handle is ``comm_f``
        (mpi4py: ``comm.py2f()``; -1: serial again); this rank owns rows
        [row_begin, row_end). Collective, before any matrix (fcd/fcd_system.h)."""
        self._check(_f["fcd_system_set_distribution"](self._h, _int(comm_f, "comm_f"),
                                                      _int(row_begin, "row_begin", 0),
                                                      _int(row_end, "row_end", 0)))

    @property
    def distribution(self):
        """(rank, number of ranks, first owned row, one past the last)."""
        r, n = _C.c_int(), _C.c_int()
        b, e = _np.zeros(1, dtype=_np.int64), _np.zeros(1, dtype=_np.int64)
        self._check(_f["fcd_system_get_distribution"](self._h, _C.byref(r), _C.byref(n),
                                                      _pi(b), _pi(e)))
        return r.value, n.value, int(b[0]), int(e[0])

    def apply(self, which, x):
        """y = A x for matrix 'mass', 'stiffness' or 'damping' (with Rayleigh terms)."""
        kind = _key(_MATRIX, which, "matrix")
        a = _real_array(x, "x", (self.ndofs,))
        y = _np.empty(self.ndofs)
        self._check(_f["fcd_system_apply"](self._h, kind, _pr(a), _pr(y)))
        return y

    def natural_modes(self, nev):
        """The ``nev`` lowest omega^2 of K x = omega^2 M x on the free dofs and their
        mass-normalized modes (ndofs x nconv, one per column)."""
        nev = _int(nev, "nev", 1, self.ndofs)
        w = _np.empty(nev)
        modes = _np.empty((nev, self.ndofs))
        nc = _index(0)
        self._check(_f["fcd_system_natural_modes"](self._h, nev, _pr(w), _pr(modes),
                                                   _C.byref(nc)))
        return w[:nc.value].copy(), modes[:nc.value].T.copy()

    def _io(self, fn, which, path):
        kind = _key(_MATRIX, which, "matrix")
        self._check(_f[fn](self._h, kind, _os.fsencode(path)))

    def read_fixed(self, path):
        """Prescribes the dofs of a text file (one 0-based dof per line, optionally
        followed by its value), as `fcd --fixed` reads it."""
        self._check(_f["fcd_system_read_fixed"](self._h, _os.fsencode(path)))

    def read_vector(self, path):
        """A vector of ndofs values from a text file (any number per line)."""
        x = _np.empty(self.ndofs)
        self._check(_f["fcd_system_read_vector"](self._h, _os.fsencode(path), self.ndofs, _pr(x)))
        return x

    def support_reactions(self, u, v=None, a=None, t=0.0):
        """The forces the supports exert at the prescribed dofs (in increasing dof
        order): M a + C v + K u - f(t) there; v and a may be None (a static state)."""
        n = self.ndofs
        uu = _real_array(u, "u", (n,))
        vv = _real_array(v, "v", (n,)) if v is not None else None
        aa = _real_array(a, "a", (n,)) if a is not None else None
        r = _np.empty(max(int(_f["fcd_system_num_fixed"](self._h)), 1))
        self._check(_f["fcd_system_support_reactions"](self._h, _scalar(t, "t"), _pr(uu), _pr(vv),
                                                       _pr(aa), _pr(r)))
        return r[: int(_f["fcd_system_num_fixed"](self._h))]

    def read_matrix_market(self, which, path):
        self._io("fcd_system_read_matrix_market", which, path)

    def write_matrix_market(self, which, path):
        self._io("fcd_system_write_matrix_market", which, path)

    def read_petsc_binary(self, which, path):
        self._io("fcd_system_read_petsc_binary", which, path)

    def set_dofmap(self, dofmap):
        """Gives the system a copy of an fcd.DofMap (None removes it): its files may then
        name dofs as `node LABEL DOF` (read_fixed, read_vector, contact files)."""
        if dofmap is not None and not isinstance(dofmap, DofMap):
            raise TypeError("dofmap must be an fcd.DofMap or None, not %s"
                            % type(dofmap).__name__)
        self._check(_f["fcd_system_set_dofmap"](self._h,
                                                dofmap._h if dofmap is not None else None))

    def set_matrix_file(self, which, matrix, dofmap=None):
        """Sets matrix ``which`` from an fcd.MatrixFile: an indexed one of the system's
        order, a labelled one through ``dofmap`` (an fcd.DofMap of the system's size)."""
        kind = _key(_MATRIX, which, "matrix")
        if not isinstance(matrix, MatrixFile):
            raise TypeError("matrix must be an fcd.MatrixFile, not %s" % type(matrix).__name__)
        if dofmap is not None and not isinstance(dofmap, DofMap):
            raise TypeError("dofmap must be an fcd.DofMap or None, not %s"
                            % type(dofmap).__name__)
        self._check(_f["fcd_system_set_matrix_file"](self._h, kind, matrix._h,
                                                     dofmap._h if dofmap is not None else None))

    def write_petsc_binary(self, which, path):
        self._io("fcd_system_write_petsc_binary", which, path)


class _Child(_Owner):
    """A handle made from a system (and a contact set): the C handles of its parents are
    kept as they were at creation, which the C child retains, so that closing a parent's
    Python object leaves the child working (fcd's own ownership rule)."""

    def _sys_handle(self):
        return self._sysh

    def _bind(self, system, contacts=None, need_contacts=False):
        """Checks and keeps the parents (so that they outlive this handle); returns the
        contact set's handle or None."""
        if not isinstance(system, System):
            raise TypeError("system must be an fcd.System")
        if contacts is None and need_contacts:
            raise TypeError("contacts must be an fcd.ContactSet")
        if contacts is not None and not isinstance(contacts, ContactSet):
            raise TypeError("contacts must be an fcd.ContactSet or None")
        self._system, self._contacts = system, contacts
        self._sysh, self._ndofs = system._h, system.ndofs
        self._csh = contacts._h if contacts is not None else None
        self._cdim = contacts.dim if contacts is not None else 2
        return self._csh

    def _nc(self):
        """contacts of the set now (it may grow after this handle was made)"""
        return int(_f["fcd_contact_set_size"](self._csh)) if self._csh is not None else 0


class ContactSet(_Child):
    """Unilateral contacts with Coulomb friction, in dimension 2 or 3."""
    _destroy = "fcd_contact_set_destroy"

    def __init__(self, system, dim):
        self._bind(system)
        if _int(dim, "dim") not in (2, 3):
            raise ValueError("dim must be 2 or 3")
        h = _p()
        self._check(_f["fcd_contact_set_create"](system._h, int(dim), _C.byref(h)))
        self._h = h
        self.dim = int(dim)

    def _frame(self, normal, tangent):
        n = _real_array(normal, "normal", (self.dim,))
        t = _real_array(tangent, "tangent", (self.dim,))
        return n, t

    def add_rigid(self, dofs, normal, tangent, gap=0.0, mu=0.0):
        """A node (its ``dim`` dofs) against a rigid obstacle; returns the contact id."""
        d = _index_array(dofs, "dofs", self.dim)
        n, t = self._frame(normal, tangent)
        cid = _index(-1)
        self._check(_f["fcd_contact_set_add_rigid"](self._h, _pi(d), _pr(n), _pr(t),
                                                    _scalar(gap, "gap"), _scalar(mu, "mu"), _C.byref(cid)))
        return cid.value

    def add_pair(self, dofs_a, dofs_b, normal, tangent, gap=0.0, mu=0.0):
        """Node A against node B of another body; returns the contact id."""
        a = _index_array(dofs_a, "dofs_a", self.dim)
        b = _index_array(dofs_b, "dofs_b", self.dim)
        n, t = self._frame(normal, tangent)
        cid = _index(-1)
        self._check(_f["fcd_contact_set_add_pair"](self._h, _pi(a), _pi(b), _pr(n), _pr(t),
                                                   _scalar(gap, "gap"), _scalar(mu, "mu"), _C.byref(cid)))
        return cid.value

    def add_rows(self, rows, gap=0.0, mu=0.0):
        """A contact given by its rows of H (non-matching meshes: node-to-segment or
        mortar weights): ``rows`` holds ``dim`` rows (N, T[, B]), each a sequence of
        (dof, weight) pairs. Returns the contact id."""
        rows = list(rows)
        if len(rows) != self.dim:
            raise ValueError("rows: expected %d rows (N, T%s), got %d"
                             % (self.dim, ", B" if self.dim == 3 else "", len(rows)))
        ptr, dofs, w = [0], [], []
        for k, row in enumerate(rows):
            for entry in row:
                if len(entry) != 2:
                    raise ValueError("rows[%d]: expected (dof, weight) pairs" % k)
                dofs.append(entry[0])
                w.append(entry[1])
            ptr.append(len(dofs))
        p = _index_array(ptr, "row_ptr")
        d = _index_array(dofs, "dofs")
        wa = _real_array(w, "weights")
        cid = _index(-1)
        self._check(_f["fcd_contact_set_add_rows"](self._h, _pi(p), _pi(d), _pr(wa),
                                                   _scalar(gap, "gap"), _scalar(mu, "mu"), _C.byref(cid)))
        return cid.value

    def add_surface_pair(self, mesh, slave, master, method="dual-mortar", mu=0.0):
        """Contacts between two surfaces of ``mesh`` that need not match: ``slave`` and
        ``master`` are segments (pairs of mesh nodes) in 2D, facets in 3D (triangles or
        quadrilaterals: 3 or 4 mesh nodes each, or 4 with -1 fourth for a triangle);
        ``method`` 'dual-mortar' or 'node-to-segment' (node-to-facet in 3D). Returns (ids
        of the new contacts, number of slave nodes that face no master facet)."""
        m = {"node-to-segment": 0, "dual-mortar": 1}
        if method not in m:
            raise ValueError("unknown method %r (dual-mortar, node-to-segment)" % (method,))
        per = 2 if self.dim == 2 else 4

        def flat(facets, name):
            out = []
            for f in facets:
                f = [_int(i, name) for i in f]
                if len(f) == 3 and per == 4:
                    f.append(-1)
                if len(f) != per:
                    raise ValueError("%s: each %s needs %s node ids, got %d" % (
                        name, "segment" if per == 2 else "facet",
                        "2" if per == 2 else "3 or 4", len(f)))
                out.extend(f)
            return _index_array(_np.asarray(out, dtype=_np.int64), name)

        s = flat(slave, "slave")
        t = flat(master, "master")
        first, inactive, n0 = _index(-1), _index(0), len(self)
        self._check(_f["fcd_contact_set_add_surface_pair"](
            self._h, mesh._h, len(s) // per, _pi(s), len(t) // per, _pi(t), m[method],
            _scalar(mu, "mu"), _C.byref(first), _C.byref(inactive)))
        return list(range(n0, len(self))), inactive.value

    @classmethod
    def read(cls, system, path):
        """A contact set from an fcd contact file (docs/file-formats.md)."""
        self = cls.__new__(cls)
        self._bind(system)
        h = _p()
        self._check(_f["fcd_contact_set_read"](system._h, _os.fsencode(path), _C.byref(h)))
        self._h = h
        self.dim = int(_f["fcd_contact_set_dim"](h))
        return self

    def read_state(self, path):
        """(status, slip) from a state file of `fcd equilibrium`, ready for
        Stability.set_contact_state."""
        n = len(self)
        s = _np.empty(max(n, 1), dtype=_np.intc)
        sl = _np.empty(max(n * (self.dim - 1), 1))
        self._check(_f["fcd_contact_set_read_state"](self._h, _os.fsencode(path),
                                                     s.ctypes.data_as(_pint), _pr(sl)))
        return ([_CONTACT_NAMES.get(int(x), int(x)) for x in s[:n]],
                sl[: n * (self.dim - 1)].reshape(n, self.dim - 1))

    def add_rigid_many(self, dofs, normals, tangents, mu, gaps=None, vg=None):
        """Adds n rigid contacts in one call (all or nothing): ``dofs``, ``normals`` and
        ``tangents`` of shape (n, dim), ``mu`` and ``gaps`` of n (or scalars), ``vg``
        of shape (n, dim - 1) or None. Returns the ids (a range)."""
        d = _np.asarray(dofs)
        if d.ndim != 2 or d.shape[1] != self.dim:
            raise ValueError("dofs: expected shape (n, %d), got %s" % (self.dim, d.shape))
        # as add_rigid: integral dofs only (2.7 was truncated to 2 here)
        d = _index_array(d, "dofs", shape=d.shape)
        n = d.shape[0]
        nr = _real_array(normals, "normals", (n, self.dim))
        tg = _real_array(tangents, "tangents", (n, self.dim))
        m = _real_array(_np.broadcast_to(mu, (n,)), "mu", (n,))
        g = _real_array(_np.broadcast_to(gaps, (n,)), "gaps", (n,)) if gaps is not None else None
        v = _real_array(vg, "vg", (n, self.dim - 1)) if vg is not None else None
        first = _index(-1)
        self._check(_f["fcd_contact_set_add_rigid_n"](self._h, n, _pi(d), _pr(nr), _pr(tg),
                                                      _pr(g), _pr(m), _pr(v), _C.byref(first)))
        return range(first.value, first.value + n)

    def __len__(self):
        return int(_f["fcd_contact_set_size"](self._h))

    def set_restitution(self, e):
        self._check(_f["fcd_contact_set_set_restitution"](self._h, _scalar(e, "e")))

    def set_friction(self, contact, mu):
        """Friction coefficient of one contact for every later solve."""
        self._check(_f["fcd_contact_set_set_friction"](self._h, _int(contact, "contact"),
                                                       _scalar(mu, "mu")))

    def set_sliding_velocity(self, contact, vg):
        v = _real_array(vg, "vg", (self.dim - 1,))
        self._check(_f["fcd_contact_set_set_sliding_velocity"](self._h,
                                                               _int(contact, "contact"), _pr(v)))


def _statuses(status, n):
    if len(status) != n:
        raise ValueError("status: expected %d entries, got %d" % (n, len(status)))
    out = _np.empty(n, dtype=_np.intc)
    for i, s in enumerate(status):
        if isinstance(s, str):
            out[i] = _key(_CONTACT, s, "contact status")
        elif isinstance(s, (int, _np.integer)) and not isinstance(s, bool):
            out[i] = _int(s, "status[%d]" % i, -(1 << 31), (1 << 31) - 1)
        else:
            raise TypeError("status[%d]: expected 'open', 'stick' or 'slip'" % i)
    return out


class Integrator(_Child):
    """Nonsmooth time integration of a system with contacts."""
    _destroy = "fcd_integrator_destroy"

    def __init__(self, system, contacts=None, scheme="moreau-jean", **params):
        ch = self._bind(system, contacts)
        h = _p()
        self._check(_f["fcd_integrator_create"](system._h, ch, _key(_SCHEME, scheme, "scheme"),
                                                _C.byref(h)))
        self._h = h
        self._raised = []
        for k, v in params.items():
            self.set_param(k, v)

    def set_param(self, key, value):
        """'step', 'theta', 'tolerance', 'max_iter' or 'contact_solver' ('auto',
        'fixed-point', 'nsgs', 'newton')."""
        k = _key(_IT_PARAM, key, "integrator parameter")
        if key == "contact_solver":
            value = _key(_FC_SOLVER, value, "contact solver")
        self._check(_f["fcd_integrator_set_param"](self._h, k, _scalar(value, "value")))

    def set_state(self, t, u, v):
        n = self._ndofs
        a, b = _real_array(u, "u", (n,)), _real_array(v, "v", (n,))
        self._check(_f["fcd_integrator_set_state"](self._h, _scalar(t, "t"), _pr(a), _pr(b)))

    def step(self):
        self._raised = []
        _reraise(self._raised, self, _f["fcd_integrator_step"](self._h))

    def advance(self, t_end):
        self._raised = []
        _reraise(self._raised, self, _f["fcd_integrator_advance"](self._h, _scalar(t_end, "t_end")))

    @property
    def state(self):
        """(t, u, v)."""
        n = self._ndofs
        t, u, v = _real(0), _np.empty(n), _np.empty(n)
        self._check(_f["fcd_integrator_get_state"](self._h, _C.byref(t), _pr(u), _pr(v)))
        return t.value, u, v

    @property
    def reactions(self):
        """Local reactions of the last step (ncontacts x dim)."""
        if self._csh is None:
            return _np.empty((0, 2))
        nc, d = self._nc(), self._cdim
        r = _np.empty(max(nc * d, 1))
        self._check(_f["fcd_integrator_get_reactions"](self._h, _pr(r)))
        return r[: nc * d].reshape(nc, d)

    @property
    def contact_status(self):
        if self._csh is None:
            return []
        s = _np.empty(max(self._nc(), 1), dtype=_np.intc)[: self._nc()]
        self._check(_f["fcd_integrator_get_contact_status"](self._h, s.ctypes.data_as(_pint)))
        return [_CONTACT_NAMES.get(int(x), int(x)) for x in s]

    @property
    def energy(self):
        """The energy ledger as a dict (see fcd_energy)."""
        e = _np.empty(7)
        self._check(_f["fcd_integrator_get_energy"](self._h, _pr(e)))
        keys = ("kinetic", "potential", "external_work", "damping_dissipation",
                "friction_dissipation", "impact_dissipation", "numerical_dissipation")
        return dict(zip(keys, (float(x) for x in e)))

    @property
    def certificate(self):
        """The worst certificate of the last step (dict: equilibrium, penetration,
        complementarity, cone, worst, tolerance, force_scale, length_scale)."""
        return _certificate("fcd_integrator_get_certificate", self._h, self._check)

    def set_observer(self, fn):
        """Calls ``fn(t, u, v, r, counts)`` after every step (u, v: ndofs arrays; r: the
        local reactions; counts: dict open/stick/slip); a true return stops the run
        (FcdError FCD_E_CALLBACK). None removes it. Exceptions in fn stop the run too."""
        if fn is None:
            self._observer = None
            self._check(_f["fcd_integrator_set_observer"](self._h, None, None))
            return

        if not callable(fn):
            raise TypeError("set_observer: expected a callable or None, got %s"
                            % type(fn).__name__)

        def tramp(ud, t, n, u, v, nl, r, counts):
            try:
                c = counts.contents
                stop = fn(float(t), _np.ctypeslib.as_array(u, (n,)).copy(),
                          _np.ctypeslib.as_array(v, (n,)).copy(),
                          _np.ctypeslib.as_array(r, (nl,)).copy() if nl > 0 else _np.empty(0),
                          {"open": c.open, "stick": c.stick, "slip": c.slip})
                return 1 if stop else 0
            except BaseException as e:  # must not cross the C frames: step() raises it
                self._raised.append(e)
                return 1

        self._observer = _OBSERVER(tramp)  # kept alive as long as it is installed
        self._check(_f["fcd_integrator_set_observer"](self._h, _C.cast(self._observer, _C.c_void_p),
                                                      None))


class Stability(_Child):
    """Eigenvalues of the friction-linearized pencil about a contact state."""
    _destroy = "fcd_stability_destroy"

    def __init__(self, system, contacts=None, **params):
        ch = self._bind(system, contacts)
        h = _p()
        self._check(_f["fcd_stability_create"](system._h, ch, _C.byref(h)))
        self._h = h
        self._n = 0
        for k, v in params.items():
            self.set_param(k, v)

    def set_param(self, key, value):
        """'nev', 'target_hz', 'mu', 'tolerance', 'damping', 'dense_max',
        'projection_modes', 'max_iter', 'share_sweep', 'estimate_modes', 'band_hz' or
        'eigen_path' (a name of registry('eigen-path'), or 'auto')."""
        if key == "eigen_path":
            value = -1 if value == "auto" else _key(_EIGEN_PATH, value, "eigen path")
        self._check(_f["fcd_stability_set_param"](self._h, _key(_ST_PARAM, key, "stability "
                                                                 "parameter"), _scalar(value, "value")))

    def set_contact_state(self, status, slip=None):
        """``status``: one of 'open', 'stick', 'slip' per contact; ``slip``: the unit
        slip direction in the tangent plane, (dim - 1) per contact (read for 'slip')."""
        n = self._nc()
        s = _statuses(list(status), n)
        d = self._cdim
        sl = None
        if slip is not None:
            sl = _real_array(slip, "slip")
            if sl.size != n * (d - 1):
                raise ValueError("slip: expected %d entries ((dim - 1) per contact), got %d"
                                 % (n * (d - 1), sl.size))
            sl = _np.ascontiguousarray(sl.reshape(-1))
        self._check(_f["fcd_stability_set_contact_state"](self._h, s.ctypes.data_as(_pint),
                                                          _pr(sl)))

    def solve(self):
        """Solves; returns the eigenvalues (complex, sorted by decreasing real part)."""
        nc = _index(0)
        self._check(_f["fcd_stability_solve"](self._h, _C.byref(nc)))
        self._n = nc.value
        out = _np.empty(self._n, dtype=complex)
        re, im = _real(0), _real(0)
        for i in range(self._n):
            self._check(_f["fcd_stability_get_eigenvalue"](self._h, i, _C.byref(re),
                                                           _C.byref(im)))
            out[i] = complex(re.value, im.value)
        return out

    def mode(self, i):
        """Mode shape i (complex, ndofs)."""
        n = self._ndofs
        re, im = _np.empty(n), _np.empty(n)
        self._check(_f["fcd_stability_get_mode"](self._h, _int(i, "i"), _pr(re), _pr(im)))
        return re + 1j * im

    @property
    def path(self):
        """The eigen-path of the last good solve, a name of registry('eigen-path')."""
        p = _C.c_int()
        self._check(_f["fcd_stability_get_path"](self._h, _C.byref(p)))
        return {v: k for k, v in _EIGEN_PATH.items()}[p.value]

    @property
    def certificate(self):
        """The eigenpairs' backward error of the last solve (dict; docs/stability.md)."""
        return _certificate("fcd_stability_get_certificate", self._h, self._check)

    def sweep(self, mu0, mu1, steps):
        """Friction sweep: a list of (mu, eigenvalues, tracks) for ``steps`` values of mu
        from mu0 to mu1, the modes tracked by MAC across the steps."""
        out, raised = [], []
        steps = _int(steps, "steps")

        def tramp(ud, mu, n, re, im, track):
            try:
                lam = (_np.ctypeslib.as_array(re, (n,)) + 1j * _np.ctypeslib.as_array(im, (n,))
                       if n > 0 else _np.empty(0, dtype=complex))
                tr = _np.ctypeslib.as_array(track, (n,)).copy() if n > 0 else _np.empty(0, int)
                out.append((float(mu), lam.copy(), tr))
                return 0
            except BaseException as e:  # must not cross the C frames: raised below
                raised.append(e)
                return 1

        cb = _SWEEP(tramp)
        st = _f["fcd_stability_sweep"](self._h, _scalar(mu0, "mu0"), _scalar(mu1, "mu1"), steps,
                                       _C.cast(cb, _C.c_void_p), None)
        _reraise(raised, self, st)
        return out

    @property
    def estimate(self):
        """The global estimate beside a partial window (parameter 'estimate_modes'), as a
        dict: re and im of the projected eigenvalue of largest real part, band_hz (the
        basis' highest mode) and nmodes; None when the last solve computed none (the
        whole spectrum was computed, or the parameter is 0)."""
        re, im, band, nm = _real(0), _real(0), _real(0), _index(0)
        st = _f["fcd_stability_get_estimate"](self._h, _C.byref(re), _C.byref(im),
                                              _C.byref(band), _C.byref(nm))
        if st == -3:  # FCD_E_STATE: none
            return None
        self._check(st)
        return {"re": re.value, "im": im.value, "band_hz": band.value, "nmodes": nm.value}

    @property
    def summary(self):
        """dict: flutter and divergence (an unstable mode of each kind in the last solve),
        necessary (seed 000's necessary divergence condition: the symmetric part of the
        reduced stiffness is not positive definite) and min_sym (its smallest eigenvalue,
        NaN when not computed); docs/stability.md, "The fcd program"."""
        a, b, c, m = _C.c_int(0), _C.c_int(0), _C.c_int(0), _real(0)
        self._check(_f["fcd_stability_get_summary"](self._h, _C.byref(a), _C.byref(b),
                                                    _C.byref(c), _C.byref(m)))
        return {"flutter": bool(a.value), "divergence": bool(b.value),
                "necessary": bool(c.value), "min_sym": m.value}


    @property
    def band(self):
        """dict: band_hz (a reduced model's band of validity, inf for any other system or
        FCD_STAB_BAND_HZ's 'band_hz' parameter), outside (how many eigenvalues of the last
        solve lie above it, |lambda| > 2 pi band_hz: outside the model) and
        unstable_outside (those of them with Re > 0); summary's flutter and divergence
        speak of the eigenvalues within the band only."""
        b, no, nu = _real(0), _index(0), _index(0)
        self._check(_f["fcd_stability_get_band"](self._h, _C.byref(b), _C.byref(no),
                                                 _C.byref(nu)))
        return {"band_hz": b.value, "outside": no.value, "unstable_outside": nu.value}

    @property
    def infinite(self):
        """The number of infinite eigenvalues of the last solve (fcd_stability_get_infinite_count):
        the reduced pencil's mass-less directions, each two without damping and one with
        stiffness-proportional Rayleigh damping; 0 from the sparse solver."""
        n = _index(0)
        self._check(_f["fcd_stability_get_infinite_count"](self._h, _C.byref(n)))
        return n.value


class Equilibrium(_Child):
    """Static (Signorini-Coulomb) and steady-sliding equilibria."""
    _destroy = "fcd_equilibrium_destroy"

    def __init__(self, system, contacts, **params):
        ch = self._bind(system, contacts, need_contacts=True)
        h = _p()
        self._check(_f["fcd_equilibrium_create"](system._h, ch, _C.byref(h)))
        self._h = h
        for k, v in params.items():
            self.set_param(k, v)

    def set_param(self, key, value):
        k = _key(_EQ_PARAM, key, "equilibrium parameter")
        if key == "contact_solver":
            value = _key(_FC_SOLVER, value, "contact solver")
        self._check(_f["fcd_equilibrium_set_param"](self._h, k, _scalar(value, "value")))

    def solve(self, kind="static", t=0.0):
        """Solves; returns (u, r): displacements (ndofs) and local reactions
        (ncontacts x dim)."""
        self._check(_f["fcd_equilibrium_solve"](self._h, _key(_EQ_KIND, kind, "equilibrium"),
                                                _scalar(t, "t")))
        n, nc, d = self._ndofs, self._nc(), self._cdim
        u, r = _np.empty(n), _np.empty(nc * d)
        self._check(_f["fcd_equilibrium_get_state"](self._h, _pr(u)))
        self._check(_f["fcd_equilibrium_get_reactions"](self._h, _pr(r)))
        return u, r.reshape(nc, d)

    @property
    def contact_status(self):
        s = _np.empty(self._nc(), dtype=_np.intc)
        self._check(_f["fcd_equilibrium_get_contact_state"](self._h, s.ctypes.data_as(_pint),
                                                            None))
        return [_CONTACT_NAMES.get(int(x), int(x)) for x in s]

    def set_reference(self, u_ref):
        """The displacements friction is measured from (static equilibria); None: zero."""
        r = _real_array(u_ref, "u_ref", (self._ndofs,)) if u_ref is not None else None
        self._ref = r
        self._check(_f["fcd_equilibrium_set_reference"](self._h, _pr(r)))

    @property
    def contact_state(self):
        """(status, slip): 'open'/'stick'/'slip' per contact and the slip directions,
        (ncontacts, dim - 1), ready for Stability.set_contact_state."""
        nc, d = self._nc(), self._cdim
        s = _np.empty(nc, dtype=_np.intc)
        sl = _np.empty(max(nc * (d - 1), 1))
        self._check(_f["fcd_equilibrium_get_contact_state"](self._h, s.ctypes.data_as(_pint),
                                                            _pr(sl)))
        return ([_CONTACT_NAMES.get(int(x), int(x)) for x in s],
                sl[: nc * (d - 1)].reshape(nc, d - 1))

    @property
    def residual(self):
        """(equilibrium, complementarity) residuals of the last solve."""
        a, b = _real(0), _real(0)
        self._check(_f["fcd_equilibrium_get_residual"](self._h, _C.byref(a), _C.byref(b)))
        return a.value, b.value

    @property
    def certificate(self):
        """The certificate of the last solve (dict; docs/conventions.md)."""
        return _certificate("fcd_equilibrium_get_certificate", self._h, self._check)

    def set_mesh(self, mesh):
        """Node coordinates (a Mesh of this system, or None) that name the motion of a
        mechanism when no equilibrium exists."""
        if mesh is not None and not isinstance(mesh, Mesh):
            raise TypeError("set_mesh: expected a Mesh or None, got %s" % type(mesh).__name__)
        self._mesh = mesh
        self._check(_f["fcd_equilibrium_set_mesh"](self._h, mesh._h if mesh is not None
                                                   else None))

    @property
    def mechanism(self):
        """What moves when the last solve found no equilibrium (FcdError
        FCD_E_NO_SOLUTION), as a dict: kind ('separation', 'tipping', 'gross-slip',
        'unsupported'), motion ('translation', 'rotation', 'screw' or None), direction,
        point, unbalance, force_scale, dof, contact, pivot, nmodes, and the motion over
        the dofs ('displacement'); None after any other outcome."""
        m = _Mechanism()
        u = _np.empty(self._ndofs)
        self._check(_f["fcd_equilibrium_get_mechanism"](self._h, _C.byref(m), _pr(u)))
        if m.kind == 0:
            return None
        return {"kind": _MECH_KINDS.get(m.kind, m.kind), "motion": _MOTION_KINDS.get(m.motion),
                "direction": list(m.direction), "point": list(m.point),
                "unbalance": m.unbalance, "force_scale": m.force_scale, "dof": m.dof,
                "contact": m.contact, "pivot": m.pivot, "nmodes": m.nmodes,
                "displacement": u}


_CELL = {"vertex": 1, "line": 3, "triangle": 5, "quad": 9, "tetra": 10, "hexahedron": 12,
         "wedge": 13}
_CELL_NODES = {1: 1, 3: 2, 5: 3, 9: 4, 10: 4, 12: 8, 13: 6}


class Mesh(_Child):
    """The host's mesh for VTK output: node coordinates (nnodes x dim), the dof of each
    displacement component (nnodes x dim, -1 for none; default node p owns dofs
    dim p .. dim p + dim - 1) and cells."""
    _destroy = "fcd_mesh_destroy"

    def __init__(self, system, coords, node_dofs=None):
        self._bind(system)
        x = _real_array(coords, "coords")
        if x.ndim != 2 or x.shape[1] not in (2, 3):
            raise ValueError("coords: expected shape (nnodes, 2 or 3), got %s" % (x.shape,))
        nn, dim = x.shape
        d = None
        if node_dofs is not None:
            d = _index_array(_np.asarray(node_dofs).reshape(-1), "node_dofs", nn * dim)
        h = _p()
        self._check(_f["fcd_mesh_create"](system._h, dim, nn, _pr(x), _pi(d), _C.byref(h)))
        self._h = h
        self.dim, self.nnodes = dim, nn

    _FORMATS = {value: name for name, value, _ in registry("mesh-format")}

    @classmethod
    def read(cls, system, path, dim=3):
        """A mesh file told from its content (legacy VTK up to 5.1, Gmsh .msh 2.2 and
        4.1, Abaqus .inp, Nastran bulk data): its nodes keep their labels, its named
        groups are surfaces (``surfaces``, ``surface(name)``). With a dof map on the
        system node L owns dofs (L, 1..dim), else node p owns dim p .. dim p + dim - 1."""
        self = cls.__new__(cls)
        self._bind(system)
        h = _p()
        self._check(_f["fcd_mesh_read"](system._h, _int(dim, "dim", 2, 3), _os.fsencode(path),
                                        _C.byref(h)))
        self._h = h
        self.dim, self.nnodes = dim, _f["fcd_mesh_node_count"](h)
        return self

    @property
    def format(self):
        """'vtk', 'gmsh', 'abaqus', 'nastran', or None for a mesh made here."""
        return self._FORMATS.get(_f["fcd_mesh_get_format"](self._h))

    @property
    def coords(self):
        """The node coordinates (nnodes x dim, a copy)."""
        c = _preal()
        self._check(_f["fcd_mesh_get_coords"](self._h, _C.byref(c)))
        return _np.ctypeslib.as_array(c, shape=(self.nnodes * self.dim,)).reshape(
            self.nnodes, self.dim).copy() if self.nnodes else _np.empty((0, self.dim))

    @property
    def cells(self):
        """The cells as a list of (VTK type, node indices in VTK's order)."""
        n, off, nodes = _index(), _pindex(), _pindex()
        types = _C.POINTER(_C.c_int)()
        self._check(_f["fcd_mesh_get_cells"](self._h, _C.byref(n), _C.byref(off),
                                             _C.byref(nodes), _C.byref(types)))
        if n.value == 0:
            return []
        o = _np.ctypeslib.as_array(off, shape=(n.value + 1,))
        c = _np.ctypeslib.as_array(nodes, shape=(int(o[-1]),)) if o[-1] else _np.empty(0, _np.int64)
        t = _np.ctypeslib.as_array(types, shape=(n.value,))
        return [(int(t[k]), c[o[k]:o[k + 1]].copy()) for k in range(n.value)]

    @property
    def node_labels(self):
        """The file's label of each node (numpy int64)."""
        out = _np.empty(self.nnodes, dtype=_np.int64)
        lab = _C.c_int64()
        for p in range(self.nnodes):
            self._check(_f["fcd_mesh_get_node_label"](self._h, p, _C.byref(lab)))
            out[p] = lab.value
        return out

    @property
    def surfaces(self):
        """The names of the mesh's surfaces."""
        n = _f["fcd_mesh_surface_count"](self._h)
        return [_f["fcd_mesh_surface_name"](self._h, k).decode() for k in range(max(n, 0))]

    def surface(self, name):
        """The facets of a named surface as ``ContactSet.add_surface_pair`` takes them:
        nfacets x 2 node indices (2D) or x 4 (3D, -1 fourth for a triangle)."""
        n = _index()
        f = _pindex()
        self._check(_f["fcd_mesh_get_surface"](self._h, str(name).encode(), _C.byref(n),
                                               _C.byref(f)))
        per = 2 if self.dim == 2 else 4
        return _np.ctypeslib.as_array(f, shape=(n.value * per,)).reshape(-1, per).copy() \
            if n.value else _np.empty((0, per), dtype=_np.int64)

    def add_cells(self, kind, nodes):
        """Cells of one type ('triangle', 'quad', 'tetra', 'hexahedron', 'wedge',
        'line', 'vertex'): ``nodes`` is ncells x nodes-per-cell, in VTK's order."""
        t = _key(_CELL, kind, "cell type")
        a = _np.asarray(nodes)
        if a.ndim != 2:
            raise ValueError("nodes: expected a 2-D array (ncells, nodes per cell), got shape %s"
                             % (a.shape,))
        # C reads exactly ncells times the type's node count: a shorter row read past the
        # array (a hexahedron given one node took a heap address for a node id)
        if a.shape[1] != _CELL_NODES[t]:
            raise ValueError("nodes: a %s has %d nodes, got rows of %d" % (kind, _CELL_NODES[t],
                                                                         a.shape[1]))
        flat = _index_array(a.reshape(-1), "nodes")
        self._check(_f["fcd_mesh_add_cells"](self._h, t, a.shape[0], _pi(flat)))

    def write_vtk(self, path, fields=None, contacts=None, status=None, binary=False):
        """Writes legacy VTK: ``fields`` maps names to vectors over the dofs (complex
        ones give NAME_re and NAME_im); with ``contacts`` and ``status`` ('open',
        'stick', 'slip' per contact) a point scalar contact_status; ``binary`` writes
        the BINARY form (big-endian values, exact), which fcd's mesh reader (``--mesh``)
        reads as well."""
        if not isinstance(binary, bool):
            raise TypeError("binary: expected a bool, got %s" % type(binary).__name__)
        self._check(_f["fcd_mesh_set_vtk_format"](self._h, 1 if binary else 0))
        names, arrays = [], []
        n = self._ndofs
        for name, v in (fields or {}).items():
            a = _np.asarray(v)
            if _np.iscomplexobj(a):
                parts = ((name + "_re", a.real), (name + "_im", a.imag))
            else:
                parts = ((name, a),)
            for nm, arr in parts:
                names.append(nm.encode())
                arrays.append(_real_array(arr, "field " + nm, (n,)))
        cn = (_C.c_char_p * max(len(names), 1))(*names)
        cp = (_preal * max(len(arrays), 1))(*[_pr(a) for a in arrays])
        st = None
        if (contacts is None) != (status is None):
            raise ValueError("write_vtk: give both contacts and status, or neither")
        if contacts is not None:
            st = _statuses(list(status), len(contacts))
        self._check(_f["fcd_mesh_write_vtk"](self._h, _os.fsencode(path), len(names), cn, cp,
                                             contacts._h if contacts is not None else None,
                                             st.ctypes.data_as(_pint) if st is not None
                                             else None))


# ---- reduced models ------------------------------------------------------------------

class Reduction(_Owner):
    """A Craig-Bampton reduction of ``system`` keeping the dofs of ``contacts``' rows and
    the moving prescribed dofs physical, with ``modes`` fixed-interface modes
    (docs/reduction.md). ``.system`` and ``.contacts`` are the reduced model, which every
    analysis accepts; they belong to this object, which they keep alive. ``expand`` and
    ``restrict`` map vectors between the full and the reduced dofs, ``residual`` is the
    a-posteriori indicator. ``nmodes`` counts the modal coordinates: the modes plus the
    static correction of a constant interior load, if any. ``modal=True`` gives the same
    model in the modes of its reduced pencil (fcd_reduction_create_modal: identity mass,
    diagonal stiffness, a step in O(n) but for the contacts; not for the stability
    analysis); ``ndofs`` is then the reduced system's size, and vectors go through
    ``expand``, ``expand_dofs`` and ``restrict``. ``inertia=P`` enriches the basis with P
    inertia correction vectors (fcd_reduction_create_enriched: what the truncated modes'
    inertia does at low frequency; far fewer modes for the same accuracy); ``ninertia``
    tells how many were kept (counted in ``nmodes``). ``band_hz`` is the band below which
    the model's eigenvalues are the full model's (f_m / 1.5), ``cut_hz`` the frequency
    above which its dynamics are damped (``cut`` times f_m, default 1, with the damping
    ratio ``band_damping``, default 0.1, 0 for none: fcd_reduction_create_band),
    ``ndamped`` the directions damped there. ``interface="relative"`` keeps a node-to-node
    pair as its A node's displacement relative to its B node's (FCD_INTERFACE_RELATIVE:
    half the kept dofs, B's node in the interior; ``kept`` then names the A dofs, whose
    reduced coordinates are u_A - u_B), ``"physical"`` (the default) both nodes.
    ``basis="factored"`` applies the constraint modes through the interior's factor instead
    of storing their n x nkept numbers (FCD_BASIS_FACTORED: the same model, for sizes
    whose stored modes outgrow the memory), ``"stored"`` stores them, ``"auto"`` (the
    default) takes whichever is the smaller; ``basis`` then tells which it
    chose, ``memory()`` the bytes of the factor, the basis kept and the build's peak.
    ``ties={c: {s: w, ...}, ...}`` (with ``interface="relative"``) coarsens the interface:
    pair c's relative displacement follows the sum of its sources' times their weights
    (fcd_reduction_options::tied); c leaves the reduced contact set, whose contacts are
    the others in their order. ``prescribed_shape=True`` keeps the moving prescribed dofs
    (constant nonzero values) as one coordinate, the others following the first in
    proportion to their values (fcd_reduction_options::prescribed_shape).
    ``memory_limit`` (bytes) bounds what the process may hold at the build's peak
    (fcd_reduction_options::memory_limit): a build that cannot fit is refused at once
    (FcdError FCD_E_NOMEM, naming what it needs), the modes' solver works in a smaller space where
    its default would pass it; None (the default): the machine's memory."""
    _destroy = "fcd_reduction_destroy"

    _INTERFACES = {"physical": 0, "relative": 1}
    _BASES = {"auto": 0, "stored": 1, "factored": 2}

    def __init__(self, system, contacts=None, modes=0, modal=False, inertia=0, cut=None,
                 band_damping=None, interface="physical", basis="auto", ties=None,
                 prescribed_shape=False, memory_limit=None):
        if not isinstance(system, System):
            raise TypeError("system must be an fcd.System")
        if contacts is not None and not isinstance(contacts, ContactSet):
            raise TypeError("contacts must be an fcd.ContactSet or None")
        m = _int(modes, "modes", 0)
        p = _int(inertia, "inertia", 0)
        if not isinstance(modal, (bool, _np.bool_)):
            raise TypeError("modal: expected a bool, got %s" % type(modal).__name__)
        self._full, self._full_contacts, self._sysh = system, contacts, system._h
        h = _p()
        ch = contacts._h if contacts is not None else None
        if interface not in self._INTERFACES:
            raise ValueError("interface: %r is not one of %s"
                             % (interface, ", ".join(self._INTERFACES)))
        if basis not in self._BASES:
            raise ValueError("basis: %r is not one of %s" % (basis, ", ".join(self._BASES)))
        o = _ReductionOptions()
        _f["fcd_reduction_options_init"](_C.byref(o))
        o.nmodes, o.ninertia, o.modal = m, p, 1 if modal else 0
        o.interface = self._INTERFACES[interface]
        o.basis = self._BASES[basis]
        if cut is not None:
            o.cut = _scalar(cut, "cut")
        if band_damping is not None:
            o.damping = _scalar(band_damping, "band_damping")
        if not isinstance(prescribed_shape, (bool, _np.bool_)):
            raise TypeError("prescribed_shape: expected a bool, got %s"
                            % type(prescribed_shape).__name__)
        o.prescribed_shape = 1 if prescribed_shape else 0
        if memory_limit is not None:
            o.memory_limit = _scalar(memory_limit, "memory_limit")
        if ties:
            if not hasattr(ties, "items"):
                raise TypeError("ties: expected a mapping {tied: {source: weight}}")
            tied, ptr, src, w = [], [0], [], []
            for c, sources in ties.items():
                if not hasattr(sources, "items"):
                    raise TypeError("ties[%r]: expected a mapping {source: weight}" % (c,))
                tied.append(_int(c, "a tied contact", 0))
                for sc, wt in sources.items():
                    src.append(_int(sc, "a source contact", 0))
                    w.append(_scalar(wt, "a tie's weight"))
                ptr.append(len(src))
            self._ties = [_np.ascontiguousarray(a, dtype=t) for a, t in
                          ((tied, _np.int64), (ptr, _np.int64), (src, _np.int64),
                           (w, _np.float64))]
            o.ntied = len(tied)
            o.tied, o.tie_ptr, o.tie_src = (a.ctypes.data_as(_pindex) for a in self._ties[:3])
            o.tie_w = self._ties[3].ctypes.data_as(_preal)
        self._check(_f["fcd_reduction_create_opts"](system._h, ch, _C.byref(o), _C.byref(h)))
        self.interface = interface
        self.modal = bool(modal)
        self._h = h
        ni = _index(0)
        self._check(_f["fcd_reduction_get_inertia"](h, _C.byref(ni)))
        self.ninertia = ni.value
        nk, nm, fx = _index(0), _index(0), _real(0)
        self._check(_f["fcd_reduction_get_info"](h, _C.byref(nk), _C.byref(nm), _C.byref(fx),
                                                 None))
        self.nkept, self.nmodes, self.max_freq_hz = nk.value, nm.value, fx.value
        bb, bc, bn = _real(0), _real(0), _index(0)
        self._check(_f["fcd_reduction_get_band"](h, _C.byref(bb), _C.byref(bc), _C.byref(bn)))
        self.band_hz, self.cut_hz, self.ndamped = bb.value, bc.value, bn.value
        kind = _C.c_int(0)
        self._check(_f["fcd_reduction_get_memory"](h, _C.byref(kind), None, None, None))
        self.basis = {v: k for k, v in self._BASES.items()}[kind.value]
        kept = _np.zeros(self.nkept, dtype=_np.int64)
        self._check(_f["fcd_reduction_get_info"](h, None, None, None, _pi(kept)))
        self.kept = kept
        self.ndofs = int(_f["fcd_system_ndofs"](_f["fcd_reduction_system"](h)))
        # the reduced system and contacts: handles the reduction owns, wrapped without a
        # destructor and holding this object, so that it outlives every analysis on them
        rs = System.__new__(System)
        rs._h = _f["fcd_reduction_system"](h)
        rs.ndofs = self.ndofs
        rs._destroy = None
        rs._reduction = self
        self.system = rs
        self.contacts = None
        if contacts is not None:
            rc = ContactSet.__new__(ContactSet)
            rc._bind(rs)
            rc._h = _f["fcd_reduction_contact_set"](h)
            rc.dim = contacts.dim
            rc._destroy = None
            rc._reduction = self
            self.contacts = rc

    def _sys_handle(self):
        return self._sysh

    def memory(self):
        """The bytes of the interior's factor (held by a factored basis), of what the
        handle keeps of the basis, and of the build's dense peak (fcd_reduction_get_memory),
        as a dict."""
        f, b, pk = _real(0), _real(0), _real(0)
        self._check(_f["fcd_reduction_get_memory"](self._h, None, _C.byref(f), _C.byref(b),
                                                   _C.byref(pk)))
        return {"factor": f.value, "basis": b.value, "peak": pk.value}

    def expand(self, xr):
        """The full vector T xr of a reduced one (displacements, velocities alike)."""
        a = _real_array(xr, "xr", (self.ndofs,))
        x = _np.zeros(self._full.ndofs)
        self._check(_f["fcd_reduction_expand"](self._h, _pr(a), _pr(x)))
        return x

    def expand_dofs(self, xr, dofs):
        """Entries ``dofs`` (full numbers) of the full vector of a reduced one, without
        the whole expansion (a monitored node at every step)."""
        a = _real_array(xr, "xr", (self.ndofs,))
        d = _index_array(dofs, "dofs")
        x = _np.zeros(d.shape[0])
        self._check(_f["fcd_reduction_expand_dofs"](self._h, _pr(a), d.shape[0], _pi(d), _pr(x)))
        return x

    def restrict(self, x):
        """The reduced coordinates of a full vector: the kept dofs' values and the
        mass-orthogonal projection of the interior on the modes."""
        a = _real_array(x, "x", (self._full.ndofs,))
        xr = _np.zeros(self.ndofs)
        self._check(_f["fcd_reduction_restrict"](self._h, _pr(a), _pr(xr)))
        return xr

    def band_energy(self, v):
        """The share of the reduced velocity's kinetic energy carried by the reduced
        pencil's modes above the band (fcd_reduction_band_energy): near 1, a run follows
        dynamics the full model does not have."""
        a = _real_array(v, "v", (self.ndofs,))
        f = _real(0)
        self._check(_f["fcd_reduction_band_energy"](self._h, _pr(a), _C.byref(f)))
        return f.value

    def residual(self, t, u, v=None, a=None):
        """The indicator: the full equations' interior rows at the expanded state
        (u, v, a reduced; v and a None for statics), relative to their terms."""
        arrs = [None if x is None else _real_array(x, name, (self.ndofs,))
                for x, name in ((u, "u"), (v, "v"), (a, "a"))]
        if arrs[0] is None:
            raise TypeError("u is required")
        rel = _real(0)
        self._check(_f["fcd_reduction_residual"](self._h, _scalar(t, "t"), _pr(arrs[0]), _pr(arrs[1]),
                                                 _pr(arrs[2]), _C.byref(rel)))
        return rel.value

    def close(self):
        """Closes the reduction and its system and contacts for further use; the C
        reduction is destroyed once no analysis made on them remains (they hold it: their
        loads and prescribed values are evaluated through it)."""
        h = self.__dict__.get("_handle")
        if h:
            self.__dict__["_deferred"] = h
        self.__dict__["_handle"] = None
        for x in (self.__dict__.get("system"), self.__dict__.get("contacts")):
            if x is not None:
                x.__dict__["_handle"] = None

    def __del__(self):
        h = self.__dict__.get("_handle") or self.__dict__.get("_deferred")
        self.__dict__["_handle"] = self.__dict__["_deferred"] = None
        if h:
            _f["fcd_reduction_destroy"](h)



class Series(_Child):
    """A time series for ParaView in ``directory`` (which must exist): frame k in
    NAME-00000k.vtu (VTK XML, binary), the collection NAME.pvd listing the frames with
    their times (fcd_series_create); ``format`` another name of registry('output-format')
    ('vtk': legacy VTK frames and NAME.vtk.series). With ``contacts``, the contact fields
    at the contacts' nodes. The mesh may be closed after; the system and the contact set
    are kept."""
    _destroy = "fcd_series_destroy"

    def __init__(self, mesh, directory, name="series", contacts=None, format="vtu"):
        if not isinstance(mesh, Mesh):
            raise TypeError("mesh must be an fcd.Mesh, got %s" % type(mesh).__name__)
        ch = self._bind(mesh._system, contacts)
        if not isinstance(name, str):
            raise TypeError("name: expected a str, got %s" % type(name).__name__)
        h = _p()
        fmt = _key(_OUTPUT_FORMAT, format, "output format")
        self._check(_f["fcd_series_create"](mesh._h, ch, _os.fsencode(directory),
                                             name.encode(), _C.byref(h)))
        self._h = h
        if fmt != 0:
            self._check(_f["fcd_series_set_format"](self._h, fmt))

    def write(self, t, u, v=None, reactions=None, status=None):
        """Appends a frame: u (and v) over the dofs, the local reactions (ncontacts x dim
        or flat) and the statuses ('open', 'stick', 'slip' per contact) when the series
        has contacts. Every frame gives the same of v, reactions and status."""
        n = self._ndofs
        a = _real_array(u, "u", (n,))
        b = _real_array(v, "v", (n,)) if v is not None else None
        r = st = None
        if reactions is not None or status is not None:
            if self._csh is None:
                raise ValueError("write: reactions and status need a series with contacts")
            nc = self._nc()
            if reactions is not None:
                r = _real_array(_np.asarray(reactions, dtype=float).reshape(-1), "reactions",
                                (nc * self._cdim,))
            if status is not None:
                st = _statuses(list(status), nc)
        self._check(_f["fcd_series_write"](self._h, _scalar(t, "t"), _pr(a),
                                           _pr(b) if b is not None else None,
                                           _pr(r) if r is not None else None,
                                           st.ctypes.data_as(_pint) if st is not None
                                           else None))

    def write_integrator(self, integrator):
        """Appends the integrator's current state (time, u, v, reactions, statuses)."""
        if not isinstance(integrator, Integrator):
            raise TypeError("write_integrator: expected an fcd.Integrator, got %s"
                            % type(integrator).__name__)
        self._check(_f["fcd_series_write_integrator"](self._h, integrator._h))

    def set_field(self, name, value):
        """A scalar in the field data of every later frame (fcd_series_set_field)."""
        if not isinstance(name, str):
            raise TypeError("name: expected a str, got %s" % type(name).__name__)
        self._check(_f["fcd_series_set_field"](self._h, name.encode(), _scalar(value, "value")))

    def write_mode(self, mode, eigenvalue, frames=24):
        """A mode animated over one period: ``mode`` a complex (or real) vector over the
        dofs, ``eigenvalue`` its complex eigenvalue; ``frames`` phases of
        Re(mode e^(i theta)) with the eigenvalue in the field data."""
        n = self._ndofs
        m = _np.asarray(mode)
        re = _real_array(m.real, "mode", (n,))
        im = _real_array(m.imag, "mode", (n,)) if _np.iscomplexobj(m) else None
        lam = complex(eigenvalue)
        self._check(_f["fcd_series_write_mode"](self._h, _pr(re),
                                                _pr(im) if im is not None else None,
                                                lam.real, lam.imag,
                                                _int(frames, "frames", 1, 100000)))

    def flush(self):
        """Waits for the frame being written in the background and raises its write
        error, if any (fcd_series_flush): every frame given is then on disk."""
        self._check(_f["fcd_series_flush"](self._h))

    def set_async(self, on):
        """Frames written in the background (True, the default) or within write
        (False), fcd_series_set_async."""
        self._check(_f["fcd_series_set_async"](self._h, 1 if on else 0))

    @property
    def frames(self):
        """Frames on disk (the frame in flight waited for)."""
        n, b = _index(0), _real(0)
        self._check(_f["fcd_series_get_info"](self._h, _C.byref(n), _C.byref(b)))
        return int(n.value)

    @property
    def bytes(self):
        """Bytes written so far (frames and collection)."""
        n, b = _index(0), _real(0)
        self._check(_f["fcd_series_get_info"](self._h, _C.byref(n), _C.byref(b)))
        return int(b.value)


_PERIODIC_PARAM = dict(_IT_PARAM, tol=500, newton_max_iter=501, fd_step=502, jacobian=503,
                       krylov_max=504, multipliers=505, forcing_omega=506, forcing_scale=507)
_PERIODIC_CONTINUE = dict(omega=0, scale=1)
_PERIODIC_JACOBIAN = dict(dense=0, krylov=1, auto=2)


class Periodic(_Child):
    """Periodic orbits (limit cycles) by shooting on the scheme's own discrete flow
    (docs/periodic.md): ``solve(u, v, period)`` from a guess, then ``info`` (a dict:
    converged, period, steps, iterations, evaluations, residual, amplitude_u, amplitude_v,
    multipliers, trivial_error, max_multiplier, stable), ``orbit`` (period, u0, v0),
    ``range`` (each dof's min and max over the orbit) and ``multipliers`` (complex,
    largest modulus first). Parameters: the integrator's ('step' is required, 'theta',
    'tolerance', ...) and 'tol', 'newton_max_iter', 'fd_step', 'forcing_omega',
    'forcing_scale'. Use the modified theta scheme: its step map is continuous. A forcing
    (``set_harmonic_forcing``, ``set_forcing``) makes it find forced responses, and
    ``sweep`` follows them in the forcing's frequency or scale."""
    _destroy = "fcd_periodic_destroy"

    def __init__(self, system, contacts=None, scheme="modified-theta", **params):
        ch = self._bind(system, contacts)
        h = _p()
        self._check(_f["fcd_periodic_create"](system._h, ch, _key(_SCHEME, scheme, "scheme"),
                                              _C.byref(h)))
        self._h = h
        for k, v in params.items():
            self.set_param(k, v)

    def set_param(self, key, value):
        k = _key(_PERIODIC_PARAM, key, "periodic parameter")
        if key == "contact_solver":
            value = _key(_FC_SOLVER, value, "contact solver")
        elif key == "jacobian":
            value = _key(_PERIODIC_JACOBIAN, value, "Jacobian ('dense', 'krylov', 'auto')")
        self._check(_f["fcd_periodic_set_param"](self._h, k, _scalar(value, "value")))

    def set_harmonic_forcing(self, omega, dofs, amplitude, phase=None):
        """Forces the orbit with amplitude[k] cos(omega t + phase[k]) on dofs[k]
        (fcd_periodic_set_harmonic_forcing); no dofs removes the forcing."""
        d = _index_array(dofs, "dofs").ravel()
        a = _real_array(amplitude, "amplitude", (d.size,))
        ph = None if phase is None else _real_array(phase, "phase", (d.size,))
        self._forcing = None
        self._check(_f["fcd_periodic_set_harmonic_forcing"](
            self._h, _scalar(omega, "omega"), d.size, d.ctypes.data_as(_pindex), _pr(a),
            None if ph is None else _pr(ph)))

    def set_forcing(self, omega, fn):
        """Forces the orbit with fn(theta), the load (ndofs values) at the phase theta =
        omega t, 2 pi-periodic in theta (fcd_periodic_set_forcing); fn None removes it. An
        exception in fn stops the solve and is raised from it."""
        if fn is None:
            self._forcing = None
            self._check(_f["fcd_periodic_set_forcing"](self._h, _scalar(omega, "omega"), None,
                                                       None))
            return
        n = self._ndofs
        raised = []

        def load(ud, theta, nd, f):
            try:
                v = _real_array(fn(theta), "the forcing's load", (n,))
                for i in range(n):
                    f[i] = v[i]
                return 0
            except BaseException as e:  # a Python error must not cross the C frames
                raised.append(e)
                return 1

        cb = _FORCING_FN(load)
        self._check(_f["fcd_periodic_set_forcing"](self._h, _scalar(omega, "omega"),
                                                   _C.cast(cb, _p), None))
        self._forcing = (cb, raised)  # kept alive while the solver may call it

    def _forcing_raised(self):
        if getattr(self, "_forcing", None) and self._forcing[1]:
            e = self._forcing[1][0]
            del self._forcing[1][:]
            raise e

    def solve(self, u, v, period):
        """Newton from the guess (u, v) and the period guess (forced: the forcing's
        period or a whole multiple of it); raises FcdError when it does
        not converge (``info`` and ``orbit`` then hold the best iterate)."""
        n = self._ndofs
        a, b = _real_array(u, "u", (n,)), _real_array(v, "v", (n,))
        st = _f["fcd_periodic_solve"](self._h, _pr(a), _pr(b), _scalar(period, "period"))
        self._forcing_raised()
        self._check(st)
        return self.info

    @property
    def info(self):
        i = _PeriodicInfo()
        self._check(_f["fcd_periodic_get_info"](self._h, _C.byref(i)))
        return {k: getattr(i, k) for k, _ in _PeriodicInfo._fields_}

    @property
    def orbit(self):
        """(period, u0, v0) of the orbit's start."""
        n = self._ndofs
        t, u, v = _real(0), _np.empty(n), _np.empty(n)
        self._check(_f["fcd_periodic_get_orbit"](self._h, _C.byref(t), _pr(u), _pr(v)))
        return t.value, u, v

    @property
    def range(self):
        """(umin, umax): each dof's extremes over the orbit."""
        n = self._ndofs
        lo, hi = _np.empty(n), _np.empty(n)
        self._check(_f["fcd_periodic_get_range"](self._h, _pr(lo), _pr(hi)))
        return lo, hi

    @property
    def multipliers(self):
        """The Floquet multipliers, complex, largest modulus first."""
        cnt = _index(0)
        self._check(_f["fcd_periodic_get_multipliers"](self._h, 0, None, None, _C.byref(cnt)))
        re, im = _np.empty(max(cnt.value, 1)), _np.empty(max(cnt.value, 1))
        self._check(_f["fcd_periodic_get_multipliers"](self._h, cnt.value, _pr(re), _pr(im),
                                                       _C.byref(cnt)))
        return re[:cnt.value] + 1j * im[:cnt.value]

    def follow(self, mu_end, dmu, max_points=100):
        """Continues the branch from the last converged orbit towards ``mu_end``
        (fcd_periodic_continue): a list of points, each the ``info`` dict plus 'event'
        ('none', 'fold', 'period-doubling', 'torus', 'stability', 'collapse', 'family'),
        'multipliers' (complex) and 'range' ((umin, umax)). A corrector that fails at the
        smallest step raises FcdError; the points found before are on the exception's
        ``points`` attribute."""
        return self._points(lambda cb: _f["fcd_periodic_continue"](
            self._h, _scalar(mu_end, "mu_end"), _scalar(dmu, "dmu"),
            _int(max_points, "max_points", 1), cb, None), "mu")

    def sweep(self, param, end, ds, max_points=100):
        """Follows the forced orbit of the last solve in the forcing's 'omega' or 'scale'
        towards ``end`` (fcd_periodic_continue_forcing): a list of points as ``follow``'s,
        each with the parameter's value under its name ('omega' or 'scale')."""
        k = _key(_PERIODIC_CONTINUE, param, "swept parameter ('omega', 'scale')")
        return self._points(lambda cb: _f["fcd_periodic_continue_forcing"](
            self._h, k, _scalar(end, "end"), _scalar(ds, "ds"),
            _int(max_points, "max_points", 1), cb, None), param)

    def _points(self, run, pname):
        names = ["none", "fold", "period-doubling", "torus", "stability", "collapse", "family"]
        pts, raised = [], []
        n = self._ndofs

        def point(ud, mu, info, re, im, ev):
            try:
                i = info.contents
                d = {k: getattr(i, k) for k, _ in _PeriodicInfo._fields_}
                m = int(i.multipliers)
                d["multipliers"] = _np.array([re[k] + 1j * im[k] for k in range(m)])
                d["event"] = names[ev] if 0 <= ev < len(names) else str(ev)
                lo, hi = _np.empty(n), _np.empty(n)
                _f["fcd_periodic_get_range"](self._h, _pr(lo), _pr(hi))
                d["range"] = (lo, hi)
                d[pname] = mu
                pts.append(d)
                return 0
            except BaseException as e:  # a Python error must not cross the C frames
                raised.append(e)
                return 1

        cb = _PERIODIC_POINT_FN(point)
        st = run(_C.cast(cb, _p))
        self._forcing_raised()
        if raised:
            raise raised[0]
        try:
            self._check(st)
        except FcdError as e:
            e.points = pts
            raise
        return pts


_PERIODIC_POINT_FN = _C.CFUNCTYPE(_C.c_int, _p, _real, _C.POINTER(_PeriodicInfo), _preal,
                                  _preal, _C.c_int)
_FORCING_FN = _C.CFUNCTYPE(_C.c_int, _p, _real, _index, _preal)


# ---- matrices of other programs -------------------------------------------------------

class _MatrixFileInfo(_C.Structure):
    _fields_ = [("struct_size", _C.c_size_t), ("format", _C.c_int), ("labelled", _C.c_int),
                ("symmetric", _C.c_int), ("nrows", _C.c_int64), ("ncols", _C.c_int64),
                ("nnz", _C.c_int64), ("name", _C.c_char * 32)]


def _format_code(fmt):
    if fmt is None:
        return 0
    if not isinstance(fmt, str):
        raise TypeError("format must be a format's name or None, not %s" % type(fmt).__name__)
    code = _C.c_int(0)
    if _f["fcd_matrix_format_from_name"](fmt.encode(), _C.byref(code)) != 0:
        raise ValueError("unknown matrix format %r" % fmt)
    return code.value


class MatrixFile(_Owner):
    """One matrix read from a file written by a finite-element code (docs/import.md): Matrix
    Market, Harwell-Boeing or Rutherford-Boeing (ANSYS' HBMAT, with its .mapping), Abaqus
    matrix or coordinate output; the format told from the content unless ``format`` names
    it; ``PATH:NAME`` picks one matrix of a file holding several. ``info`` says what it
    holds; entries by (node label, dof) need an fcd.DofMap to go onto a system."""
    _destroy = "fcd_matrix_file_destroy"

    def __init__(self, spec, format=None):
        if not isinstance(spec, (str, bytes, _os.PathLike)):
            raise TypeError("spec must be a path, not %s" % type(spec).__name__)
        code = _format_code(format)
        h = _p()
        err = _C.create_string_buffer(1024)
        st = _f["fcd_matrix_file_read"](_os.fsencode(spec), code, _C.byref(h), err, 1024)
        if st != 0:
            raise FcdError(st, err.value.decode(errors="replace"))
        self._h = h

    def _check(self, status):
        if status != 0:
            raise FcdError(status, "matrix file: %s" % _STATUS_NAMES.get(status, status))

    @property
    def info(self):
        """format, labelled, symmetric, nrows, ncols, nnz and name, as a dict"""
        i = _MatrixFileInfo()
        i.struct_size = _C.sizeof(i)
        self._check(_f["fcd_matrix_file_get_info"](self._h, _C.byref(i)))
        return {"format": _f["fcd_matrix_format_name"](i.format).decode(),
                "labelled": bool(i.labelled), "symmetric": bool(i.symmetric),
                "nrows": int(i.nrows), "ncols": int(i.ncols), "nnz": int(i.nnz),
                "name": i.name.decode(errors="replace")}


class DofMap(_Owner):
    """The map between (node label, dof) pairs and dof indices: the sorted union (label
    as a signed integer, then dof) of the pairs of the matrices added."""
    _destroy = "fcd_dofmap_destroy"

    def __init__(self, *matrices):
        h = _p()
        st = _f["fcd_dofmap_create"](_C.byref(h))
        if st != 0:
            raise FcdError(st, "dofmap_create")
        self._h = h
        for m in matrices:
            self.add_matrix(m)

    def _check(self, status):
        if status != 0:
            raise FcdError(status, "dof map: %s" % _STATUS_NAMES.get(status, status))

    def add_matrix(self, matrix):
        if not isinstance(matrix, MatrixFile):
            raise TypeError("matrix must be an fcd.MatrixFile, not %s" % type(matrix).__name__)
        st = _f["fcd_dofmap_add_matrix"](self._h, matrix._h)
        if st != 0:
            raise FcdError(st, "dofmap_add_matrix: %s" % (
                "an indexed matrix has no (node label, dof) pairs" if st == -1 else
                _STATUS_NAMES.get(st, st)))

    def add(self, label, dof):
        self._check(_f["fcd_dofmap_add"](self._h, _int(label, "label"), _int(dof, "dof", 0, 6)))

    def __len__(self):
        return int(_f["fcd_dofmap_size"](self._h))

    def index(self, label, dof):
        """The 0-based index of (label, dof); KeyError when the map does not hold it."""
        i = _index(-1)
        st = _f["fcd_dofmap_index"](self._h, _int(label, "label"), _int(dof, "dof", 0, 6),
                                    _C.byref(i))
        if st != 0:
            raise KeyError((label, dof))
        return int(i.value)

    def pair(self, index):
        """The (label, dof) of a 0-based index."""
        lab, dof = _index(0), _C.c_int(0)
        k = _int(index, "index")
        if not 0 <= k < len(self):
            raise IndexError("index %d outside the map's %d dofs" % (k, len(self)))
        self._check(_f["fcd_dofmap_pair"](self._h, k, _C.byref(lab), _C.byref(dof)))
        return int(lab.value), int(dof.value)

    def write(self, path):
        err = _C.create_string_buffer(1024)
        st = _f["fcd_dofmap_write"](self._h, _os.fsencode(path), err, 1024)
        if st != 0:
            raise FcdError(st, err.value.decode(errors="replace"))
