#!/bin/sh
# The manual page, generated at build time from the program's option lists
# (scripts/man_page.py), renders without a groff warning and names every option that
# `fcd help` lists: a template edit that drops the generated section, or a generator
# that loses options, fails here.
# usage: man_page.sh FCD PAGE
set -u
fcd=$1 page=$2
warn=$(groff -man -ww -z "$page" 2>&1)
[ -z "$warn" ] || { echo "groff warns on $page: $warn"; exit 1; }
text=$(groff -man -Tutf8 "$page" 2>/dev/null | col -bx 2>/dev/null || groff -man -Tascii "$page")
missing=""
for opt in $("$fcd" help | grep -o -- '--[a-z0-9-]*' | sort -u); do
  printf '%s\n' "$text" | grep -q -- "$opt" || missing="$missing $opt"
done
[ -z "$missing" ] || { echo "options of 'fcd help' missing from $page:$missing"; exit 1; }
for cmd in info solve simulate equilibrium stability lattice demo; do
  "$fcd" "$cmd" --help | head -n 1 | grep -q "^usage: fcd $cmd" ||
    { echo "'fcd $cmd --help' does not print its usage"; exit 1; }
done
echo "man page: ok"
