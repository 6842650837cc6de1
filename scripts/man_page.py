#!/usr/bin/env python3
"""Writes the manual page: docs/fcd.1.in with @COMMANDS@ replaced by what the built
program prints for `fcd help --roff` (each command's synopsis, description and options,
from the lists its parser uses) and @VERSION@ by its version.
usage: man_page.py FCD TEMPLATE OUTPUT"""
import os
import subprocess
import sys

fcd, template, output = sys.argv[1:4]
# the program must not start MPI at build time: no launcher variables reach it
env = {k: v for k, v in os.environ.items()
       if not k.startswith(("OMPI_COMM_WORLD", "PMI_", "PMIX_"))}
# a sanitized build's program writes the page too; its leak report is the tests' business
env["ASAN_OPTIONS"] = "detect_leaks=0"
commands = subprocess.run([fcd, "help", "--roff"], check=True, capture_output=True,
                          text=True, env=env).stdout
version = subprocess.run([fcd, "--version"], check=True, capture_output=True, text=True,
                         env=env).stdout.split()[1]
text = open(template, encoding="utf-8").read()
if "@COMMANDS@" not in text or not commands.startswith(".SH COMMANDS"):
    sys.exit(f"man_page.py: {template} has no @COMMANDS@, or fcd printed no COMMANDS section")
text = text.replace("@COMMANDS@\n", commands).replace("@VERSION@", version)
with open(output + ".tmp", "w", encoding="utf-8") as f:
    f.write(text)
os.replace(output + ".tmp", output)
