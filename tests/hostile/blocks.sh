# tests/hostile/blocks.sh: the standard blocks (docs/library.md, "Blocks")
# given settings they cannot take.  Each is one line at the spec's line
# that made the block, exit 2, nothing written, in bounded time.

H_OK='return diagram "d" { system { "c", leaf "C" { discrete_state { "x", default = { 0 } } } } }'

# hblock NAME LUA ERE
hblock() {
  hcase "blocks.$1"
  printf '%s\n%s\n' "$2" "$H_OK" >"$T/spec.lua"
  hrun --timeout 30 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2
  expect_error "$3"
  expect_absent "$T/out.c" "$T/out.h"
  hdone
}

hblock not_proper 'local b = blocks.transfer_function { num = { 1, 0, 0 }, den = { 1, 1 } }' \
  'spec\.lua:1: blocks\.transfer_function: num has degree 2 above den.s 1: the transfer function is not proper'
hblock zero_den 'local b = blocks.transfer_function { num = { 1 }, den = { 0, 0 } }' \
  'spec\.lua:1: blocks\.transfer_function: den is zero'
hblock nan_coefficient 'local b = blocks.transfer_function { num = { 0/0 }, den = { 1, 1 } }' \
  'spec\.lua:1: blocks\.transfer_function: num\[1\] must be a finite number'
hblock gain_size 'local b = blocks.gain { k = { { 1, 2, 3 }, { 4, 5, 6 } }, size = 2 }' \
  'spec\.lua:1: blocks\.gain: k has 3 columns but size is 2'
hblock gain_ragged 'local b = blocks.gain { k = { { 1, 2 }, { 4 } } }' \
  'spec\.lua:1: blocks\.gain: k must be a matrix: row 2 has 1 elements, row 1 has 2'
hblock saturation_order 'local b = blocks.saturation { lower = 1, upper = -1 }' \
  'spec\.lua:1: blocks\.saturation: lower\[1\] = 1 is above upper\[1\] = -1'
hblock saturation_width 'local b = blocks.saturation { lower = { 0, 0 }, upper = 1 }' \
  'spec\.lua:1: blocks\.saturation: lower must be 1 number'
hblock unknown_setting 'local b = blocks.low_pass { tau = 1, gain = 2 }' \
  "spec\\.lua:1: blocks\\.low_pass: unknown setting 'gain' \\(settings: k, tau\\)"
hblock low_pass_tau 'local b = blocks.low_pass { tau = 0 }' 'spec\.lua:1: blocks\.low_pass: tau must be positive, got 0'
hblock sum_signs 'local b = blocks.sum { signs = "+*" }' 'spec\.lua:1: blocks\.sum: signs must be a string of \+ and -'
hblock state_space_sizes 'local b = blocks.state_space { A = { { 0, 1 }, { 0, 0 } }, B = { { 1 } }, C = { { 1, 0 } } }' \
  "spec\\.lua:1: blocks\\.state_space: B must have 2 rows \\(A's\\), has 1"
hblock size_not_whole 'local b = blocks.integrator { size = 1.5 }' \
  'spec\.lua:1: blocks\.integrator: size must be a whole number from 1 to 10000, got 1\.5'
hblock unknown_block 'local b = blocks.pid { kp = 1 }' "spec\\.lua:1: blocks has no 'pid'; it has gain, integrator"
hblock not_a_table 'local b = blocks.gain(2)' 'spec\.lua:1: blocks\.gain expects a table of settings'
