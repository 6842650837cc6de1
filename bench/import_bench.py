"""Reading engineers' matrix files (issue 85): one generated stiffness matrix of N dofs
(a 3D 7-point Laplacian on an n x n x n grid, its lower triangle: about 4 N entries)
written in each format fcd reads, read by fcd (bench/import_read, the shipped
fcd_matrix_file_read, best of 3) and, for Matrix Market and Harwell-Boeing, by scipy
(scipy.io.mmread, scipy.io.hb_read, best of 2) in the same run. Labelled formats number
dof i as node i // 3 + 1, dof i % 3 + 1.

Prints `ratio NAME VALUE` lines (fcd's time over the peer's, or over fcd's Matrix Market
reader on the same matrix, or over reading the file's bytes from the disk past the page
cache for binary OP4) and
`figure NAME VALUE` lines (MB/s, peak memory over the returned storage).
usage: import_bench.py BUILD OUTDIR [--grid n]
"""
import os
import re
import struct
import subprocess
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

build, out = sys.argv[1], sys.argv[2]
n = 100
if "--grid" in sys.argv:
    n = int(sys.argv[sys.argv.index("--grid") + 1])
os.makedirs(out, exist_ok=True)
N = n ** 3


def laplacian():
    e = np.ones(n)
    T = sp.diags([-e[:-1], 2 * e, -e[:-1]], [-1, 0, 1])
    I = sp.identity(n)
    A = (sp.kron(sp.kron(T, I), I) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(I, I), T))
    return sp.tril(A).tocoo()


A = laplacian()
r, c, v = A.row.astype(np.int64), A.col.astype(np.int64), A.data * (1 + 1e-3 * np.sin(A.row))
order = np.lexsort((r, c))  # by column, then row
r, c, v = r[order], c[order], v[order]
nnz = len(v)
print("matrix: %d dofs, %d entries (lower triangle)" % (N, nnz), file=sys.stderr)


def timed(label, fn):
    t0 = time.time()
    fn()
    print("wrote %s in %.1f s" % (label, time.time() - t0), file=sys.stderr)


def path(name):
    return os.path.join(out, name)


def write_mm():
    with open(path("K.mtx"), "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n" % (N, N, nnz))
        np.savetxt(f, np.column_stack([r + 1, c + 1, v]), fmt="%d %d %.17g")


def write_hb():
    """RUA (scipy reads no other type) of the lower triangle by columns, (10I8) indices
    and (3E25.16) values in their full widths (scipy's hb_write declares E25.16 and writes
    24 characters: fcd reads that too, by the blanks, at a cost; this measures the format
    as Fortran writes it)."""
    ptr = np.searchsorted(c, np.arange(N + 1)) + 1

    def cards(vals, per, fmt):
        full = len(vals) // per * per
        body = np.char.mod(fmt, vals[:full]).reshape(-1, per)
        lines = ["".join(row) for row in body]
        if full < len(vals):
            lines.append("".join(fmt % x for x in vals[full:]))
        return lines

    pl, il = cards(ptr, 10, "%8d"), cards(r + 1, 10, "%8d")
    vl = cards(v, 3, "%25.16E")
    with open(path("K.rua"), "w") as f:
        f.write("%-72s%-8s\n" % ("3D Laplacian, import_bench.py", "K"))
        f.write("%14d%14d%14d%14d\n" % (len(pl) + len(il) + len(vl), len(pl), len(il), len(vl)))
        f.write("RUA%11s%14d%14d%14d%14d\n" % ("", N, N, nnz, 0))
        f.write("%-16s%-16s%-20s\n" % ("(10I8)", "(10I8)", "(3E25.16)"))
        for part in (pl, il, vl):
            f.write("\n".join(part))
            f.write("\n")


def write_abaqus():
    with open(path("K_STIF1.mtx"), "w") as f:
        np.savetxt(f, np.column_stack([r // 3 + 1, r % 3 + 1, c // 3 + 1, c % 3 + 1, v]),
                   fmt="%d,%d, %d,%d, %.17e")


def write_coordinate():
    with open(path("K_coord.mtx"), "w") as f:
        np.savetxt(f, np.column_stack([r + 1, c + 1, v]), fmt="%d,%d, %.17e")


def write_dmig():
    with open(path("K.pch"), "w") as f:
        f.write("DMIG    KAAX           0       6       2       0%24d\n" % N)
        starts = np.searchsorted(c, np.arange(N + 1))
        vals = np.char.replace(np.char.mod("%16.9E", v), "E", "D")
        for j in range(N):
            a, b = starts[j], starts[j + 1]
            if a == b:
                continue
            lines = ["DMIG*   KAAX            %16d%16d\n" % (j // 3 + 1, j % 3 + 1)]
            lines += ["*       %16d%16d%s\n" % (r[k] // 3 + 1, r[k] % 3 + 1, vals[k])
                      for k in range(a, b)]
            f.writelines(lines)


def write_op4():
    """Binary OP4, BIGMAT sparse columns of doubles: each run of consecutive rows opened by
    the pair (L + 1, row), L its words (two a double)."""
    rec = lambda b: struct.pack("<i", len(b)) + b + struct.pack("<i", len(b))
    starts = np.searchsorted(c, np.arange(N + 1))
    with open(path("K.op4"), "wb") as f:
        f.write(rec(struct.pack("<4i", N, -N, 6, 2) + b"KGG     "))
        for j in range(N):
            a, b = starts[j], starts[j + 1]
            rows = r[a:b]
            brk = np.flatnonzero(np.diff(rows) != 1) + 1
            parts = []
            for s, e in zip(np.r_[0, brk], np.r_[brk, len(rows)]):
                parts.append(struct.pack("<2i", 2 * (e - s) + 1, rows[s] + 1))
                parts.append(v[a + s:a + e].astype("<f8").tobytes())
            body = b"".join(parts)
            f.write(rec(struct.pack("<3i", j + 1, 0, len(body) // 4) + body))
        f.write(rec(struct.pack("<3i", N + 1, 1, 2) + struct.pack("<d", 1.0)))


FILES = [("matrix-market", "K.mtx", write_mm), ("harwell-boeing", "K.rua", write_hb),
         ("abaqus-matrix", "K_STIF1.mtx", write_abaqus),
         ("abaqus-coordinate", "K_coord.mtx", write_coordinate),
         ("nastran-dmig", "K.pch", write_dmig), ("nastran-op4-binary", "K.op4", write_op4)]
stamp = path("grid.txt")
fresh = not os.path.exists(stamp) or open(stamp).read().strip() != str(n)
for fmt, name, fn in FILES:
    if fresh or not os.path.exists(path(name)):
        timed(name, fn)
open(stamp, "w").write(str(n))

fcd = {}
for fmt, name, _ in FILES:
    res = subprocess.run([os.path.join(build, "bench", "import_read"), path(name), "--reps", "3"],
                         capture_output=True, text=True)
    if res.returncode != 0:
        print("fcd failed on %s: %s" % (name, res.stderr.strip()), file=sys.stderr)
        continue
    d = dict(re.findall(r"(\w+)=(\S+)", res.stdout))
    fcd[fmt] = d
    print("fcd %-20s %8.3f s %7.1f MB/s %9s entries, peak %.2f x storage"
          % (fmt, float(d["seconds"]), float(d["mb_per_s"]), d["entries"],
             float(d["peak_over_storage"])), file=sys.stderr)
    print("figure import_%s_mb_per_s %s" % (fmt, d["mb_per_s"]))
    print("figure import_%s_peak_over_storage %s" % (fmt, d["peak_over_storage"]))

mm = float(fcd["matrix-market"]["seconds"]) if "matrix-market" in fcd else None
for fmt, d in fcd.items():
    if fmt != "matrix-market" and mm and fmt != "nastran-op4-binary":
        print("ratio import_%s_vs_fcd_mm %.3f" % (fmt, float(d["seconds"]) / mm))


def best(fn, reps=2):
    t = 1e300
    for _ in range(reps):
        t0 = time.time()
        fn()
        t = min(t, time.time() - t0)
    return t


peer = {"matrix-market": best(lambda: scipy.io.mmread(path("K.mtx"))),
        "harwell-boeing": best(lambda: scipy.io.hb_read(path("K.rua")))}
for fmt, t in peer.items():
    print("scipy %-18s %8.3f s" % (fmt, t), file=sys.stderr)
    if fmt in fcd:
        print("ratio import_%s_vs_scipy %.3f" % (fmt, float(fcd[fmt]["seconds"]) / t))


def read_disk():
    """the file's bytes from the disk, past the page cache (dd with O_DIRECT), best of 3"""
    t = 1e300
    for _ in range(3):
        r = subprocess.run(["dd", "if=" + path("K.op4"), "of=/dev/null", "bs=16M",
                            "iflag=direct"], capture_output=True, text=True)
        m = re.search(r"copied, ([0-9.]+) s", r.stderr)
        if r.returncode == 0 and m:
            t = min(t, float(m.group(1)))
    return t


disk = read_disk()
if "nastran-op4-binary" in fcd and disk < 1e300:
    size = os.path.getsize(path("K.op4"))
    print("K.op4 read past the page cache (dd iflag=direct): %.3f s, %.0f MB/s"
          % (disk, size / disk / 1e6), file=sys.stderr)
    print("ratio import_op4_binary_vs_disk %.3f"
          % (float(fcd["nastran-op4-binary"]["seconds"]) / disk))
