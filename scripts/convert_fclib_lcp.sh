#!/usr/bin/env bash
# scripts/convert_fclib_lcp.sh IN.hdf5 [OUT.txt]: converts FCLIB's local
# sample problem (local_problem_test.hdf5, from the FCLIB project,
# https://github.com/FrictionalContactLibrary/fclib) into the boxed-LCP text
# fixture used by tests/c/test_lcp.c (run once; the output is committed).
# Installs libfclib-dev if needed.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: scripts/convert_fclib_lcp.sh IN.hdf5 [OUT.txt] (FCLIB's local_problem_test.hdf5)" >&2; exit 2; }
IN=$1
OUT=${2:-$ROOT/tests/fixtures/lcp/fclib_local_problem_test.txt}
[ -f "$IN" ] || { echo "convert_fclib_lcp: no such file: $IN" >&2; exit 2; }
bash "$ROOT/scripts/install-deps.sh" libfclib-dev
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
g++ -O1 "$ROOT/scripts/convert_fclib_lcp.cpp" -o "$TMP/convert" $(pkg-config --cflags --libs fclib)
"$TMP/convert" "$IN" "$OUT"
