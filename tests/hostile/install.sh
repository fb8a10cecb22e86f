# tests/hostile/install.sh: bin/diagc away from its files, DIAGC_ROOT
# pointing nowhere, odd install prefixes, a tampered install manifest.
# diagc must say in one line where it looked (exit 2), never fail with an
# internal error; make install/uninstall must never touch files outside the
# prefix, and refuse (one line, before installing anything) a PREFIX the
# installed files cannot carry, never running or expanding what it holds.

MK=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$ROOT")
DIAGC_ABS=$(realpath "$DIAGC")
_spec() { cp "$ROOT/examples/discrete_counter.lua" "$T/spec.lua"; }

hcase install.binary_copied_alone
_spec
cp "$DIAGC" "$T/diagc"
hrun -- "$T/diagc" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "cannot find the Lua modules: no generator/diagc/driver\.lua in /.* or /.*share/diagc; .*DIAGC_ROOT"
expect_absent "$T/out.c" "$T/out.h"
hdone

hcase install.binary_in_bare_bin_dir
_spec
mkdir -p "$T/bin"
cp "$DIAGC" "$T/bin/diagc"
hrun -- "$T/bin/diagc" --version
expect_exit 2
expect_error "no generator/diagc/driver\.lua in $T or $T/share/diagc"
hdone

hcase install.symlinked_binary_finds_its_tree
mkdir -p "$T/bin"
ln -s "$DIAGC_ABS" "$T/bin/diagc"
hrun -- "$T/bin/diagc" --version
expect_exit 0
expect_stdout_match "^diagc $(cat "$ROOT/VERSION")$"
hdone

hcase install.diagc_root_nowhere
_spec
hrun -- env DIAGC_ROOT="$T/nowhere" "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "DIAGC_ROOT=$T/nowhere does not contain generator/diagc/driver\.lua; unset DIAGC_ROOT"
expect_absent "$T/out.c" "$T/out.h"
hdone

hcase install.diagc_root_empty_dir
mkdir -p "$T/empty"
hrun -- env DIAGC_ROOT="$T/empty" "$DIAGC" --version
expect_exit 2
expect_error "DIAGC_ROOT=.*does not contain generator/diagc/driver\.lua"
hdone

hcase install.diagc_root_is_a_file
: >"$T/file"
hrun -- env DIAGC_ROOT="$T/file" "$DIAGC" --version
expect_exit 2
expect_error "DIAGC_ROOT=.*does not contain"
hdone

hcase install.diagc_root_without_headers
mkdir -p "$T/r/generator"
ln -s "$ROOT/generator/diagc" "$T/r/generator/diagc"
hrun -- env DIAGC_ROOT="$T/r" "$DIAGC" --version
expect_exit 2
expect_error "cannot find the runtime headers: no diagc/model\.h in $T/r/runtime/include"
hdone

hcase install.diagc_root_with_control_characters
hrun -- env DIAGC_ROOT="$T/a"$'\033[31m\n'"b" "$DIAGC" --version
expect_exit 2
expect_error 'DIAGC_ROOT=.*/a\\x1b\[31m\\x0ab does not contain'
hdone

hcase install.prefix_with_spaces
_spec
p="$T/with space/pre fix"
hrun --timeout 120 -- "${MK[@]}" install PREFIX="$p"
expect_exit 0
hrun -- "$p/bin/diagc" "$T/spec.lua" -o "$T/out dir.c"
expect_exit 0
check "the installed diagc wrote out dir.c and out dir.h" test -f "$T/out dir.c" -a -f "$T/out dir.h"
hrun -- "$p/bin/diagc" run "$T/spec.lua" --until 0.04
expect_exit 0
expect_stdout_match '^0\.04,20$'
hrun --timeout 60 -- "${MK[@]}" uninstall PREFIX="$p"
expect_exit 0
check "uninstall left files in the prefix" test -z "$(find "$p" -type f -o -type l 2>/dev/null)"
hdone

# refuse_prefix NAME VAR VALUE ERE: make install and uninstall with
# VAR=VALUE stop in one line naming VAR (make's "Makefile:N: *** ...
# Stop."), exit status 2, before anything is installed; no command in VALUE
# runs (it would create $T/MARKER) and nothing appears in $T
refuse_prefix() {
  hcase "install.refused_$1"
  local target
  for target in install uninstall; do
    hrun --timeout 120 -- "${MK[@]}" "$target" "$2=$3"
    expect_exit 2
    check "$target: stderr is one line: $err" test "$(printf '%s' "$err" | awk 'END { print NR }')" = 1
    expect_stderr_match "^Makefile:[0-9]+: \*\*\* scripts/install\.sh: $2 $4"
  done
  expect_no_marker
  check "nothing was written in the test folder: $(ls -A "$T" | tr '\n' ' ')" \
    test -z "$(find "$T" -mindepth 1 ! -name .stdout ! -name .stderr)"
  expect_absent "$ROOT/rel" "$ROOT/stage"
  hdone
}
refuse_prefix semicolon PREFIX "$T/p;x" "holds ';', which diagc's installed files cannot carry"
refuse_prefix double_quote PREFIX "$T/p\"x" "holds '\"'"
refuse_prefix single_quote PREFIX "$T/p'x" "holds '''"
refuse_prefix backquote PREFIX "$T/q\`touch $T/MARKER\`" "holds '\`'"
refuse_prefix command_substitution PREFIX "$T/q\$(touch $T/MARKER)" "holds '\\$'"
refuse_prefix dollar PREFIX "$T/d\$HOME" "holds '\\$'"
refuse_prefix make_reference PREFIX "$T/d\$(HOME)" "holds '\\$'"
refuse_prefix backslash PREFIX "$T/b\\s" "holds '\\\\'"
refuse_prefix colon PREFIX "$T/c:d" "holds ':'"
refuse_prefix newline PREFIX "$T/n
l" "holds a newline"
refuse_prefix escape_sequence PREFIX "$T/e"$'\033'"[31m" "holds a control character .*e\\\\x1b\[31m"
refuse_prefix empty PREFIX "" "is empty"
refuse_prefix relative PREFIX "rel/prefix" "must be an absolute path"
refuse_prefix destdir_newline DESTDIR "$T/s
t" "holds a newline"
refuse_prefix destdir_relative DESTDIR "stage" "must be an absolute path"

hcase install.prefix_non_ascii_and_destdir_with_quote
# what the installed files can carry is installed: a non-ASCII letter and
# spaces in PREFIX; DESTDIR (a staging folder, not read from) may hold a quote
p="/opt/dia gc/jürgen"
hrun --timeout 120 -- "${MK[@]}" install DESTDIR="$T/st'age" PREFIX="$p"
expect_exit 0
check "bin/diagc is staged" test -x "$T/st'age$p/bin/diagc"
hrun -- "$T/st'age$p/bin/diagc" --version
expect_exit 0
hrun --timeout 60 -- "${MK[@]}" uninstall DESTDIR="$T/st'age" PREFIX="$p"
expect_exit 0
check "uninstall left files" test -z "$(find "$T/st'age" -type f -o -type l)"
hdone

hcase install.uninstall_where_nothing_is_installed
mkdir -p "$T/p/bin"
echo keep >"$T/p/bin/other"
hrun --timeout 60 -- "${MK[@]}" uninstall PREFIX="$T/p"
expect_exit 0
expect_stderr_match 'nothing to uninstall'
check "uninstall removed a file diagc did not install" test -f "$T/p/bin/other"
hdone

hcase install.tampered_manifest_stays_in_prefix
mkdir -p "$T/p/share/diagc" "$T/p/bin"
echo keep >"$T/outside"
echo keep >"$T/p/bin/other"
printf '%s\n' ../../outside "$T/outside" 'bin/../../outside' bin/diagc >"$T/p/share/diagc/MANIFEST"
: >"$T/p/bin/diagc"
hrun --timeout 60 -- "${MK[@]}" uninstall PREFIX="$T/p"
expect_exit 0
check "uninstall removed a file outside the prefix" test -f "$T/outside"
check "uninstall removed a file the manifest does not list" test -f "$T/p/bin/other"
check "uninstall kept a listed file" test ! -e "$T/p/bin/diagc"
hdone

hcase install.version_file_missing
mkdir -p "$T/r/generator" "$T/r/runtime"
cp -r "$ROOT/generator/diagc" "$T/r/generator/"
ln -s "$ROOT/runtime/include" "$T/r/runtime/include"
hrun -- env DIAGC_ROOT="$T/r" "$DIAGC" --version
expect_exit 2
expect_error "cannot read the version \(MAJOR\.MINOR\.PATCH\) from $T/r/VERSION"
printf 'not a version\n' >"$T/r/VERSION"
hrun -- env DIAGC_ROOT="$T/r" "$DIAGC" --version
expect_exit 2
expect_error "cannot read the version"
printf '7.8.9\n' >"$T/r/VERSION"
hrun -- env DIAGC_ROOT="$T/r" "$DIAGC" --version
expect_exit 0
expect_stdout_match '^diagc 7\.8\.9$'
hdone

# tree_in DIR: a checkout-shaped tree in DIR (the binary and the headers
# copied, the modules linked)
tree_in() {
  mkdir -p "$1/bin" "$1/runtime"
  cp "$DIAGC" "$1/bin/diagc"
  cp -r "$ROOT/runtime/include" "$1/runtime/include"
  cp "$ROOT/VERSION" "$1/VERSION"
  ln -s "$ROOT/generator" "$1/generator"
  ln -s "$ROOT/templates" "$1/templates"
}

hcase install.tree_in_folder_with_lua_path_characters
# ';' and '?' mean something in a Lua package.path: diagc loads its modules
# without one
_spec
tree_in "$T/a;b?c"
hrun -- "$T/a;b?c/bin/diagc" "$T/spec.lua" -o "$T/out.c"
expect_exit 0
check "out.c written" test -f "$T/out.c"
hrun -- "$T/a;b?c/bin/diagc" run "$T/spec.lua" --until 0.02
expect_exit 0
expect_stdout_match '^0\.02,10$'
hdone

hcase install.tree_in_folder_with_colon
# TinyCC reads ':' in an include path as a list separator: one line, exit 2
_spec
tree_in "$T/a:b"
hrun -- "$T/a:b/bin/diagc" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "the runtime headers are in $T/a:b/runtime/include, whose path holds ':'"
expect_absent "$T/out.c" "$T/out.h"
hdone
