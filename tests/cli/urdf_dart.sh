#!/usr/bin/env bash
# tests/cli/urdf_dart.sh: the oracle for URDF import. The robots of
# examples/robots, imported by diagc, against DART's URDF loader (Debian
# libdart-utils-urdf-dev) on the same files: mass matrix, bias and forward
# dynamics to 1e-9 relative, link frames to 1e-12, at 20 random states per
# robot (tests/cli/urdf_dart.lua; the DART side is tests/cli/urdf_dart.cpp).
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! scripts/install-deps.sh libdart-utils-urdf-dev >"$tmp/install.log" 2>&1; then
  echo "skip urdf_dart.oracle: libdart-utils-urdf-dev could not be installed ($(tail -1 "$tmp/install.log"))"
  exit 0
fi
# shellcheck disable=SC2046
if ! g++ -O1 tests/cli/urdf_dart.cpp $(pkg-config --cflags --libs dart) -std=c++17 -ldart-utils-urdf -ldart-utils \
  -lurdfdom_model -o "$tmp/urdf_dart" 2>"$tmp/build.log"; then
  echo "FAIL urdf_dart.build: $(head -3 "$tmp/build.log")"
  exit 1
fi
DIAGC_URDF_DART="$tmp/urdf_dart" "$DIAGC" test tests/cli/urdf_dart.lua
