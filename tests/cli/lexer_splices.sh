#!/usr/bin/env bash
# tests/cli/lexer_splices.sh: calc bodies are lexed as the C compiler reads
# them (line splices removed first), so code a splice reveals to the
# compiler is seen by diagc's checks too; trigraphs and backslash-blanks at
# the end of a line, which compilers read differently, are errors.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# case NAME CALC WANT_GREP: a leaf whose output y (prerequisites {nothing})
# has calc CALC; `diagc -o` must exit 2 with one line matching WANT_GREP
# and write nothing.
case_() {
  local name=$1 calc=$2 want=$3 rc
  cat >"$tmp/$name.lua" <<SPEC
local G = leaf "G" {
  parameter { "stiffness", default = { 2.0 } },
  output_port { "y", size = 1, prerequisites = { "nothing" },
    calc = [==[
$calc
]==] },
}
return diagram "d" { system { "g", G } }
SPEC
  "$DIAGC" "$tmp/$name.lua" -o "$tmp/$name.c" >/dev/null 2>"$tmp/err"
  rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$want" "$tmp/err" &&
     [ ! -e "$tmp/$name.c" ] && [ ! -e "$tmp/$name.h" ]; then
    echo "ok lexer_splices.$name"
  else
    echo "FAIL lexer_splices.$name: exit $rc: $(head -c 300 "$tmp/err")"
  fi
}

# a splice between '*' and '/' closes the comment for the compiler: the read
# of stiffness after it is code, and the prerequisites do not grant it
case_ comment_closed_by_splice 'y[0] = 1.0; /* *\
/ y[0] = stiffness[0]; /* */' ":6:.*reads 'stiffness'"
# a splice inside a name: the compiler reads 'stiffness'; the checker
# refuses the splice itself (check/c_code.lua)
case_ name_split_by_splice 'y[0] = stiff\
ness[0];' ":5:13: .*line splice .*inside a name"
# ??/ at the end of a line is a splice for gcc -std=c99, not for TinyCC
case_ trigraph_splice 'y[0] = 1.0; /* *??/
/ y[0] = 2.0; /* */' ":5:.*trigraph"
case_ trigraph_in_code 'y[0] = 1 ??!??! 0;' ":5:.*trigraph"
case_ backslash_blanks 'y[0] = 1.0; // note \  
y[0] = 2.0;' ":5:.*backslash at the end of a line followed by blanks"
