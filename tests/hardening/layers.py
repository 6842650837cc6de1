#!/usr/bin/env python3
"""The layering of lib/ as a build fact (issue 65). lib/layers.txt lists the layers from
the bottom up; this test reads, from the objects of the built library, which file
defines each global symbol and which file uses it, and fails when
  - a file calls into a layer above its own,
  - files call each other in a circle (also within a layer),
  - a file includes a header of a layer above its own,
  - a file of lib/ is missing from lib/layers.txt or from docs/architecture.md.
It first checks itself on a made-up graph with one upward call and one circle, so that
it cannot pass by finding nothing.
usage: layers.py SOURCE_ROOT LIBFCD_INTERNAL.a"""
import glob
import os
import re
import subprocess
import sys
from collections import defaultdict


def read_layers(path):
    layers, layer_of = [], {}
    for line in open(path, encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, files = line.split(":", 1)
        layers.append(name.strip())
        for f in files.split():
            if f in layer_of:
                sys.exit(f"layers.py: {f} is listed twice in {path}")
            layer_of[f] = len(layers) - 1
    return layers, layer_of


def symbol_graph(archive, files):
    """edges[a][b] = the symbols file a uses that file b defines"""
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
    for f in sorted(layer_of):
        path = os.path.join(lib, f)
        if not os.path.exists(path):
            continue
        for line in open(path, encoding="utf-8"):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            target = os.path.normpath(os.path.join(os.path.dirname(f), m.group(1)))
            if target not in layer_of:
                continue  # a public header, or one a test builds
            if layer_of[target] > layer_of[f]:
                bad.append(f"{f} ({layers[layer_of[f]]}) includes {target} "
                           f"({layers[layer_of[target]]}), a layer above")
    return bad


def self_test():
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
            if f"`{f}`" not in doc]
    built = [f for f in layer_of if f in sources and f.endswith(".c")]
    bad += violations(layers, layer_of, symbol_graph(archive, built))
    bad += include_violations(lib, layers, layer_of)
    for b in bad:
        print(b)
    if bad:
        sys.exit(1)
    print(f"{len(sources)} files in {len(layers)} layers: no upward call, no circle")


main()
