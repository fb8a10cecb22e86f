# tests/hostile/c_directives.sh: the c_preamble directive rule
# (docs/spec-language.md, "Directives and macro scope") holds for every
# spelling a C99 preprocessor reads the same way: comments (one space),
# line splices, blanks and tabs around and after the '#'.  An allowed
# directive is accepted in every form and its generated C compiles under
# gcc, clang and tcc -std=c99 -pedantic; a forbidden one is refused in
# every form, however a comment or a splice hides it.

# dir_spec PREAMBLE CALC: $T/spec.lua, one leaf with that preamble whose
# output y (logged at t = 0, 1) is computed by CALC
dir_spec() {
  {
    echo 'local A = leaf "A" {'
    printf '  c_preamble [==[\n%s\n]==],\n' "$1"
    printf '  output_port { "y", size = 1, prerequisites = { "time" },\n    calc = [==[ %s ]==] },\n' "$2"
    echo '}'
    echo 'return diagram "top" { system { "a", A }, log { "a.y", period = 1 } }'
  } >"$T/spec.lua"
}

# accept NAME PREAMBLE CALC Y1: -o writes C that gcc, clang and tcc compile
# at the documented flags, and `run` gives y(1) = Y1
accept() {
  hcase "c_directives.allowed_$1"
  dir_spec "$2" "$3"
  hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 0
  [ "$rc" = 0 ] || { hdone; return; }
  local cc
  for cc in gcc clang tcc; do
    command -v $cc >/dev/null || continue
    hrun -- $cc -std=c99 -Wall -Wextra -Werror -pedantic -I"$ROOT/runtime/include" -c "$T/out.c" -o "$T/out.o"
    [ "$rc" = 0 ] || _h_bad "$cc does not compile the generated C: $(printf '%s' "$err" | head -c 300)"
  done
  hrun -- "$DIAGC" run "$T/spec.lua" --until 1
  expect_exit 0
  expect_stdout_match "^t,a\.y
0,[-0-9.e]+
1,$4\$"
  hdone
}

# refuse NAME PREAMBLE ERE: -o and run both refuse with one line (ERE),
# write nothing and read no other file
refuse() {
  hcase "c_directives.forbidden_$1"
  dir_spec "$2" 'y[0] = t;'
  hrun --timeout 10 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2
  expect_error "$3"
  expect_absent "$T/out.c" "$T/out.h"
  hrun --timeout 10 -- "$DIAGC" run "$T/spec.lua" --until 1
  expect_exit 2
  expect_error "$3"
  hdone
}

# Allowed forms: y(1) = fabs(-1) = 1 needs <math.h>, K = 2 needs the define.
accept include_comment_after '#include <math.h>   /* why */' 'y[0] = fabs(-t);' 1
accept include_line_comment '#include <math.h> // why' 'y[0] = fabs(-t);' 1
accept include_two_comments '#include <math.h> /* a */ /* b */' 'y[0] = fabs(-t);' 1
accept include_comment_spans_lines '#include <math.h> /* a
   b */' 'y[0] = fabs(-t);' 1
accept include_no_space '#include<math.h>' 'y[0] = fabs(-t);' 1
accept include_space_after_hash '# include <math.h>' 'y[0] = fabs(-t);' 1
accept include_tabs '	#	include	<math.h>	' 'y[0] = fabs(-t);' 1
accept include_comment_after_hash '#/**/include <math.h>' 'y[0] = fabs(-t);' 1
accept include_comment_before_header '#include /* the header */ <math.h>' 'y[0] = fabs(-t);' 1
accept include_splice_after_hash '#\
include <math.h>' 'y[0] = fabs(-t);' 1
accept include_after_comment '/* first */ #include <math.h>' 'y[0] = fabs(-t);' 1
accept define_spaces '#  define K 2.0' 'y[0] = K * t;' 2
accept define_comment_after_name '#define/**/K 2.0' 'y[0] = K * t;' 2
accept define_comment_after_hash '#/* c */define K /* two */ 2.0 // note' 'y[0] = K * t;' 2
accept define_splice '#define K \
  2.0' 'y[0] = K * t;' 2
accept define_comment_spans_lines '#define K 2.0 /* a
   b */
#undef/**/K
#define K 3.0' 'y[0] = K * t;' 3
accept conditionals_with_comments '#/**/ifndef K /* c */
# define K 2.0
#/**/else // c
# define K 5.0
#  endif /* done */' 'y[0] = K * t;' 2
accept null_directive '#
# /* nothing */
#define K 2.0' 'y[0] = K * t;' 2

# Forbidden forms, hidden behind comments and splices.
refuse pragma_comment_after_hash '#/**/pragma once' "spec\.lua:3:1: .*directive '#pragma' is not allowed"
refuse pragma_splice_after_hash '#\
pragma once' "spec\.lua:3:1: .*directive '#pragma' is not allowed"
refuse pragma_comment_spans_lines '# /* a
   b */ pragma once' "spec\.lua:3:1: .*directive '#pragma' is not allowed"
refuse pragma_splice_in_name '#pra\
gma once' "spec\.lua:3:5: .*line splice \(backslash-newline\) inside a name"
refuse pragma_after_comment '/* a */ #pragma once' "spec\.lua:3:9: .*directive '#pragma' is not allowed"
refuse line_comment_after_hash '#/**/line 1 "elsewhere.c"' "spec\.lua:3:1: .*directive '#line' is not allowed"
refuse line_marker '# 1 "elsewhere.c"' "spec\.lua:3:1: .*'# 1 \"elsewhere\.c\"' is not a directive"
refuse error_comment_after_hash '#/* c */error stop' "spec\.lua:3:1: .*directive '#error' is not allowed"
refuse include_next_comment '#/**/include_next <math.h>' "spec\.lua:3:1: .*directive '#include_next' is not allowed"
refuse include_file_comment_after_hash '#/**/include "/etc/passwd"' "spec\.lua:3:1: .*#include \"/etc/passwd\" is not a C99 standard header"
refuse include_quoted_standard '#include "math.h"' "spec\.lua:3:1: .*#include \"math\.h\": write #include <math\.h>"
refuse include_comment_in_header_name '#include </*x*/math.h>' "spec\.lua:3:1: .*#include </\*x\*/math\.h> is not a C99 standard header"
refuse include_header_name_ends_in_comment '#include <math.h/*>*/>' "spec\.lua:3:1: .*is not a C99 standard header"
refuse include_extra_tokens '#include <math.h> extra' "spec\.lua:3:1: .*#include <math\.h> extra is not a C99 standard header"
refuse include_macro '#define H <math.h>
#/**/include H' "spec\.lua:4:1: .*#include H is not a C99 standard header"
refuse include_digraph '%:include <math.h>' "spec\.lua:3:1: .*the digraph '%:' for '#'"
refuse define_reserved_after_comment '#define A /**/__attribute__((x))' "spec\.lua:3:1: .*'__attribute__' is reserved"
refuse define_paste_split_by_splice '#define P(x) x #\
# y' "spec\.lua:3:1: .*token pasting"
refuse undef_library_macro_comment '#include <math.h>
#/**/undef NAN' "spec\.lua:4:1: .*#undef NAN: a c_preamble may undefine only macros it defines itself"

# #include "/etc/passwd" behind a comment was read by the compiler before:
# the error names the spec line, never a line of the other file
hcase c_directives.hidden_include_reads_nothing
printf 'MARKER_SECRET;\n' >"$T/secret.h"
dir_spec '#/**/include "secret.h"' 'y[0] = t;'
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "spec\.lua:3:1: .*#include \"secret\.h\" is not a C99 standard header"
check "the other file was not compiled" eval '! printf "%s" "$err" | grep -q secret\\.h:'
hdone
