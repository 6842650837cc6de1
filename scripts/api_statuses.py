#!/usr/bin/env python3
"""The statuses each public function of fcd can return, read from lib/ (issue 21).

A function can return a status when the status's name appears in its body, in a macro
it uses, or in a function of lib/ it calls, transitively (static functions resolved in
their own file first). A call through a table of functions (`paths[p](...)`, `formats[f].read(...)`,
a static array initialised with function names, as stability_eigs.c's eigen-paths and
import.c's formats) counts as a call of every function in the table where the body both
indexes the table and calls through a member or an element (a lookup of a row's name
calls nothing), and a call through a member of a table of operations
(`f->ops->solve(...)`, a struct initialised with `.solve = mumps_solve`, as the factor's
table of the distributed layer) as a call of every function given to that member. This over-approximates what a call can really return (a path may
be impossible for some arguments) but never misses a name written in the code: the
headers' @return lines are checked against it (tests/foundation/api_tags.py), so the
documentation cannot fall behind the code.

usage: api_statuses.py SOURCE_ROOT   prints "function: FCD_E_A FCD_E_B ..." per line"""
import glob
import os
import re
import sys


def statuses(root):
    """{public function name: sorted list of FCD_E_* it can return}"""
    here = os.getcwd()
    os.chdir(root)
    try:
        funcs={}   # key -> body ; key = (file,name) for static, ('',name) for global
        macros={}
        for fn in glob.glob('lib/**/*.[ch]',recursive=True):
            t=open(fn).read()
            for m in re.finditer(r"#define\s+(\w+)\(([^)]*)\)((?:.*\\\n)*.*)", t):
                macros[m.group(1)]=m.group(3)
        def expand(b):
            for _ in range(3):
                for k,v in macros.items():
                    if re.search(r"\b"+k+r"\s*\(", b) and v not in b: b+=" "+v
            return b
        deffile={}
        tables={}  # (file, array name) -> the function names in its initialiser
        optab={}  # member name -> {(file, function)} of designated initialisers
        for fn in glob.glob('lib/**/*.c',recursive=True):
            if fn.endswith('fclib_none.c'): continue
            s=open(fn).read()
            s=re.sub(r"/\*.*?\*/","",s,flags=re.S)
            s=re.sub(r'"(\\.|[^"\\])*"','""',s)
            for m in re.finditer(r"(\w+)\[\]\)?\s*(?:\([^;{]*?\))?\s*=\s*\{([^;]*?)\};",s,re.S):
                tables[(fn,m.group(1))]=set(re.findall(r"\b([a-z_]\w*)\b",m.group(2)))
            # a table of operations (.member = function): a call through ->member( or
            # .member( counts as a call of every function any table gives that member
            for m in re.finditer(r"=\s*\{([^;]*?)\};",s,re.S):
                for mm in re.finditer(r"\.(\w+)\s*=\s*([a-z_]\w*)\b",m.group(1)):
                    optab.setdefault(mm.group(1),set()).add((fn,mm.group(2)))
            lines=s.split('\n')
            # function starts: line at col 0 not ending with ; that begins a definition; collect until line '}'
            i=0
            while i<len(lines):
                L=lines[i]
                if re.match(r"^[a-zA-Z_]",L) and '(' in L and not L.rstrip().endswith(';') and not L.startswith('#') and not L.startswith('typedef') and not L.startswith('struct') and '=' not in L.split('(')[0]:
                    # gather header until '{'
                    j=i; hdr=L
                    while '{' not in lines[j] and j+1<len(lines) and not lines[j].rstrip().endswith(';'):
                        j+=1; hdr+=' '+lines[j]
                    if re.search(r"=\s*\{",hdr):
                        i=j+1; continue  # an initialised array (a table), not a function
                    if '{' in lines[j]:
                        nm=re.search(r"(\w+)\s*\(",hdr).group(1)
                        k=j
                        if lines[j].rstrip().endswith('}') and lines[j].count('{')==lines[j].count('}'):
                            k=j
                        else:
                            while k<len(lines) and lines[k]!='}': k+=1
                        body='\n'.join(lines[j:k])
                        key=(fn,nm) if hdr.startswith('static') else ('',nm)
                        if not hdr.startswith('static'): deffile[nm]=fn
                        funcs[key]=funcs.get(key,'')+expand(body)
                        i=k+1; continue
                i+=1
        def resolve(fn,c):
            if (fn,c) in funcs: return (fn,c)
            if ('',c) in funcs: return ('',c)
            return None
        direct={k:set(re.findall(r"\bFCD_E_\w+",b)) for k,b in funcs.items()}
        calls={}
        for k,b in funcs.items():
            cs=set()
            for c in re.findall(r"\b(\w+)\s*\(",b):
                # file of a global function: find where defined
                r=None
                if k[0]: r=resolve(k[0],c)
                else:
                    # global function: its own file statics first
                    src_file=deffile.get(k[1])
                    r=resolve(src_file,c) if src_file else resolve('',c)
                if r and r!=k: cs.add(r)
            src=k[0] or deffile.get(k[1])
            # a table counts where the body indexes it and calls through something
            # (a row's member, an element): a lookup of a row's name calls nothing
            through=re.search(r"(?:->|\.)\w+\s*\(|\]\s*\(",b)
            for (tf,tn),members in tables.items():
                if tf==src and through and re.search(r"\b"+tn+r"\[",b):
                    for c in members:
                        r=resolve(src,c)
                        if r and r!=k: cs.add(r)
            for mem in set(re.findall(r"(?:->|\.)(\w+)\s*\(",b)):
                for (mf,c) in optab.get(mem,()):
                    r=resolve(mf,c)
                    if r and r!=k: cs.add(r)
            calls[k]=cs
        memo={}
        def clos(k,stack=()):
            if k in memo: return memo[k]
            if k in stack: return set()
            r=set(direct.get(k,()))
            for c in calls.get(k,()): r|=clos(c,stack+(k,))
            memo[k]=r; return r
        return {n: sorted(clos(('', n))) for (f, n) in funcs
                if f == '' and n.startswith('fcd_') and not n.startswith('fcd__')}
    finally:
        os.chdir(here)


if __name__ == "__main__":
    for name, sts in sorted(statuses(sys.argv[1] if len(sys.argv) > 1 else ".").items()):
        print(f"{name}: {' '.join(sts)}")
