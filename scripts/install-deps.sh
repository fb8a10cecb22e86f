#!/usr/bin/env bash
# scripts/install-deps.sh [EXTRA_PACKAGE...]
#
# Installs the Debian packages diagc needs (plus any named on the command
# line, e.g. libgsl-dev for a benchmark).  Idempotent: does nothing when
# everything is installed; otherwise, as root, runs `apt-get update` once and
# installs what is missing.  Not root and something missing: prints the
# command to run and exits 1.  Then `npm ci` in viewer/: the viewer's pinned
# npm packages (viewer/package-lock.json), from which make bundles the
# viewer offline (docs/viewer.md); skipped when node_modules matches the
# lockfile already.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)

packages=(
  build-essential
  clang
  tcc
  libtcc-dev
  luajit
  libluajit-5.1-dev
  libexpat1-dev # the host's XML parser (URDF import: generator/host/xml_lua.c)
  re2c
  pkg-config
  gnuplot-nox
  valgrind
  cmake # tests/cli/install.sh builds a product with find_package(diagc)
  qhull-bin # qconvex: the test peer of the mesh hulls (tests/lua/world_mesh_test.lua)
  chromium # the viewer's pages are tested in it, headless (tests/cli/viewer.sh)
  python3-numpy # import diagc (python/, docs/python.md) returns NumPy arrays
  libopenmpi-dev # diagc sweep --mpi: mpicc builds lib/libdiagc_mpi.so, mpirun runs tests/cli/sweep.sh
)
# node and npm bundle the viewer (make) and drive the browser tests; a node
# installed otherwise (NodeSource, nvm) is used as it is
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi
# Test peers are named by the tests that need them and installed on demand
# (scripts/install-deps.sh PACKAGE): libsundials-dev (tests/cli/cvode*.sh),
# libdart-utils-urdf-dev (tests/cli/urdf_dart.sh: DART's URDF loader, the
# oracle for URDF import), gnuplot-nox, cmake.
packages+=("$@")

# npm ci in viewer/ unless node_modules holds what the lockfile pins (a
# copy of the lockfile is left in node_modules after each npm ci)
viewer_packages() {
  local dir="$root/viewer"
  [ -f "$dir/package-lock.json" ] || return 0
  cmp -s "$dir/package-lock.json" "$dir/node_modules/.diagc-ci-lock" && return 0
  if ! command -v npm >/dev/null 2>&1; then
    echo "install-deps: npm is missing; install nodejs and npm, then run this again" >&2
    exit 1
  fi
  echo "install-deps: npm ci in viewer/ (the viewer's pinned packages)"
  if ! (cd "$dir" && npm ci --no-audit --no-fund </dev/null); then
    # everything but the viewer builds and works without them: say so, and
    # leave a note (for this lockfile) so that make does not try again on
    # every run; running this script again tries again
    echo "install-deps: warning: npm ci in viewer/ failed (is the npm registry reachable?): diagc builds" \
      "without the viewer's bundle, and diagc view and run --html say so; run scripts/install-deps.sh" \
      "again where the registry is reachable (docs/viewer.md)" >&2
    mkdir -p "$root/build/viewer"
    cp "$dir/package-lock.json" "$root/build/viewer/npm-ci-failed.lock"
    return 0
  fi
  cp "$dir/package-lock.json" "$dir/node_modules/.diagc-ci-lock"
  rm -f "$root/build/viewer/npm-ci-failed.lock"
}

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q ' installed$'
}

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-deps: not a Debian system; install by hand: ${packages[*]}" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  installed "$p" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  viewer_packages
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run: sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update </dev/null
apt-get install -y --no-install-recommends "${missing[@]}" </dev/null

still=()
for p in "${missing[@]}"; do
  installed "$p" || still+=("$p")
done
if [ ${#still[@]} -ne 0 ]; then
  echo "install-deps: failed to install: ${still[*]}" >&2
  exit 1
fi
viewer_packages
