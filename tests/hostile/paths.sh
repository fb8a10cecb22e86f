# tests/hostile/paths.sh: odd file names (spaces, quotes, newlines, leading
# dashes), missing directories, outputs onto directories or onto the input
# spec.  Odd names work; impossible outputs are one error line, exit 2,
# nothing written.

pa_spec() {
  cat >"$1" <<'LUA'
local Decay = leaf "Decay" {
  continuous_state { z = { "x" }, z0 = { 1.0 } },
  derivatives { prerequisites = { "z" }, calc = [[ zdot[0] = -z[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
  periodic_publish { "tick", period = 0.1, calc = [[ ]] },
}
return diagram "decay" { system { "d", Decay }, log { "d.y", period = 0.5 } }
LUA
}

hcase paths.spaces_in_names
mkdir "$T/my dir"
pa_spec "$T/my dir/my spec.lua"
hrun -- "$DIAGC" "$T/my dir/my spec.lua" -o "$T/my dir/out put.c"
expect_exit 0
check "both files written" test -s "$T/my dir/out put.c" -a -s "$T/my dir/out put.h"
hdone

hcase paths.quotes_in_output_names
pa_spec "$T/spec.lua"
hrun -- "$DIAGC" run "$T/spec.lua" --csv "$T/o'u\"t.csv"
expect_exit 0
check "CSV written" grep -q '^t,d.y$' "$T/o'u\"t.csv"
hdone

hcase paths.newline_in_output_name
pa_spec "$T/spec.lua"
hrun -- "$DIAGC" graph "$T/spec.lua" -o "$T/a
b.dot"
expect_exit 0
check "DOT written" grep -q '^digraph' "$T/a
b.dot"
hdone

hcase paths.newline_in_missing_dir_error
pa_spec "$T/spec.lua"
hrun -- "$DIAGC" graph "$T/spec.lua" -o "$T/no
dir/g.dot"
expect_exit 2
expect_error "cannot write '.*no\\\\010dir/g\.dot': No such file or directory"
hdone

hcase paths.leading_dash_spec_needs_separator
pa_spec "$T/-s.lua"
hrun -- sh -c 'cd "$1" && "$0" run -s.lua' "$ROOT/$DIAGC" "$T"
expect_exit 2
expect_error "unknown option '-s.lua'; to name the file '-s.lua', write -- before it or ./-s.lua"
hdone

hcase paths.leading_dash_spec_after_separator
pa_spec "$T/-s.lua"
hrun -- sh -c 'cd "$1" && "$0" run --until 0.5 -- -s.lua' "$ROOT/$DIAGC" "$T"
expect_exit 0
expect_stdout_match "^t,d.y"
hdone

hcase paths.output_directory_missing
pa_spec "$T/spec.lua"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/nodir/x.c"
expect_exit 2
expect_error "cannot write '.*nodir/x\.h': No such file or directory"
expect_absent "$T/nodir"
hdone

hcase paths.graph_output_is_spec
pa_spec "$T/spec.lua"
snapshot "$T/spec.lua"
hrun -- "$DIAGC" graph "$T/spec.lua" -o "$T/spec.lua"
expect_exit 2
expect_error "it is the input file .*spec\.lua; choose another output name"
expect_unchanged "$T/spec.lua"
hdone

hcase paths.csv_is_spec
pa_spec "$T/spec.lua"
snapshot "$T/spec.lua"
hrun -- "$DIAGC" run "$T/spec.lua" --csv "$T/./spec.lua"
expect_exit 2
expect_error "it is the input file"
expect_unchanged "$T/spec.lua"
hdone

hcase paths.info_output_is_imported_file
mkdir "$T/lib"
cat >"$T/lib/decay.lua" <<'LUA'
return leaf "Decay" {
  continuous_state { z = { "x" }, z0 = { 1.0 } },
  derivatives { prerequisites = { "z" }, calc = [[ zdot[0] = -z[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
}
LUA
printf 'local D = import "lib/decay.lua"\nreturn diagram "m" { system { "d", D } }\n' >"$T/spec.lua"
snapshot "$T/lib/decay.lua"
hrun -- "$DIAGC" info "$T/spec.lua" -o "$T/lib/decay.lua"
expect_exit 2
expect_error "it is the input file .*decay\.lua"
expect_unchanged "$T/lib/decay.lua"
hdone

hcase paths.output_onto_directory
pa_spec "$T/spec.lua"
mkdir "$T/out.dot"
hrun -- "$DIAGC" graph "$T/spec.lua" -o "$T/out.dot"
expect_exit 2
expect_error "cannot write '.*out\.dot': it is a directory; name a file"
hdone

hcase paths.output_trailing_slash
pa_spec "$T/spec.lua"
hrun -- "$DIAGC" graph "$T/spec.lua" -o "$T/newdir/"
expect_exit 2
expect_error "it names a directory; name a file"
expect_absent "$T/newdir"
hdone

hcase paths.generate_o_not_c
pa_spec "$T/spec.lua"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/spec.lua"
expect_exit 2
expect_error "-o must name a \.c file"
hdone

hcase paths.generate_info_not_json
pa_spec "$T/spec.lua"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/m.c" --info "$T/spec.lua"
expect_exit 2
expect_error "--info must name a \.json file"
expect_absent "$T/m.c" "$T/m.h"
hdone

hcase paths.generate_info_onto_a_directory
pa_spec "$T/spec.lua"
mkdir "$T/m.json"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/m.c" --info "$T/m.json"
expect_exit 2
expect_error "m\.json': it is a directory; name a file"
expect_absent "$T/m.c" "$T/m.h"
hdone

hcase paths.spec_is_directory
mkdir "$T/spec.lua"
hrun -- "$DIAGC" run "$T/spec.lua"
expect_exit 2
expect_error "cannot read spec file"
hdone

hcase paths.csv_and_plot_same_file
pa_spec "$T/spec.lua"
hrun -- "$DIAGC" run "$T/spec.lua" --csv "$T/o" --plot "$T/o"
expect_exit 2
expect_error "--csv and --plot name the same file"
expect_absent "$T/o"
hdone

hcase paths.deploy_output_in_odd_directory
# app.c and the models in a directory with spaces, quotes and a '*/'
pa_spec "$T/spec.lua"
mkdir "$T/a b'c*"
hrun -- "$DIAGC" deploy "$T/spec.lua" -o "$T/a b'c*/app.c"
expect_exit 0
check "app.c parses as C" ${CC:-cc} -std=c11 -fsyntax-only -Iruntime/include -I"$T/a b'c*" "$T/a b'c*/app.c"
hdone

hcase paths.plot_odd_name
pa_spec "$T/spec.lua"
if command -v gnuplot >/dev/null; then
  hrun -- "$DIAGC" run "$T/spec.lua" --plot "$T/p'l\"o
t.png"
  expect_exit 0
  check "a PNG was written" test "$(head -c 4 "$T/p'l\"o
t.png" | od -An -c | tr -d ' ')" = '211PNG'
fi
hdone

hcase paths.symlink_output_is_followed
# replacing an output through a symbolic link writes the file it points
# to and keeps the link
pa_spec "$T/spec.lua"
echo old >"$T/real.csv"
ln -s real.csv "$T/link.csv"
hrun -- "$DIAGC" run "$T/spec.lua" --csv "$T/link.csv"
expect_exit 0
check "the link is still a link" test -L "$T/link.csv"
check "the target holds the CSV" grep -q '^t,d.y$' "$T/real.csv"
hdone

hcase paths.plot_and_csv_odd_names
pa_spec "$T/spec.lua"
mkdir "$T/q'u
x"
if command -v gnuplot >/dev/null; then
  hrun -- "$DIAGC" run "$T/spec.lua" --csv "$T/q'u
x/o\"ut.csv" --plot "$T/q'u
x/p.png"
  expect_exit 0
  check "the CSV was written" grep -q '^t,d.y$' "$T/q'u
x/o\"ut.csv"
  check "a PNG was written" test -s "$T/q'u
x/p.png"
fi
hdone
