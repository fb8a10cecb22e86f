# tests/hostile/control.sh: control design in a spec (docs/library.md):
# matrices that are not, problems without a stabilizing solution, sizes
# past the limit.  Each is one line at the spec's line, exit 2, nothing
# written, in bounded time.

H_OK='return diagram "d" { system { "c", leaf "C" { discrete_state { "x", default = { 0 } } } } }'

# hcontrol NAME LUA ERE
hcontrol() {
  hcase "control.$1"
  printf '%s\n%s\n' "$2" "$H_OK" >"$T/spec.lua"
  hrun --timeout 30 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2
  expect_error "$3"
  expect_absent "$T/out.c" "$T/out.h"
  hdone
}

hcontrol unstabilizable 'local K = control.lqr({ { 1, 0 }, { 0, 2 } }, { { 1 }, { 0 } }, { { 1, 0 }, { 0, 1 } }, { { 1 } })' \
  'spec\.lua:1: control\.lqr: no stabilizing solution'
hcontrol dlqr_unstabilizable 'local K = control.dlqr({ { 1.5 } }, { { 0 } }, { { 1 } }, { { 1 } })' \
  'spec\.lua:1: control\.dlqr: no stabilizing solution'
hcontrol not_a_matrix 'local K = control.lqr("A", { { 1 } }, { { 1 } }, { { 1 } })' \
  'spec\.lua:1: control\.lqr: A must be a matrix'
hcontrol ragged 'local K = control.lqr({ { 1, 2 }, { 3 } }, { { 1 }, { 1 } }, { { 1 } }, { { 1 } })' \
  'spec\.lua:1: control\.lqr: A must be a matrix: row 2 has 1 elements'
hcontrol nan 'local K = control.dlqr({ { 0/0 } }, { { 1 } }, { { 1 } }, { { 1 } })' \
  'spec\.lua:1: control\.dlqr: A\[1\]\[1\] must be a finite number'
hcontrol r_singular 'local K = control.lqr({ { 1 } }, { { 1 } }, { { 1 } }, { { 0 } })' \
  'spec\.lua:1: control\.lqr: R must be positive definite'
hcontrol too_large 'local A = {} for i = 1, 61 do A[i] = {} for j = 1, 61 do A[i][j] = 0 end end
local K = control.lqr(A, {}, {}, {})' \
  'spec\.lua:2: control\.lqr: A has 61 states; the Riccati solver takes at most 60'
hcontrol unknown 'local K = control.lqe(1)' "spec\\.lua:1: control has no 'lqe'"
hcontrol read_only 'control.lqr = nil' 'spec\.lua:1: control is read-only'
hcontrol kalman_undetectable 'local L = control.kalman({ { 1, 0 }, { 0, 2 } }, { { 1, 0 } }, { { 1, 0 }, { 0, 1 } }, { { 1 } })' \
  'spec\.lua:1: control\.kalman: .*not detectable'
