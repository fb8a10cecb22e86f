# tests/hostile/library.sh: the control library in a spec (docs/library.md):
# blocks given settings they cannot take, control design given matrices
# that are not, problems without a stabilizing solution, sizes past the
# limit.  Each is one line at the spec's line that made the call, exit 2,
# nothing written, in bounded time.

H_OK='return diagram "d" { system { "c", leaf "C" { discrete_state { "x", default = { 0 } } } } }'

# hlib NAME LUA ERE
hlib() {
  hcase "$1"
  printf '%s\n%s\n' "$2" "$H_OK" >"$T/spec.lua"
  hrun --timeout 30 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
  expect_exit 2
  expect_error "$3"
  expect_absent "$T/out.c" "$T/out.h"
  hdone
}

# blocks
hlib blocks.not_proper 'local b = blocks.transfer_function { num = { 1, 0, 0 }, den = { 1, 1 } }' \
  'spec\.lua:1: blocks\.transfer_function: num has degree 2 above den.s 1: the transfer function is not proper'
hlib blocks.zero_den 'local b = blocks.transfer_function { num = { 1 }, den = { 0, 0 } }' \
  'spec\.lua:1: blocks\.transfer_function: den is zero'
hlib blocks.nan_coefficient 'local b = blocks.transfer_function { num = { 0/0 }, den = { 1, 1 } }' \
  'spec\.lua:1: blocks\.transfer_function: num\[1\] must be a finite number'
hlib blocks.gain_size 'local b = blocks.gain { k = { { 1, 2, 3 }, { 4, 5, 6 } }, size = 2 }' \
  'spec\.lua:1: blocks\.gain: k has 3 columns but size is 2'
hlib blocks.gain_ragged 'local b = blocks.gain { k = { { 1, 2 }, { 4 } } }' \
  'spec\.lua:1: blocks\.gain: k must be a matrix: row 2 has 1 elements, row 1 has 2'
hlib blocks.saturation_order 'local b = blocks.saturation { lower = 1, upper = -1 }' \
  'spec\.lua:1: blocks\.saturation: lower\[1\] = 1 is above upper\[1\] = -1'
hlib blocks.saturation_width 'local b = blocks.saturation { lower = { 0, 0 }, upper = 1 }' \
  'spec\.lua:1: blocks\.saturation: lower must be 1 number'
hlib blocks.unknown_setting 'local b = blocks.low_pass { tau = 1, gain = 2 }' \
  "spec\\.lua:1: blocks\\.low_pass: unknown setting 'gain' \\(settings: k, tau\\)"
hlib blocks.low_pass_tau 'local b = blocks.low_pass { tau = 0 }' 'spec\.lua:1: blocks\.low_pass: tau must be positive, got 0'
hlib blocks.sum_signs 'local b = blocks.sum { signs = "+*" }' 'spec\.lua:1: blocks\.sum: signs must be a string of \+ and -'
hlib blocks.state_space_sizes 'local b = blocks.state_space { A = { { 0, 1 }, { 0, 0 } }, B = { { 1 } }, C = { { 1, 0 } } }' \
  "spec\\.lua:1: blocks\\.state_space: B must have 2 rows \\(A's\\), has 1"
hlib blocks.size_not_whole 'local b = blocks.integrator { size = 1.5 }' \
  'spec\.lua:1: blocks\.integrator: size must be a whole number from 1 to 10000, got 1\.5'
hlib blocks.unknown_block 'local b = blocks.fuzzy { kp = 1 }' "spec\\.lua:1: blocks has no 'fuzzy'; it has .*gain, .*integrator"
hlib blocks.not_a_table 'local b = blocks.gain(2)' 'spec\.lua:1: blocks\.gain expects a table of settings'

# control design
hlib control.unstabilizable 'local K = control.lqr({ { 1, 0 }, { 0, 2 } }, { { 1 }, { 0 } }, { { 1, 0 }, { 0, 1 } }, { { 1 } })' \
  'spec\.lua:1: control\.lqr: no stabilizing solution'
hlib control.dlqr_unstabilizable 'local K = control.dlqr({ { 1.5 } }, { { 0 } }, { { 1 } }, { { 1 } })' \
  'spec\.lua:1: control\.dlqr: no stabilizing solution'
hlib control.not_a_matrix 'local K = control.lqr("A", { { 1 } }, { { 1 } }, { { 1 } })' \
  'spec\.lua:1: control\.lqr: A must be a matrix'
hlib control.ragged 'local K = control.lqr({ { 1, 2 }, { 3 } }, { { 1 }, { 1 } }, { { 1 } }, { { 1 } })' \
  'spec\.lua:1: control\.lqr: A must be a matrix: row 2 has 1 elements'
hlib control.nan 'local K = control.dlqr({ { 0/0 } }, { { 1 } }, { { 1 } }, { { 1 } })' \
  'spec\.lua:1: control\.dlqr: A\[1\]\[1\] must be a finite number'
hlib control.r_singular 'local K = control.lqr({ { 1 } }, { { 1 } }, { { 1 } }, { { 0 } })' \
  'spec\.lua:1: control\.lqr: R must be positive definite'
hlib control.too_large 'local A = {} for i = 1, 61 do A[i] = {} for j = 1, 61 do A[i][j] = 0 end end
local K = control.lqr(A, {}, {}, {})' \
  'spec\.lua:2: control\.lqr: A has 61 states; the Riccati solver takes at most 60'
hlib control.unknown 'local K = control.lqe(1)' "spec\\.lua:1: control has no 'lqe'"
hlib control.read_only 'control.lqr = nil' 'spec\.lua:1: control is read-only'
hlib control.kalman_undetectable 'local L = control.kalman({ { 1, 0 }, { 0, 2 } }, { { 1, 0 } }, { { 1, 0 }, { 0, 1 } }, { { 1 } })' \
  'spec\.lua:1: control\.kalman: .*not detectable'
hlib blocks.period_zero 'local b = blocks.zero_order_hold { period = 0 }' \
  'spec\.lua:1: blocks\.zero_order_hold: period must be positive, got 0'
hlib blocks.offset_negative 'local b = blocks.unit_delay { period = 0.1, offset = -1 }' \
  'spec\.lua:1: blocks\.unit_delay: offset must be at least 0, got -1'
hlib blocks.step_time_nan 'local b = blocks.step { time = 0/0 }' 'spec\.lua:1: blocks\.step: time must be a finite number'
hlib blocks.lookup_unsorted 'local b = blocks.lookup { x = { 0, 2, 1 }, y = { 0, 1, 2 } }' \
  'spec\.lua:1: blocks\.lookup: the breakpoints must increase: x\[3\] = 1 is not above x\[2\] = 2'
hlib blocks.lookup_sizes 'local b = blocks.lookup { x = { 0, 1, 2 }, y = { 0, 1 } }' \
  'spec\.lua:1: blocks\.lookup: y must be 3 numbers'
hlib blocks.selector_past_width 'local b = blocks.selector { width = 3, from = 3, size = 2 }' \
  'spec\.lua:1: blocks\.selector: elements 3 to 4 are past the input.s width 3'
hlib blocks.mux_sizes 'local b = blocks.mux { sizes = {} }' 'spec\.lua:1: blocks\.mux needs sizes'
hlib blocks.pid_form 'local b = blocks.pid { kp = 1, form = "series" }' 'spec\.lua:1: blocks\.pid: form must be "parallel" or "ideal"'
hlib blocks.pid_anti_windup_no_limits 'local b = blocks.pid { kp = 1, ki = 1, anti_windup = "clamp" }' \
  'spec\.lua:1: blocks\.pid: anti_windup needs output limits'
hlib blocks.pid_filter_unstable 'local b = blocks.pid { kp = 1, kd = 1, n = 300, period = 0.01 }' \
  'spec\.lua:1: blocks\.pid: period \* n = 3: the discrete derivative filter needs period \* n < 2'
hlib blocks.pid_ideal_ki 'local b = blocks.pid { form = "ideal", kp = 1, ki = 1 }' \
  'spec\.lua:1: blocks\.pid: the ideal form takes kp, ti and td'
hlib blocks.pid_limits 'local b = blocks.pid { kp = 1, lower = 1, upper = 0 }' 'spec\.lua:1: blocks\.pid: lower = 1 is above upper = 0'

# the rest of the block library (issue #28)
hcase blocks.gain_fed_wrong_size
printf '%s\n' 'local g = blocks.gain { k = { { 1, 2, 3 }, { 4, 5, 6 } } }' 'return diagram "d" {' \
  '  system { "c", blocks.constant { value = { 1, 2 } } }, system { "g", g },' '  connect { "c.y", "g.u" },' '}' >"$T/spec.lua"
hrun --timeout 30 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "spec\\.lua:4: connect: 'c\\.y' has size 2 but 'g\\.u' has size 3"
expect_absent "$T/out.c" "$T/out.h"
hdone
hlib blocks.discrete_tf_not_causal 'local b = blocks.discrete_transfer_function { num = { 1 }, den = { 0, 1 }, period = 0.1 }' \
  'spec\.lua:1: blocks\.discrete_transfer_function: den\[1\] \(the z\^0 coefficient\) must not be 0'
hlib blocks.lookup2d_unsorted 'local b = blocks.lookup2d { x = { 0, 1 }, y = { 0, 2, 1 }, table = { { 0, 0, 0 }, { 1, 1, 1 } } }' \
  'spec\.lua:1: blocks\.lookup2d: the breakpoints must increase: y\[3\] = 1 is not above y\[2\] = 2'
hlib blocks.lookup2d_table_size 'local b = blocks.lookup2d { x = { 0, 1 }, y = { 0, 1 }, table = { { 0, 0, 0 }, { 1, 1, 1 } } }' \
  'spec\.lua:1: blocks\.lookup2d: table must be 2 x 2'
hlib blocks.noise_no_seed 'local b = blocks.noise { period = 0.01 }' \
  'spec\.lua:1: blocks\.noise needs seed, a whole number from 1 to 4294944442'
hlib blocks.noise_seed_fraction 'local b = blocks.noise { period = 0.01, seed = 1.5 }' \
  'spec\.lua:1: blocks\.noise: seed must be a whole number from 1 to 4294944442, got 1\.5'
hlib blocks.relay_band 'local b = blocks.relay { on = 0, off = 1 }' \
  'spec\.lua:1: blocks\.relay: off = 1 must be below on = 0'
hlib blocks.pulse_duty 'local b = blocks.pulse { period = 1, duty = 1 }' \
  'spec\.lua:1: blocks\.pulse: duty must be between 0 and 1'
hlib blocks.delay_order 'local b = blocks.transport_delay { delay = 1, order = 11 }' \
  'spec\.lua:1: blocks\.transport_delay: order must be at most 10, got 11'
hlib blocks.integrator_x0_outside 'local b = blocks.integrator { x0 = 2, upper = 1 }' \
  'spec\.lua:1: blocks\.integrator: x0\[1\] = 2 is outside \[lower, upper\]'
hlib blocks.lqr_unstabilizable 'local b = blocks.lqr { A = { { 1, 0 }, { 0, 2 } }, B = { { 1 }, { 0 } }, Q = { { 1, 0 }, { 0, 1 } }, R = { { 1 } } }' \
  'spec\.lua:1: blocks\.lqr: no stabilizing solution'
hlib blocks.observer_unobservable 'local b = blocks.observer { A = { { 1, 0 }, { 0, 2 } }, B = { { 1 }, { 1 } }, C = { { 1, 0 } }, poles = { -1, -2 } }' \
  'spec\.lua:1: blocks\.observer: \(A, C\) is not observable'
hlib blocks.kalman_sizes 'local b = blocks.kalman { A = { { 1 } }, B = { { 1 } }, C = { { 1, 0 } }, W = { { 1 } }, V = { { 1 } } }' \
  "spec\\.lua:1: blocks\\.kalman: C must have 1 columns \\(A's\\), has 2"
hlib blocks.time_table_missing 'local b = blocks.time_table { file = "nowhere.csv" }' \
  "spec\\.lua:1: blocks\\.time_table: cannot read '.*nowhere\\.csv'"

# a CSV row that is not numbers: the CSV's line, nothing written
hcase blocks.time_table_bad_row
printf 'time,y\n0,1\n1,two\n' >"$T/data.csv"
printf '%s\n' 'return diagram "d" { system { "t", blocks.time_table { file = "data.csv" } } }' >"$T/spec.lua"
hrun --timeout 30 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "data\\.csv:3: blocks\\.time_table: field 2 \\('two'\\) is not a finite number"
expect_absent "$T/out.c" "$T/out.h"
hdone
hcase blocks.time_table_unsorted
printf '0,1\n2,1\n1,1\n' >"$T/data.csv"
printf '%s\n' 'return diagram "d" { system { "t", blocks.time_table { file = "data.csv" } } }' >"$T/spec.lua"
hrun --timeout 30 -- "$DIAGC" "$T/spec.lua" -o "$T/out.c"
expect_exit 2
expect_error "data\\.csv:3: blocks\\.time_table: the times must increase: 1 is not after 2 \\(line 2\\)"
expect_absent "$T/out.c" "$T/out.h"
hdone

# an LQR designed from a world's linearization (blocks.lqr { plant = W },
# control.linearize_world): a plant that is not a world, a world a linear
# model cannot hold or drive, an operating point of the wrong size or not
# an equilibrium; each at the line that asked (line 2, the world on line 1)
H_CART='local W = world "cp" { body { "cart", mass = 1, inertia = { 1, 1, 1 }, joint = { "prismatic", axis = { 1, 0, 0 }, actuated = true } }, body { "pole", mass = 0.1, com = { 0, 0, 0.5 }, inertia = { 0.01, 0.01, 0.01 }, joint = { "revolute", parent = "cart", axis = { 0, 1, 0 } } } }'
H_QR='Q = { { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 }, { 0, 0, 0, 1 } }, R = { { 1 } }'
hlib plant.not_a_world "$H_CART
local b = blocks.lqr { plant = 1, $H_QR }" \
  'spec\.lua:2: blocks\.lqr: plant must be a world made by world "name" \{ \.\.\. \} in this spec'
hlib plant.with_A "$H_CART
local b = blocks.lqr { plant = W, A = { { 1 } }, $H_QR }" \
  'spec\.lua:2: blocks\.lqr: A and plant exclude each other'
hlib plant.at_size "$H_CART
local b = blocks.lqr { plant = W, at = { q = { 0 } }, $H_QR }" \
  'spec\.lua:2: blocks\.lqr: at\.q must be 2 numbers'
hlib plant.at_key "$H_CART
local b = blocks.lqr { plant = W, at = { x = { 0 } }, $H_QR }" \
  "spec\\.lua:2: blocks\\.lqr: at: unknown key 'x' \\(q, v, effort\\)"
hlib plant.at_nan "$H_CART
local A, B = control.linearize_world(W, { v = { 0, 0/0 } })" \
  'spec\.lua:2: control\.linearize_world: at\.v\[2\] must be a finite number'
hlib plant.not_equilibrium "$H_CART
local b = blocks.lqr { plant = W, at = { q = { 0, 0.3 } }, $H_QR }" \
  'spec\.lua:2: blocks\.lqr: the operating point is not an equilibrium of world "cp": one step moves pole\.v by [0-9.e-]+; give the effort that holds it'
hlib plant.q_size "$H_CART
local b = blocks.lqr { plant = W, Q = { { 1 } }, R = { { 1 } } }" \
  'spec\.lua:2: blocks\.lqr: Q must have 4 rows, has 1'
hlib plant.free_joint 'local W = world "b" { body { "ball", mass = 1, inertia = { 1, 1, 1 }, joint = { "free" } } }
local A, B = control.linearize_world(W)' \
  'spec\.lua:2: control\.linearize_world: world "b" has a ball or free joint \(7 coordinates, 6 rates\)'
hlib plant.unactuated 'local W = world "p" { body { "pole", mass = 1, inertia = { 1, 1, 1 }, joint = { "revolute", axis = { 0, 1, 0 } } } }
local A, B = control.linearize_world(W)' \
  'spec\.lua:2: control\.linearize_world: world "p" has no actuated joint'
hlib plant.at_without_plant 'local b = blocks.lqr { A = { { 1 } }, B = { { 1 } }, Q = { { 1 } }, R = { { 1 } }, at = { q = { 0 } } }' \
  'spec\.lua:1: blocks\.lqr: at is the operating point of a plant; give plant = a world'
hlib plant.with_period "$H_CART
local b = blocks.lqr { plant = W, period = 0.01, $H_QR }" \
  'spec\.lua:2: blocks\.lqr: period and plant exclude each other'
