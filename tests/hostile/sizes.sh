# tests/hostile/sizes.sh: sizes and shapes the spec loader must refuse cleanly.

hcase sizes.empty_spec
: >"$T/spec.lua"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error 'spec\.lua:1: the spec must return a diagram'
expect_absent "$T/out.c" "$T/out.h"
hdone
