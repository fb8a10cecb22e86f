# tests/hostile/c_injection.sh: C text in a spec that tries to leave its
# calc function, run or read something at generation, change another leaf's
# code, or compile differently under the in-process compiler than under
# gcc/clang -std=c99 -pedantic.  Every command applies the same rule.

# leaf_spec CALC [PREAMBLE]: $T/spec.lua with one leaf whose output y (read
# at t = 0, 1) is computed by CALC; PREAMBLE (if given) is its c_preamble.
leaf_spec() {
  {
    echo 'local A = leaf "A" {'
    [ $# -ge 2 ] && printf '  c_preamble [==[\n%s\n]==],\n' "$2"
    printf '  output_port { "y", size = 1, prerequisites = { "time" },\n    calc = [==[ %s ]==] },\n' "$1"
    echo '}'
    echo 'return diagram "top" { system { "a", A }, log { "a.y", period = 1 } }'
  } >"$T/spec.lua"
}

# reject_everywhere ERE: `-o`, `run`, `linearize` and `test` all refuse
# $T/spec.lua with the same one-line message (ERE), write nothing and run no
# user code.
reject_everywhere() {
  hrun --timeout 10 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2
  expect_error "$1"
  expect_absent "$T/out.c" "$T/out.h"
  hrun --timeout 10 -- "$DIAGC" run "$T/spec.lua" --until 1
  expect_exit 2
  expect_error "$1"
  hrun --timeout 10 -- "$DIAGC" linearize "$T/spec.lua" --mode first_order_taylor
  expect_exit 2
  expect_error "$1"
  printf 'test("t", function() diagc.jit("%s") end)\n' "$T/spec.lua" >"$T/x_test.lua"
  hrun --timeout 10 -- "$DIAGC" test "$T/x_test.lua"
  expect_exit 1
  expect_stdout_match "FAIL t: .*$1"
  expect_no_marker
}

# strict_compile: the C `-o` wrote compiles under gcc and clang at the
# documented flags
strict_compile() {
  local cc
  for cc in gcc clang; do
    command -v $cc >/dev/null || continue
    hrun -- $cc -std=c99 -Wall -Wextra -Werror -pedantic -I"$ROOT/runtime/include" -c "$T/out.c" -o "$T/out.o"
    expect_exit 0
  done
}

hcase c_injection.calc_closes_its_function
leaf_spec 'y[0] = t; } int leaked = 1; static void g(void) {'
reject_everywhere "spec\.lua:3:27: .*unbalanced '\}' closes nothing"
hdone

hcase c_injection.calc_digraph_braces
leaf_spec 'y[0] = t; %> int leaked = 1; static void g(void) <%'
reject_everywhere "spec\.lua:3:27: .*unbalanced '\}'"
hdone

hcase c_injection.calc_unclosed_brace
leaf_spec 'y[0] = t; { y[0] = 2.0;'
reject_everywhere "spec\.lua:3:27: .*unbalanced '\{': it is never closed"
hdone

hcase c_injection.calc_paren_breakout
leaf_spec 'y[0] = (t; } {'
reject_everywhere "spec\.lua:3:28: .*unbalanced '\}' \(the '\(' at 1:9"
hdone

hcase c_injection.calc_define
leaf_spec 'y[0] = t;
#define sin(x) 42.0'
reject_everywhere "spec\.lua:4:1: in the calc of output port 'y': preprocessor directive '#define"
hdone

hcase c_injection.calc_include_dev_zero
leaf_spec 'y[0] = t;
#include "/dev/zero"'
reject_everywhere "spec\.lua:4:1: .*preprocessor directive '#include"
expect_within 5
hdone

hcase c_injection.calc_digraph_directive
leaf_spec 'y[0] = t;
%:define X 1'
reject_everywhere "spec\.lua:4:1: .*preprocessor directive '%:define"
hdone

hcase c_injection.calc_trigraph_directive
leaf_spec 'y[0] = t;
??=define X 1'
reject_everywhere "spec\.lua:4:1: .*'\?\?=' is a trigraph"
hdone

hcase c_injection.calc_trigraph_splice
leaf_spec 'y[0] = t; // a comment ??/
y[0] = 2.0;'
reject_everywhere "spec\.lua:3:40: .*'\?\?/' is a trigraph"
hdone

hcase c_injection.calc_stray_hash
leaf_spec 'y[0] = t; # define X'
reject_everywhere "spec\.lua:3:27: .*stray '#'"
hdone

hcase c_injection.calc_pragma_operator
leaf_spec '_Pragma("comment(lib, \"evil\")") y[0] = t;'
reject_everywhere "spec\.lua:3:17: .*'_Pragma' is a compiler extension"
hdone

hcase c_injection.calc_asm_incbin
leaf_spec '__asm__(".incbin \"/dev/zero\""); y[0] = t;'
reject_everywhere "spec\.lua:3:17: .*'__asm__' is reserved"
expect_within 5
hdone

hcase c_injection.calc_asm_keyword
leaf_spec 'asm("nop"); y[0] = t;'
reject_everywhere "spec\.lua:3:17: .*'asm' is a compiler extension"
hdone

hcase c_injection.calc_splice_joins_name
leaf_spec 'y[0] = t; _Pra\
gma("x")'
reject_everywhere "spec\.lua:3:31: .*line splice"
hdone

hcase c_injection.preamble_constructor_attribute
leaf_spec 'y[0] = t;' '#include <stdio.h>
static void __attribute__((constructor)) boom(void) { fclose(fopen("'"$T"'/MARKER", "w")); }'
reject_everywhere "spec\.lua:4:.*'__attribute__' is reserved"
hdone

hcase c_injection.preamble_pragma_comment_lib
# a real shared library whose constructor would leave a marker if loaded
if command -v gcc >/dev/null; then
  printf '#include <stdio.h>\n__attribute__((constructor)) static void boom(void) { fclose(fopen("%s/MARKER", "w")); }\n' "$T" >"$T/evil.c"
  gcc -shared -fPIC -o "$T/libevil.so" "$T/evil.c"
fi
leaf_spec 'y[0] = t;' '#pragma comment(lib, "'"$T"'/libevil.so")'
reject_everywhere "spec\.lua:3:1: in the c_preamble of leaf \"A\": directive '#pragma' is not allowed"
hdone

hcase c_injection.preamble_pragma_comment_option
leaf_spec 'y[0] = t;' '#pragma comment(option, "-nonexistent-option")'
reject_everywhere "spec\.lua:3:1: .*directive '#pragma' is not allowed"
expect_within 5
hdone

hcase c_injection.preamble_pragma_spaced_spliced
leaf_spec 'y[0] = t;' '  #  \
pragma once'
reject_everywhere "spec\.lua:3:3: .*directive '#pragma' is not allowed"
hdone

hcase c_injection.preamble_include_dev_zero
leaf_spec 'y[0] = t;' '#include "/dev/zero"'
reject_everywhere "spec\.lua:3:1: .*#include \"/dev/zero\" is not a C99 standard header"
expect_within 5
hdone

hcase c_injection.preamble_include_fifo
mkfifo "$T/fifo.h"
leaf_spec 'y[0] = t;' '#include "fifo.h"'
reject_everywhere "spec\.lua:3:1: .*#include \"fifo.h\" is not a C99 standard header"
expect_within 5
hdone

hcase c_injection.preamble_include_neighbour_file
printf 'int secret = 42;\n' >"$T/secret.h"
leaf_spec 'y[0] = t;' '#include "secret.h"'
reject_everywhere "spec\.lua:3:1: .*not a C99 standard header"
hdone

hcase c_injection.preamble_include_macro_name
leaf_spec 'y[0] = t;' '#define H "/dev/zero"
#include H'
reject_everywhere "spec\.lua:4:1: .*#include H is not a C99 standard header"
hdone

hcase c_injection.preamble_include_next
leaf_spec 'y[0] = t;' '#include_next <math.h>'
reject_everywhere "spec\.lua:3:1: .*directive '#include_next' is not allowed"
hdone

hcase c_injection.preamble_line_directive
leaf_spec 'y[0] = t;' '#line 1 "elsewhere.c"'
reject_everywhere "spec\.lua:3:1: .*directive '#line' is not allowed"
hdone

hcase c_injection.preamble_unterminated_if
leaf_spec 'y[0] = t;' '#if 1
static double k = 1.0;'
reject_everywhere "spec\.lua:3:1: .*conditional directive without #endif"
hdone

hcase c_injection.preamble_undef_library_macro
leaf_spec 'y[0] = t;' '#include <math.h>
#undef NAN'
reject_everywhere "spec\.lua:4:1: .*#undef NAN: a c_preamble may undefine only macros it defines itself"
hdone

hcase c_injection.preamble_token_paste
leaf_spec 'y[0] = t;' '#define P(x) x ## suffix'
reject_everywhere "spec\.lua:3:1: .*token pasting"
hdone

hcase c_injection.preamble_unbalanced_struct
leaf_spec 'y[0] = t;' 'struct open {'
reject_everywhere "spec\.lua:3:.*unbalanced '\{': it is never closed"
hdone

hcase c_injection.init_breaks_out
cat >"$T/spec.lua" <<'EOF'
local A = leaf "A" {
  abstract_state { "n", type = "int", init = "0; } int leaked = 1; static void g(void) { int i = 0" },
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
}
return diagram "top" { system { "a", A }, log { "a.y", period = 1 } }
EOF
reject_everywhere "spec\.lua:2:.*in the init of 'n': unbalanced '\}'"
hdone

hcase c_injection.implicit_declaration_fabs
# fabs used before <math.h>: an implicit declaration returning int
leaf_spec 'y[0] = mag(-0.5 - t);' 'static double mag(double x) { return fabs(x); }
#include <math.h>'
reject_everywhere "spec\.lua:3: C error in a c_preamble: implicit declaration of function 'fabs'"
hdone

hcase c_injection.m_pi_not_c99
leaf_spec 'y[0] = M_PI * t;' '#include <math.h>'
reject_everywhere "spec\.lua:6: C error in a calc body: 'M_PI' undeclared; M_PI is POSIX"
hdone

hcase c_injection.define_scoped_to_its_leaf
# leaf A redefines sin; leaf B's sin(t) must stay the C library's
cat >"$T/spec.lua" <<'EOF'
local A = leaf "A" {
  c_preamble [[
#include <math.h>
#define sin(x) 42.0
#define SCALE 2.0
]],
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = SCALE * sin(t); ]] },
}
local B = leaf "B" {
  c_preamble [[ #include <math.h> ]],
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = sin(t); ]] },
}
return diagram "top" { system { "a", A }, system { "b", B },
  log { "a.y", period = 0.5 }, log { "b.y", period = 0.5 } }
EOF
hrun -- "$DIAGC" run "$T/spec.lua" --until 1
expect_exit 0
# sin(0.5) = 0.479425538604203, sin(1) = 0.8414709848078965 (shortest round-trip)
expect_stdout_match '^t,a\.y,b\.y
0,84,0
0\.5,84,0\.479425538604203
1,84,0\.8414709848078965$'
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 0
check "the header undefines the preamble's macros" grep -q '^#undef sin$' "$T/out.h"
strict_compile
hdone

hcase c_injection.define_cannot_reach_generated_code
# a preamble macro named like a function the generated code calls
leaf_spec 'y[0] = 2.0 * t;' '#include <string.h>
#define memcpy(d, s, n) ((void)0)
#define memset(d, c, n) ((void)0)'
hrun -- "$DIAGC" run "$T/spec.lua" --until 1
expect_exit 0
expect_stdout_match '^t,a\.y
0,0
1,2$'
hdone

hcase c_injection.macro_abstract_type
cat >"$T/spec.lua" <<'EOF'
local A = leaf "A" {
  c_preamble [[ #define counter_t int ]],
  abstract_state { "n", type = "counter_t" },
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
}
return diagram "top" { system { "a", A }, log { "a.y", period = 1 } }
EOF
reject_everywhere "spec\.lua:3: type 'counter_t' of 'n' is a macro of a c_preamble"
hdone

hcase c_injection.derivative_into_other_leaf
# a z-only leaf after a leaf with q and v: qdot would alias the
# oscillator's acceleration slot
cat >"$T/spec.lua" <<'EOF'
local Osc = leaf "Osc" {
  continuous_state { q = 1, v = 1, q0 = { 1 } },
  derivatives { calc = [[ qdot[0] = v[0]; vdot[0] = -q[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "q" }, calc = [[ y[0] = q[0]; ]] },
}
local Decay = leaf "Decay" {
  continuous_state { z = 1, z0 = { 1 } },
  derivatives { calc = [[ zdot[0] = -z[0]; vdot[0] = 99.0; ]] },
}
return diagram "top" { system { "osc", Osc }, system { "d", Decay }, log { "osc.y", period = 1 } }
EOF
reject_everywhere "spec\.lua:8:44: derivatives of leaf \"Decay\" uses 'vdot', but the leaf has no continuous state v"
hdone

hcase c_injection.derivative_parts_correct_model
# the same model without the stray write: y = cos(t), cos(1) = 0.5403023058681398
sed_spec=$(cat <<'EOF'
local Osc = leaf "Osc" {
  continuous_state { q = 1, v = 1, q0 = { 1 } },
  derivatives { calc = [[ qdot[0] = v[0]; vdot[0] = -q[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "q" }, calc = [[ y[0] = q[0]; ]] },
}
local Decay = leaf "Decay" {
  continuous_state { z = 1, z0 = { 1 } },
  derivatives { calc = [[ zdot[0] = -z[0]; ]] },
}
return diagram "top" { system { "osc", Osc }, system { "d", Decay }, log { "osc.y", period = 1 } }
EOF
)
printf '%s\n' "$sed_spec" >"$T/spec.lua"
hrun -- "$DIAGC" run "$T/spec.lua" --until 1 --accuracy 1e-10
expect_exit 0
y1=$(printf '%s\n' "$out" | awk -F, '$1 == 1 { print $2 }')
check "cos(1) = 0.5403023058681398 within 1e-7, got '$y1'" \
  awk -v y="$y1" 'BEGIN { d = y - 0.5403023058681398; exit !(y != "" && d < 1e-7 && d > -1e-7) }'
hdone

hcase c_injection.event_writes_absent_q
cat >"$T/spec.lua" <<'EOF'
local Z = leaf "Z" {
  continuous_state { z = 1 },
  derivatives { calc = [[ zdot[0] = 1.0; ]] },
  periodic_unrestricted_update { "reset", period = 1, calc = [[ z_next[0] = 0.0; q_next[0] = 5.0; ]] },
}
return diagram "top" { system { "z", Z } }
EOF
reject_everywhere "spec\.lua:4:.*event 'reset' of leaf \"Z\" uses 'q_next', but the leaf has no continuous state q"
hdone

hcase c_injection.accepted_code_strict_compiles
# conditionals, macros, local structs and digraph-free brackets that diagc
# accepts compile under gcc and clang -std=c99 -pedantic as well
leaf_spec 'struct pair { double a, b; } p = { 1.0, 2.0 }; y[0] = TWICE(p.a) + p.b * t;' '#include <math.h>
#include <stdint.h>
#ifndef TWICE
#define TWICE(x) (2.0 * (x))
#endif
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define C99_OK 1
#else
#define C99_OK 0
#endif'
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 0
strict_compile
hrun -- "$DIAGC" run "$T/spec.lua" --until 1
expect_exit 0
expect_stdout_match '^t,a\.y
0,2
1,4$'
hdone

hcase c_injection.calc_nul_byte
# tcc stops reading at a NUL, gcc reads on: the compilers would see
# different code
cat >"$T/spec.lua" <<'EOF2'
local A = leaf "A" {
  output_port { "y", size = 1, prerequisites = { "time" }, calc = "y[0] = t;\0 y[0] = 2.0;" },
}
return diagram "top" { system { "a", A }, log { "a.y", period = 1 } }
EOF2
reject_everywhere "spec\.lua:2:.*control character \\\\000 in C code"
hdone

hcase c_injection.calc_trailing_backslash
# a backslash at the very end would splice the generated line after the body
cat >"$T/spec.lua" <<'EOF2'
local A = leaf "A" {
  output_port { "y", size = 1, prerequisites = { "time" }, calc = "y[0] = t; // note \\" },
}
return diagram "top" { system { "a", A }, log { "a.y", period = 1 } }
EOF2
reject_everywhere "spec\.lua:2:.*a backslash at the end of a line ends the code"
hdone

hcase c_injection.calc_backslash_blank_newline
# gcc splices a backslash followed by blanks (continuing the // comment over
# the next statement), tcc does not
leaf_spec 'y[0] = t; // note \  
y[0] = 2.0 * t;'
reject_everywhere "spec\.lua:3:.*a backslash at the end of a line followed by blanks"
hdone

hcase c_injection.unused_static_helper
# tcc accepts it; gcc -Wall -Werror does not: every command checks the
# generated C with the system compiler (gcc, a test dependency) as well
leaf_spec 'y[0] = t;' 'static double helper(double x) { return x; }'
reject_everywhere "spec\.lua:3:[0-9]+: C error in a c_preamble: .*helper.*(defined but not used|unused function)"
hdone

hcase c_injection.unused_local_variable
leaf_spec 'double forgotten = 2.0 * t; y[0] = t;'
reject_everywhere "spec\.lua:3:[0-9]+: C error in a calc body: unused variable .forgotten."
hdone

hcase c_injection.check_cc_none_documented_escape
# DIAGC_CHECK_CC=none leaves tcc's rule alone (documented); tcc still
# rejects what it can see
leaf_spec 'y[0] = t;' 'static double helper(double x) { return fabs(x); }'
hrun -- env DIAGC_CHECK_CC=none "$DIAGC" run "$T/spec.lua" --until 1
expect_exit 2
expect_error "spec\.lua:3: C error in a c_preamble: implicit declaration of function 'fabs'"
hdone

# a check compiler that is named but cannot be found (here: a command with
# arguments) is an error, never a check turned off in silence
for cc in "gcc -O2" "no-such-cc-diagc"; do
  hcase "c_injection.check_cc_not_found.${cc%% *}"
  leaf_spec 'y[0] = t;' ''
  hrun -- env DIAGC_CHECK_CC="$cc" "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2
  expect_error "DIAGC_CHECK_CC names '$cc', which is not a command on PATH .*or none to skip the C check"
  expect_absent "$T/out.c" "$T/out.h"
  hdone
done

hcase c_injection.preamble_defines_header_guard
# #define then #undef of the header's guard would let the header be
# included twice
leaf_spec 'y[0] = t;' '#define TOP_MODEL_H 1'
reject_everywhere "spec\.lua:3:1: .*#define TOP_MODEL_H: names starting with 'TOP_' belong to the generated header"
hdone

hcase c_injection.preamble_redefines_library_macro
leaf_spec 'y[0] = t;' '#define NAN 0.0'
reject_everywhere "spec\.lua:3:1: .*#define NAN: the name is a compiler keyword or a macro of the C library"
hdone
