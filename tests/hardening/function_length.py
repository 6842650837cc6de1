#!/usr/bin/env python3
"""No function of lib/ or tools/ is longer than 100 lines (issue 21 set 150, issue 65
100): a function that long mixes ideas its readers have to separate; cut it at its phases.

Definitions are found by reading the C itself, not its layout: comments, strings and
character constants are blanked, preprocessor lines skipped, and the braces counted. At
file level, a "{" whose header (the text since the last ";", "}" or preprocessor line at
that level) ends in ")" and is neither an initializer ("=") nor a struct, union or enum
opens a function body; the function runs from its header's first line to the matching
"}". A signature over any number of lines is seen (the first version of this test read
one- and two-line signatures only and missed 158 functions, seven of them over the
limit). Before it reads the tree, the test reads sources of its own with the shapes that
matter (a signature over three lines, braces in strings and comments, a macro with
braces, a struct and an initializer at file level) and must find exactly the functions
and lengths they hold: a reader that cannot see a long function makes a test that cannot
fail. usage: function_length.py SOURCE_ROOT"""
import glob
import os
import re
import sys

LIMIT = 100
# drivers whose job is to read as an outline, held to less: none today
DRIVERS = {}


def blank(text):
    """text with comments, strings, character constants and preprocessor lines replaced
    by spaces (newlines kept, so line numbers hold)"""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if line_start and c == "#":
            # a directive, with its continuation lines
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        line_start = False
        if c == "\n":
            out.append(c)
            line_start = True
            i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * max(0, j - i - 2) + (c if j - i >= 2 else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(text):
    """[(name, first line, length in lines)] of the definitions in C source text; the
    length counts from the header's first line to the closing brace's (lines 0-based)"""
    src = blank(text)
    found = []
    depth = 0
    header_start = 0  # offset where the current file-level header begins
    body = None       # (name, first line) while inside a function body
    i = 0
    for i, c in enumerate(src):
        if c == "{":
            if depth == 0:
                head = src[header_start:i]
                h = head.strip()
                if h.endswith(")") and "=" not in h and \
                        not re.match(r"^(typedef\s+)?(struct|union|enum)\b", h):
                    h = re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", h)
                    m = re.search(r"(\w+)\s*\(", h)
                    first = src.count("\n", 0, header_start + len(head) - len(head.lstrip()))
                    body = (m.group(1) if m else "?", first)
                else:
                    body = None
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if body is not None:
                    last = src.count("\n", 0, i)
                    found.append((body[0], body[1], last - body[1]))
                body = None
                header_start = i + 1
        elif c == ";" and depth == 0:
            header_start = i + 1
        elif c == "\n" and depth == 0 and not src[header_start:i].strip():
            header_start = i + 1
    return found


def self_test():
    """the reader on sources whose functions are known; returns the failures"""
    long_body = "\n".join("  x += %d;" % k for k in range(101))
    cases = [
        # a signature over three lines, 101 statements: 104 lines from header to "}"
        ("static fcd_status a_long_one(fcd_system *sys,\n"
         "                             const fcd_real *x,\n"
         "                             fcd_index n) {\n" + long_body + "\n}\n",
         [("a_long_one", 0, 104)]),
        # braces in strings, characters and comments, a macro with braces, a struct, an
        # initializer and a prototype at file level
        ("#define BLOCK(x) do { x; } while (0)\n"
         "/* { not code } */\n"
         "struct s { int a; };\n"
         "static const int t[2] = {1, 2};\n"
         "int proto(int a);\n"
         "static int f(void)\n"
         "{\n"
         "  const char *s = \"}{\";\n"
         "  char c = '}';\n"
         "  return s[0] + c; // }\n"
         "}\n"
         "enum e { A, B };\n"
         "int g(int a, /* ) { */\n"
         "      int b) { if (a) { return b; } return a; }\n"
         "static inline __attribute__((always_inline)) int h(int a,\n"
         "                                                  int b) {\n"
         "  return a + b;\n"
         "}\n",
         [("f", 5, 5), ("g", 12, 1), ("h", 14, 3)]),
    ]
    failures = []
    for text, want in cases:
        got = functions(text)
        if got != want:
            failures.append("the reader found %s where the source holds %s" % (got, want))
    return failures


def main():
    failures = self_test()
    if failures:
        for f in failures:
            print("self-test: " + f)
        sys.exit(1)
    root = sys.argv[1]
    long_ones, count = [], 0
    for path in sorted(glob.glob(os.path.join(root, "lib", "**", "*.c"), recursive=True) +
                       glob.glob(os.path.join(root, "tools", "*.c"))):
        text = open(path, encoding="utf-8").read()
        for name, first, n in functions(text):
            count += 1
            if n > DRIVERS.get(name, LIMIT):
                long_ones.append((n, os.path.relpath(path, root), first + 1, name))
    if long_ones:
        for n, path, line, name in sorted(long_ones, reverse=True):
            print(f"{path}:{line}: {name}: {n} lines")
        print(f"{len(long_ones)} of {count} functions longer than {LIMIT} lines")
        sys.exit(1)
    print(f"none of the {count} functions of lib/ and tools/ is longer than {LIMIT} lines "
          "(the reader passed its self-test)")


if __name__ == "__main__":
    main()
