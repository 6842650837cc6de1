#!/usr/bin/env python3
"""The layering of lib/ as a build fact (issue 65). lib/layers.txt lists the layers from
the bottom up; this test reads, from the objects of the built library, which file
defines each global symbol and which file uses it, and fails when
  - a file calls into a layer above its own,
  - files call each other in a circle (also within a layer),
  - a file includes a header of a layer above its own,
  - a file of lib/ is missing from lib/layers.txt or from docs/architecture.md,
  - a file above the distribution layer calls one of its functions (or a host
    communicator's collective, fcd__comm_*) where lib/layers.txt's "calls" lines do not
    say it may (file, function, callee, and why), or a "calls" line names a call that is
    no longer there. The layer's seams, the rows' layout and products (fcd__rows_*), the
    readers' routing (fcd__route_*) and the components of a reduction by components
    (fcd__comp_*), are free to use.
It first checks itself on a made-up graph with one upward call and one circle, and on a
made-up source with an unlisted collective, so that it cannot pass by finding nothing.
usage: layers.py SOURCE_ROOT LIBFCD_INTERNAL.a"""
import glob
import os
import re
import subprocess
import sys
from collections import defaultdict


def read_layers(path):
    """the layers and each file's layer; an entry ending with '/' is a folder of lib/,
    every source and header under it"""
    lib = os.path.dirname(path)
    layers, layer_of = [], {}
    for line in open(path, encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("calls "):
            continue
        name, entries = line.split(":", 1)
        layers.append(name.strip())
        for e in entries.split():
            if e.endswith("/"):
                if not os.path.isdir(os.path.join(lib, e)):
                    sys.exit(f"layers.py: {path} names the folder {e}, which is not there")
                files = sorted(os.path.relpath(p, lib) for p in glob.glob(
                    os.path.join(lib, e, "**", "*.[ch]"), recursive=True))
            else:
                files = [e]
            for f in files:
                if f in layer_of:
                    sys.exit(f"layers.py: {f} is listed twice in {path}")
                layer_of[f] = len(layers) - 1
    return layers, layer_of


def symbol_graph(archive, files, defined_out=None):
    """edges[a][b] = the symbols file a uses that file b defines (defined_out: filled with
    symbol -> defining file)"""
    obj_to_file = {f.replace("/", "_") + ".o": f for f in files}
    out = subprocess.run(["nm", "-A", archive], check=True, capture_output=True,
                         text=True).stdout
    defined, used = {}, defaultdict(set)
    for line in out.splitlines():
        m = re.match(r"^[^:]+:([^:]+):\s*(?:[0-9a-fA-F]+)?\s+([A-Za-z])\s+(\S+)$", line)
        if not m:
            continue
        obj, kind, sym = m.groups()
        obj = os.path.basename(obj)  # a thin archive names its members by path
        f = obj_to_file.get(obj)
        if f is None:
            sys.exit(f"layers.py: the object {obj} of {archive} is no file of lib/layers.txt")
        if kind == "U":
            used[f].add(sym)
        elif kind in "TDBRCGSVW":
            defined.setdefault(sym, f)
    if defined_out is not None:
        defined_out.update(defined)
    edges = defaultdict(lambda: defaultdict(set))
    for f, syms in used.items():
        for s in syms:
            g = defined.get(s)
            if g is not None and g != f:
                edges[f][g].add(s)
    return edges


def circles(edges):
    """the strongly connected components of more than one file (Tarjan)"""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in list(edges):
        if v not in index:
            visit(v)
    return out


def violations(layers, layer_of, edges):
    bad = []
    for f, targets in sorted(edges.items()):
        for g, syms in sorted(targets.items()):
            if layer_of[g] > layer_of[f]:
                bad.append(f"{f} ({layers[layer_of[f]]}) calls up into {g} "
                           f"({layers[layer_of[g]]}): {', '.join(sorted(syms)[:4])}")
    for comp in circles(edges):
        bad.append("a circle: " + " -> ".join(comp))
    return bad


def include_violations(lib, layers, layer_of):
    bad = []
    by_name = {}
    for f in layer_of:
        if os.path.basename(f) in by_name:
            bad.append(f"two headers or sources named {os.path.basename(f)}: an include of "
                       "it by name is ambiguous")
        by_name[os.path.basename(f)] = f
    for f in sorted(layer_of):
        path = os.path.join(lib, f)
        if not os.path.exists(path):
            continue
        for line in open(path, encoding="utf-8"):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            target = os.path.normpath(os.path.join(os.path.dirname(f), m.group(1)))
            if target not in layer_of:  # found through the layers' folders (lib/meson.build)
                target = by_name.get(os.path.basename(m.group(1)), target)
            if target not in layer_of:
                continue  # a public header, or one a test builds
            if layer_of[target] > layer_of[f]:
                bad.append(f"{f} ({layers[layer_of[f]]}) includes {target} "
                           f"({layers[layer_of[target]]}), a layer above")
    return bad


def read_calls(path):
    """{(file, function, callee): why} from the "calls FILE FUNCTION CALLEE: why" lines"""
    allowed = {}
    for line in open(path, encoding="utf-8"):
        if not line.startswith("calls "):
            continue
        head, why = line[len("calls "):].split(":", 1)
        f, fn, callee = head.split()
        allowed[(f, fn, callee)] = why.strip()
    return allowed


def calls_in(text, names):
    """[(function, callee)] for each call in a C source of a name in names: the function
    is the last definition opened at column 0 above the call"""
    found, current = [], None
    pat = re.compile(r"\b(" + "|".join(sorted(map(re.escape, names))) + r")\s*\(") if names else None
    for line in re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text,
                       flags=re.S).splitlines():
        m = re.match(r"^[A-Za-z_][\w \*]*?\b(\w+)\s*\(", line)
        if m and not line.rstrip().endswith(";") and not line.startswith(("typedef", "#")):
            current = m.group(1)
            continue
        for c in pat.findall(line) if pat else ():
            found.append((current, c))
    return found


def collective_violations(lib, layers, layer_of, defined_by, allowed):
    """calls of the distribution layer's functions from above it, checked against the
    "calls" lines"""
    dist = layers.index("distribution")
    names = {s for s, f in defined_by.items()
             if (layer_of.get(f) == dist and not s.startswith("fcd__rows_")
                 and not s.startswith("fcd__route_") and not s.startswith("fcd__comp_")
                 and s.startswith("fcd__"))
             or s.startswith("fcd__comm_")}
    bad, seen = [], set()
    for f in sorted(layer_of):
        if layer_of[f] <= dist or not f.endswith(".c") or not os.path.exists(os.path.join(lib, f)):
            continue
        text = open(os.path.join(lib, f), encoding="utf-8").read()
        for fn, c in calls_in(text, names):
            key = (f, fn, c)
            seen.add(key)
            if key not in allowed:
                bad.append(f"{f}: {fn} calls the distribution layer's {c}, which no \"calls\" "
                           "line of lib/layers.txt allows (compute through the rows' "
                           "products and the factor instead)")
    bad += [f"lib/layers.txt allows {f}: {fn} to call {c}, which it no longer does"
            for (f, fn, c) in sorted(set(allowed) - seen)]
    return bad


def self_test():
    made_up = "static int step(int x) {\n  return fcd__dist_any(sys, x);\n}\n"
    if calls_in(made_up, {"fcd__dist_any"}) != [("step", "fcd__dist_any")]:
        sys.exit("layers.py: the checker missed a made-up collective call")
    layers = ["low", "high"]
    layer_of = {"a.c": 0, "b.c": 1, "c.c": 1}
    edges = {"a.c": {"b.c": {"up"}}, "b.c": {"c.c": {"x"}}, "c.c": {"b.c": {"y"}}}
    found = violations(layers, layer_of, edges)
    if not any("calls up" in v for v in found) or not any("circle" in v for v in found):
        sys.exit(f"layers.py: the checker missed a made-up violation: {found}")


def main():
    root, archive = sys.argv[1], sys.argv[2]
    self_test()
    layers, layer_of = read_layers(os.path.join(root, "lib", "layers.txt"))
    lib = os.path.join(root, "lib")
    sources = sorted(os.path.relpath(p, lib) for p in
                     glob.glob(os.path.join(lib, "**", "*.[ch]"), recursive=True))
    doc = open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8").read()
    bad = [f"{f} is in no layer of lib/layers.txt" for f in sources if f not in layer_of]
    bad += [f"lib/layers.txt lists {f}, which is no file of lib/" for f in layer_of
            if f not in sources]
    bad += [f"docs/architecture.md does not name {f}" for f in sources
            if f"`{os.path.basename(f)}`" not in doc]
    built = [f for f in layer_of if f in sources and f.endswith(".c")]
    defined_by = {}
    bad += violations(layers, layer_of, symbol_graph(archive, built, defined_by))
    bad += include_violations(lib, layers, layer_of)
    allowed = read_calls(os.path.join(lib, "layers.txt"))
    bad += collective_violations(lib, layers, layer_of, defined_by, allowed)
    for b in bad:
        print(b)
    if bad:
        sys.exit(1)
    print(f"{len(sources)} files in {len(layers)} layers: no upward call, no circle; "
          f"{len(allowed)} calls of the distribution layer from above it, each listed")


main()
