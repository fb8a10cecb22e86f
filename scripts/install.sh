#!/usr/bin/env bash
# scripts/install.sh install|uninstall: what `make install` and
# `make uninstall` run (docs/install.md); `check` only checks PREFIX and
# DESTDIR.  Run from the checkout, after `make`, with PREFIX (default
# /usr/local) and DESTDIR (default empty) in the environment.  Paths may
# contain spaces; what the installed files cannot carry is refused in one
# line on stderr, exit status 2, before anything is written.
#
# Layout under DESTDIR/PREFIX (fixed relative to PREFIX, so an installed tree
# can be moved as a whole; bin/diagc finds the rest from its own location):
#
#   bin/diagc, bin/diagc-topology
#   share/diagc/generator/diagc/...     the generator's Lua modules
#   share/diagc/VERSION                 the version (read by the generator)
#   share/diagc/templates/*.in          the shape of the generated files
#   share/diagc/examples/               the examples with their subfolders (world/, urdf/)
#                                       and URDF files (diagc.root .. "/examples")
#   share/diagc/topologies/             the iRobot topologies and their licence
#   share/diagc/build/viewer/           the viewer's bundle (diagc view inlines it) and
#                                       viewer/NOTICE, the licences of what it bundles
#   share/diagc/MANIFEST                every installed file, for uninstall
#   share/doc/diagc/                    README.md, CHANGELOG.md, LICENSE, docs/*.md
#   include/diagc/*.h                   the runtime's public headers
#   lib/libdiagc.a                      the runtime, static
#   lib/libdiagc.so.X.Y.Z               the runtime, shared (soname libdiagc.so.X)
#   lib/libdiagc.so.X, lib/libdiagc.so  symlinks
#   lib/libdiagc_mpi.so                 diagc sweep --mpi, when make built it
#   lib/libdiagc_cvode.a, .so           the optional CVODE backend, when make
#                                       built it (libsundials-dev installed)
#   lib/pkgconfig/diagc.pc              pkg-config
#   lib/cmake/diagc/diagcConfig.cmake, diagcConfigVersion.cmake   find_package(diagc)
#   SITE/diagc/*.py, collect.c          `import diagc` (python/): SITE is the Debian
#                                       python3's site folder under PREFIX
#                                       (python_site below), else lib/python3/dist-packages
#
# uninstall removes the files MANIFEST lists, then the folders diagc owns
# (share/diagc, share/doc/diagc, include/diagc, lib/cmake/diagc) when empty.
set -euo pipefail

cd "$(dirname "$0")/.."
action=${1:-}
PREFIX=${PREFIX-/usr/local}
DESTDIR=${DESTDIR:-}
die() { echo "scripts/install.sh: $*" >&2; exit 2; }

# shown VALUE: VALUE for a one-line message (control characters as \xNN)
shown() {
  local s=$1 out="" c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    if [[ "$c" == [[:cntrl:]] ]]; then out+=$(printf '\\x%02x' "'$c"); else out+=$c; fi
  done
  printf '%s' "$out"
}

# check_path NAME VALUE: an absolute path the installed files can carry.
# The prefix is not written into them (diagc.pc, the CMake package and
# bin/diagc find it relative to themselves), but it is where they are
# read from: pkg-config splits its flags at quotes and backslashes, CMake
# lists at ';', TinyCC include paths at ':', the install manifest at
# newlines; '$' and '`' mean something to make and to the shell commands
# built from pkg-config's answer.  Spaces and non-ASCII letters are fine.
check_path() {
  local name=$1 v=$2 bad
  [ "$name" = DESTDIR ] && [ -z "$v" ] && return 0
  [ -n "$v" ] || die "$name is empty; give an absolute path (make install PREFIX=/usr/local)"
  case "$v" in /*) ;; *) die "$name must be an absolute path, got '$(shown "$v")'" ;; esac
  if [[ "$v" == *[[:cntrl:]]* ]]; then
    die "$name holds a control character (a newline, a tab, ...): '$(shown "$v")'; choose a path without them"
  fi
  [ "$name" = DESTDIR ] && return 0 # a staging folder: not where the files are read from
  bad=$(printf '%s' "$v" | LC_ALL=C tr -dc '"'"'"'\\$`;:' | head -c 1)
  if [ -n "$bad" ]; then
    die "$name holds '$bad', which diagc's installed files cannot carry (pkg-config, CMake, the shell); choose a path without \" ' \\ \$ \` ; : ('$(shown "$v")')"
  fi
}
check_path PREFIX "$PREFIX"
check_path DESTDIR "$DESTDIR"
D="$DESTDIR$PREFIX"
manifest_rel=share/diagc/MANIFEST

VERSION=$(cat VERSION)
[[ "$VERSION" =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] || die "VERSION is not MAJOR.MINOR.PATCH: '$VERSION'"
MAJOR=${BASH_REMATCH[1]}
SHLIB=libdiagc.so.$VERSION
SONAME=libdiagc.so.$MAJOR

n_installed=0

# record REL: appends REL to the manifest once D/REL is in place, so that an
# install that fails half-way can still be uninstalled
record() {
  printf '%s\n' "$1" >> "$D/$manifest_rel"
  n_installed=$((n_installed + 1))
}

# put MODE SRC REL: copies SRC to D/REL
put() {
  install -D -m "$1" "$2" "$D/$3"
  record "$3"
}

# link TARGET REL: a relative symlink D/REL -> TARGET
link() {
  mkdir -p "$(dirname "$D/$2")"
  ln -sfn "$1" "$D/$2"
  record "$2"
}

# text CONTENT REL: writes CONTENT to D/REL
text() {
  mkdir -p "$(dirname "$D/$2")"
  printf '%s' "$1" > "$D/$2"
  chmod 644 "$D/$2"
  record "$2"
}

# remove_listed: removes the files the manifest lists (paths below the
# prefix only), and the manifest; prints how many
remove_listed() {
  local rel n=0
  while IFS= read -r rel; do
    case "$rel" in "" | /* | *..*) continue ;; esac
    if [ -e "$D/$rel" ] || [ -L "$D/$rel" ]; then rm -f "$D/$rel"; n=$((n + 1)); fi
  done < "$D/$manifest_rel"
  rm -f "$D/$manifest_rel"
  echo "$n"
}

# python_site: SITE, relative to PREFIX: the first of the Debian python3's
# site folders (site.getsitepackages(), then the user's) below PREFIX
# (/usr/local: lib/python3.X/dist-packages; $HOME/.local:
# lib/python3.X/site-packages; /usr: lib/python3/dist-packages), else
# lib/python3/dist-packages, which python3 then finds through PYTHONPATH only
python_site() {
  local py=/usr/bin/python3 rel=""
  [ -x "$py" ] || py=$(command -v python3 || true)
  if [ -n "$py" ]; then
    rel=$(PREFIX="$PREFIX" "$py" -c 'import os, site
p = os.environ["PREFIX"].rstrip("/") + "/"
dirs = site.getsitepackages() + [site.getusersitepackages()]
print(next((d[len(p):] for d in dirs if d.startswith(p) and d[len(p):].startswith("lib/")), ""))' 2>/dev/null) || rel=""
  fi
  echo "${rel:-lib/python3/dist-packages}"
}

do_install() {
  local f
  for f in bin/diagc bin/diagc-topology lib/libdiagc.a "lib/$SHLIB"; do
    [ -f "$f" ] || die "$f is missing: run make first"
  done
  # over an earlier install: its files go first (a module since removed
  # must not stay behind)
  [ -f "$D/$manifest_rel" ] && remove_listed >/dev/null
  mkdir -p "$D/share/diagc"
  : > "$D/$manifest_rel"
  chmod 644 "$D/$manifest_rel"
  record "$manifest_rel"
  put 755 bin/diagc bin/diagc
  put 755 bin/diagc-topology bin/diagc-topology
  while IFS= read -r f; do put 644 "$f" "share/diagc/$f"; done < <(find generator/diagc -type f -name '*.lua' | LC_ALL=C sort)
  put 644 VERSION share/diagc/VERSION
  for f in templates/*.in; do put 644 "$f" "share/diagc/$f"; done
  # every spec, test, URDF and SRDF file, subfolders included (examples/world,
  # examples/urdf, examples/robots with its meshes and NOTICE files)
  while IFS= read -r f; do put 644 "$f" "share/diagc/$f"; done < <(
    find examples -type f \( -name '*.lua' -o -name '*.urdf' -o -name '*.srdf' -o -name '*.stl' \
      -o -name NOTICE \) | LC_ALL=C sort)
  for f in bench/executor/topologies/*; do put 644 "$f" "share/diagc/topologies/${f##*/}"; done
  # the viewer's bundle, where make built it (not where npm could not reach
  # its registry: install-deps.sh warned, and diagc view says so)
  if [ -f build/viewer/viewer.js ] && [ -f build/viewer/viewer.css ]; then
    for f in build/viewer/viewer.js build/viewer/viewer.css; do put 644 "$f" "share/diagc/$f"; done
    put 644 viewer/NOTICE share/diagc/build/viewer/NOTICE
  fi
  for f in README.md CHANGELOG.md LICENSE; do put 644 "$f" "share/doc/diagc/$f"; done
  for f in docs/*.md; do put 644 "$f" "share/doc/diagc/$f"; done
  for f in runtime/include/diagc/*.h; do put 644 "$f" "include/diagc/${f##*/}"; done
  put 644 lib/libdiagc.a lib/libdiagc.a
  put 755 "lib/$SHLIB" "lib/$SHLIB"
  link "$SHLIB" "lib/$SONAME"
  link "$SONAME" lib/libdiagc.so
  # the optional CVODE backend (bin/diagc loads the .so for cvode_bdf)
  if [ -f lib/libdiagc_cvode.so ] && [ -f lib/libdiagc_cvode.a ]; then
    put 644 lib/libdiagc_cvode.a lib/libdiagc_cvode.a
    put 755 lib/libdiagc_cvode.so lib/libdiagc_cvode.so
  fi
  # import diagc, for the Debian python3 (docs/python.md)
  local site
  site=$(python_site)
  for f in python/diagc/*.py python/diagc/*.c; do put 644 "$f" "$site/diagc/${f##*/}"; done
  # diagc sweep --mpi (bin/diagc loads it for --mpi only)
  if [ -f lib/libdiagc_mpi.so ]; then put 755 lib/libdiagc_mpi.so lib/libdiagc_mpi.so; fi
  text "$(sed -e "s/@VERSION@/$VERSION/g" cmake/diagc.pc.in)"$'\n' lib/pkgconfig/diagc.pc
  text "$(sed -e "s/@VERSION@/$VERSION/g" -e "s/@SHLIB@/$SHLIB/g" -e "s/@SONAME@/$SONAME/g" \
    cmake/diagcConfig.cmake.in)"$'\n' lib/cmake/diagc/diagcConfig.cmake
  text "$(sed -e "s/@VERSION@/$VERSION/g" cmake/diagcConfigVersion.cmake.in)"$'\n' \
    lib/cmake/diagc/diagcConfigVersion.cmake
  echo "installed diagc $VERSION into $D ($n_installed files; make uninstall PREFIX=... removes them)"
  [ "$site" = lib/python3/dist-packages ] && [ "$PREFIX" != /usr ] &&
    echo "the Python package is in $PREFIX/$site, which python3 does not search: add it to PYTHONPATH"
  return 0
}

do_uninstall() {
  local n d
  if [ ! -f "$D/$manifest_rel" ]; then
    echo "scripts/install.sh: nothing to uninstall: no $D/$manifest_rel" >&2
    exit 0
  fi
  # the Python package's folder (its bytecode cache is not listed)
  local pydir
  pydir=$(grep -m1 '^lib/.*/diagc/__init__\.py$' "$D/$manifest_rel" | sed 's|/__init__\.py$||' || true)
  case "$pydir" in *..*) pydir="" ;; esac
  n=$(remove_listed)
  if [ -n "$pydir" ]; then
    rm -rf "${D:?}/$pydir/__pycache__"
    rmdir "$D/$pydir" 2>/dev/null || true
  fi
  # folders diagc owns, deepest first, when empty
  while IFS= read -r d; do rmdir "$d" 2>/dev/null || true; done < <(
    for top in share/diagc share/doc/diagc include/diagc lib/cmake/diagc; do
      [ -d "$D/$top" ] && find "$D/$top" -depth -type d
    done)
  echo "uninstalled diagc from $D ($n files)"
}

case "$action" in
  check) ;; # PREFIX and DESTDIR are fine (checked above)
  install) do_install ;;
  uninstall) do_uninstall ;;
  *) die "usage: scripts/install.sh check|install|uninstall (PREFIX, DESTDIR from the environment)" ;;
esac
