# tests/hostile/names.sh: names a spec may choose that C would read as
# something else, and spec/output paths that the generated C must carry in
# comments, #line directives and #include.  Either a one-line error at the
# spec line, or valid C.

# name_spec DECL USE: $T/spec.lua with a leaf declaring DECL (a Lua item)
# and an output computed by USE
name_spec() {
  cat >"$T/spec.lua" <<EOF
local A = leaf "A" {
  $1,
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ $2 ]] },
}
return diagram "top" { system { "a", A }, log { "a.y", period = 1 } }
EOF
}

reject_name() { # ERE
  hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2
  expect_error "$1"
  expect_absent "$T/out.c" "$T/out.h"
  hrun -- "$DIAGC" run "$T/spec.lua" --until 1
  expect_exit 2
  expect_error "$1"
}

# strict_compile C_FILE: gcc and clang compile it at the documented flags
strict_compile() {
  local cc
  for cc in gcc clang; do
    command -v $cc >/dev/null || continue
    hrun -- $cc -std=c99 -Wall -Wextra -Werror -pedantic -I"$ROOT/runtime/include" -c "$1" -o "$T/x.o"
    expect_exit 0
  done
}

hcase names.asm_input
name_spec 'input_port { "asm", size = 1 }' 'y[0] = t;'
sed -i 's/system { "a", A }, /system { "a", A }, fix_input { "a.asm", value = { 0 } }, /' "$T/spec.lua"
reject_name "spec\.lua:2: input_port name 'asm' is a compiler keyword or a macro of the C library"
hdone

hcase names.typeof_parameter
name_spec 'parameter { "typeof", default = { 1 } }' 'y[0] = t;'
reject_name "spec\.lua:2: parameter name 'typeof' is a compiler keyword"
hdone

hcase names.unix_discrete_state
name_spec 'discrete_state { "unix", default = { 1 } }' 'y[0] = t;'
reject_name "spec\.lua:2: discrete_state name 'unix' is a compiler keyword or a macro"
hdone

hcase names.linux_subsystem
cat >"$T/spec.lua" <<'EOF'
local A = leaf "A" { output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] } }
return diagram "top" { system { "linux", A } }
EOF
reject_name "spec\.lua:2: .*'linux' is a compiler keyword or a macro"
hdone

hcase names.infinity_parameter
name_spec 'parameter { "INFINITY", default = { 1 } }' 'y[0] = t;'
reject_name "spec\.lua:2: parameter name 'INFINITY' is a compiler keyword or a macro of the C library"
hdone

hcase names.nan_cache_entry
name_spec 'cache_entry { "NAN", size = 1, prerequisites = { "time" }, calc = [[ NAN[0] = t; ]] }' 'y[0] = t;'
reject_name "spec\.lua:2: cache_entry name 'NAN' is a compiler keyword or a macro"
hdone

hcase names.m_pi_parameter
name_spec 'parameter { "M_PI", default = { 3 } }' 'y[0] = t;'
reject_name "spec\.lua:2: parameter name 'M_PI' is a math constant macro"
hdone

hcase names.errno_state
name_spec 'discrete_state { "errno", default = { 0 } }' 'y[0] = t;'
reject_name "spec\.lua:2: discrete_state name 'errno' is a compiler keyword or a macro"
hdone

hcase names.stdout_output
cat >"$T/spec.lua" <<'EOF'
local A = leaf "A" { output_port { "stdout", size = 1, prerequisites = { "time" }, calc = [[ stdout[0] = t; ]] } }
return diagram "top" { system { "a", A } }
EOF
reject_name "spec\.lua:1: output_port name 'stdout' is a compiler keyword or a macro"
hdone

hcase names.dbl_epsilon_parameter
name_spec 'parameter { "DBL_EPSILON", default = { 1 } }' 'y[0] = t;'
reject_name "spec\.lua:2: parameter name 'DBL_EPSILON' is a macro of the C library"
hdone

hcase names.int32_max_parameter
name_spec 'parameter { "INT32_MAX", default = { 1 } }' 'y[0] = t;'
reject_name "spec\.lua:2: parameter name 'INT32_MAX' is a macro of the C library"
hdone

hcase names.runtime_macro_name
name_spec 'parameter { "DIAGC_SUCCEEDED", default = { 1 } }' 'y[0] = t;'
reject_name "spec\.lua:2: parameter name 'DIAGC_SUCCEEDED' starts with diagc_"
hdone

hcase names.runtime_function_name
name_spec 'parameter { "diagc_value_out", default = { 1 } }' 'y[0] = t;'
reject_name "spec\.lua:2: parameter name 'diagc_value_out' starts with diagc_"
hdone

hcase names.generated_prefix_macro
name_spec 'parameter { "TOP_NQ", default = { 1 } }' 'y[0] = t;'
reject_name "spec\.lua:2: name 'TOP_NQ' starts with 'TOP_', which the generated header uses"
hdone

hcase names.generated_prefix_with_name_option
# --name changes the prefix; the clash follows it
name_spec 'parameter { "PLANT_NXC", default = { 1 } }' 'y[0] = t;'
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c" --name plant
expect_exit 2
expect_error "spec\.lua:2: name 'PLANT_NXC' starts with 'PLANT_'"
expect_absent "$T/out.c" "$T/out.h"
hdone

hcase names.event_named_typeof
name_spec 'periodic_publish { "typeof", period = 1, calc = [[ ]] }' 'y[0] = t;'
reject_name "spec\.lua:2: event name 'typeof' is a compiler keyword"
hdone

hcase names.leaf_named_asm
cat >"$T/spec.lua" <<'EOF'
local A = leaf "asm" { output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] } }
return diagram "top" { system { "a", A } }
EOF
reject_name "spec\.lua:1: leaf name 'asm' is a compiler keyword"
hdone

hcase names.calc_local_named_unix
# tcc predefines unix as 1; gcc -std=c99 does not: code may not use it
name_spec 'parameter { "k", default = { 1 } }' 'double unix = t; y[0] = unix;'
reject_name "spec\.lua:3:.*'unix' is a compiler extension or predefined macro"
hdone

hcase names.spec_path_quote_backslash
mkdir -p "$T/d"
name_spec 'parameter { "k", default = { 2 } }' 'y[0] = t;'
mv "$T/spec.lua" "$T/d/q\"u\\o.lua"
hrun -- "$DIAGC" "$T/d/q\"u\\o.lua" -o "$T/out.c"
expect_exit 0
check "the #line names the spec path escaped" grep -qF '#line 3 "'"$T"'/d/q\"u\\o.lua"' "$T/out.c"
strict_compile "$T/out.c"
hdone

hcase names.spec_path_comment_end
mkdir -p "$T/a*"
name_spec 'parameter { "k", default = { 2 } }' 'y[0] = t;'
mv "$T/spec.lua" "$T/a*/spec.lua"
hrun -- "$DIAGC" "$T/a*/spec.lua" -o "$T/out.c"
expect_exit 0
check "the header's first line is one comment" grep -q '^/\* top\.h: generated by diagc .* Do not edit\. \*/$' "$T/out.h"
strict_compile "$T/out.c"
hdone

hcase names.spec_path_trigraphs
name_spec 'parameter { "k", default = { 2 } }' 'y[0] = t;'
mkdir -p "$T/s??"
mv "$T/spec.lua" "$T/s??/x??=??-.lua"
hrun -- "$DIAGC" "$T/s??/x??=??-.lua" -o "$T/out.c"
expect_exit 0
strict_compile "$T/out.c"
hdone

hcase names.spec_path_newline_tab
name_spec 'parameter { "k", default = { 2 } }' 'y[0] = t;'
p="$T/new
line	tab.lua"
mv "$T/spec.lua" "$p"
hrun -- "$DIAGC" "$p" -o "$T/out.c"
expect_exit 0
check "the header's first line is one comment" grep -q '^/\* top\.h: .* Do not edit\. \*/$' "$T/out.h"
strict_compile "$T/out.c"
hrun -- "$DIAGC" run "$p" --until 1
expect_exit 0
expect_stdout_match '^t,a\.y
0,0
1,1$'
hdone

hcase names.spec_path_quote_error_location
mkdir -p "$T/d"
name_spec 'parameter { "k", default = { 2 } }' 'y[0] = undefined_fn(t);'
mv "$T/spec.lua" "$T/d/it's \"q\".lua"
hrun -- "$DIAGC" run "$T/d/it's \"q\".lua"
expect_exit 2
expect_error "d/it's \"q\"\.lua:3: C error in a calc body: implicit declaration of function 'undefined_fn'"
hdone

hcase names.output_name_quote
name_spec 'parameter { "k", default = { 2 } }' 'y[0] = t;'
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/o\"ut.c"
expect_exit 2
expect_error 'output file name "o\\"ut\.h" cannot be written in the generated #include'
expect_absent "$T/o\"ut.c" "$T/o\"ut.h"
hdone

hcase names.output_name_backslash_newline
name_spec 'parameter { "k", default = { 2 } }' 'y[0] = t;'
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/o\\
ut.c"
expect_exit 2
expect_error 'output file name .* cannot be written in the generated #include'
hdone

hcase names.output_dir_odd_chars
# only the file's own name goes into #include: any directory works
mkdir -p "$T/d\"i*/r"
name_spec 'parameter { "k", default = { 2 } }' 'y[0] = t;'
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/d\"i*/r/model.c"
expect_exit 0
strict_compile "$T/d\"i*/r/model.c"
hdone

hcase names.abstract_type_unix
name_spec 'abstract_state { "m", type = "unix" }' 'y[0] = t;'
reject_name "spec\.lua:2: abstract_state type 'unix': 'unix' is not a C99 type name"
hdone

hcase names.log_name_escapes
# a log column name with a backslash, a trigraph, a comment end, quotes and
# a tab: a valid C string literal carrying the same bytes to the CSV header
cat >"$T/spec.lua" <<'EOF2'
local A = leaf "A" { output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] } }
return diagram "top" { system { "a", A }, log { "a.y", period = 1, name = "w\\e ??= */ 'q'\ttab" } }
EOF2
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 0
strict_compile "$T/out.c"
hrun -- "$DIAGC" run "$T/spec.lua" --until 1
expect_exit 0
check "the CSV header carries the name's bytes" test "$(printf '%s\n' "$out" | head -1)" = "$(printf 't,w\\e ??= */ '"'"'q'"'"'\ttab')"
hdone

# Long names (generator/diagc/vocab/limits.lua): a name is at most 255
# characters and a system's path at most 3830, so every string literal the
# generated C spells a name in ("a.b.x[1]") fits C99's 4095 characters.

# strict_all C_FILE: gcc, clang and tcc compile it at the documented flags
strict_all() {
  local cc
  for cc in gcc clang tcc; do
    command -v $cc >/dev/null || continue
    hrun -- $cc -std=c99 -Wall -Wextra -Werror -pedantic -I"$ROOT/runtime/include" -c "$1" -o "$T/x.o"
    [ "$rc" = 0 ] || _h_bad "$cc: $(printf '%s' "$err" | grep -m1 error | head -c 300)"
  done
}

# long_spec SYS STATE: a leaf (a discrete state STATE of size 2, a
# parameter and an output of that name too) as system SYS
long_spec() {
  cat >"$T/spec.lua" <<LUA
local sys, st = ("$1"), ("$2")
local A = leaf "A" {
  discrete_state { st, default = { 1, 2 } },
  parameter { st .. "p", default = { 3 } },
  output_port { "y", size = 1, prerequisites = { st, st .. "p" }, calc = "y[0] = " .. st .. "[1] * " .. st .. "p[0];" },
}
return diagram "top" { system { sys, A }, log { sys .. ".y", period = 1 } }
LUA
}

hcase names.system_name_100000_characters
long_spec '"):rep(0) .. ("s"):rep(100000) .. ("' x
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "spec\.lua:7: subsystem name 'sssssssssssssssssssssss.\.\.\.' is 100000 characters long; a name is at most 255 characters"
expect_absent "$T/out.c" "$T/out.h"
hdone

hcase names.state_name_256_characters
long_spec a '"):rep(0) .. ("x"):rep(256) .. ("'
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "spec\.lua:3: discrete_state name 'x+\.\.\.' is 256 characters long; a name is at most 255"
hdone

hcase names.names_at_the_limit_compile_everywhere
# 255-character system, state (254 + "p" for the parameter) names: y = 2 * 3
long_spec '"):rep(0) .. ("s"):rep(255) .. ("' '"):rep(0) .. ("x"):rep(254) .. ("'
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 0
strict_all "$T/out.c"
hrun -- "$DIAGC" run "$T/spec.lua" --until 1
expect_exit 0
expect_stdout_match '^0,6
1,6$'
hdone

# path_spec N LAST: 14 diagrams nested in each other, each system named
# with 255 characters, then a leaf system named with LAST characters: its
# path is 14 * 256 + LAST characters; the leaf's discrete state has a
# 255-character name and size 2 ("path.xxx[1]")
path_spec() {
  cat >"$T/spec.lua" <<LUA
local st = ("x"):rep(255)
local A = leaf "A" {
  discrete_state { st, default = { 1, 2 } },
  output_port { "y", size = 1, prerequisites = { st }, calc = "y[0] = " .. st .. "[1];" },
}
local d = diagram "d0" {
  system { ("l"):rep($1), A },
}
for i = 1, 14 do
  d = diagram("d" .. i) { system { ("n"):rep(254) .. (i % 10), d } }
end
return d
LUA
}

hcase names.path_over_the_limit
path_spec 247
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "spec\.lua:7: the path of subsystem 'l+\.\.\.' \('n+\.\.\.'\) is 3831 characters long; a path is at most 3830 characters"
expect_absent "$T/out.c" "$T/out.h"
hdone

hcase names.path_at_the_limit_compiles_everywhere
path_spec 246
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 0
check "the longest literal is 3830 + 1 + 255 + 3 characters" \
  grep -qE "\"n{254}4\..*\.l{246}\.x{255}\[1\]\"" "$T/out.c"
strict_all "$T/out.c"
hdone

hcase names.logger_name_over_the_limit
name_spec 'parameter { "k", default = { 1 } }' 'y[0] = t;'
sed -i 's/log { "a.y", period = 1 }/log { "a.y", period = 1, name = ("w"):rep(4096) }/' "$T/spec.lua"
reject_name "spec\.lua:5: the logger name 'w+\.\.\.' is 4096 characters long; the generated C spells it in a string literal, which C99 limits to 4095 characters"
hdone

hcase names.world_body_name_over_the_limit
cat >"$T/spec.lua" <<'LUA'
local arena = world "arena" {
  body { ("g"):rep(300), joint = { "fixed" }, shapes = { { "plane" } } },
}
return diagram "top" { system { "w", arena } }
LUA
reject_name "spec\.lua:2: body name 'g+\.\.\.' is 300 characters long; a name is at most 255 characters"
hdone
