"""Session set-up for the Python tests.

Several tests run the `fcd` program (FCD_EXE) on a model and compare what it writes with
what the library computes in this process, bit for bit. The program corrects OpenBLAS'
fallback to its Prescott kernels on x86 models Debian 12's OpenBLAS does not know
(tools/fcd.c: it sets OPENBLAS_CORETYPE and starts itself again), which this process,
a library user, does not do: the two would then run different kernels and round off
differently. The program keeps a value the user set, so the kernels this process runs
are set for the programs it starts."""
import ctypes
import os


def _openblas_kernels():
    try:
        lib = ctypes.CDLL("libopenblas.so.0")
        lib.openblas_get_corename.restype = ctypes.c_char_p
        return lib.openblas_get_corename().decode()
    except (OSError, AttributeError):
        return None


if "OPENBLAS_CORETYPE" not in os.environ:
    _k = _openblas_kernels()
    if _k:
        os.environ["OPENBLAS_CORETYPE"] = _k
