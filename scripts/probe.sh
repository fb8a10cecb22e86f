#!/bin/sh
# scripts/probe.sh header HEADER [CFLAGS...]   compiles a file that includes HEADER
# scripts/probe.sh lib NAME [LDFLAGS...]        links a program with -lNAME
#
# Prints 1 when it worked and nothing otherwise; always exits 0, so the
# Makefile can use it as $(shell ...).  It compiles a real file rather than
# piping a directive into `cc -E`: inside make, a `\#` in $(shell ...) keeps
# its backslash under GNU make 4.3, and the preprocessor then accepts any
# "header" (tests/cli/probe.sh checks both answers).  CC is the compiler
# (default cc).
kind=${1:-}
name=${2:-}
[ $# -ge 2 ] && shift 2
cc=${CC:-cc}
dir=$(mktemp -d "${TMPDIR:-/tmp}/diagc-probe.XXXXXX") || exit 0
trap 'rm -rf "$dir"' EXIT HUP INT TERM
case $kind in
  header)
    printf '#include <%s>\nint diagc_probe;\n' "$name" >"$dir/p.c"
    # shellcheck disable=SC2086 # the compiler may be "ccache gcc"
    $cc "$@" -c "$dir/p.c" -o "$dir/p.o" >/dev/null 2>&1 && echo 1
    ;;
  lib)
    printf 'int main(void) { return 0; }\n' >"$dir/p.c"
    # shellcheck disable=SC2086
    $cc "$dir/p.c" -o "$dir/p" "$@" "-l$name" >/dev/null 2>&1 && echo 1
    ;;
esac
exit 0
