# tests/hostile/trim.sh: `diagc trim` with bad flags and points that do
# not exist (docs/jacobians.md, "Trim"): one line naming the flag, the name
# or the equation at fault, exit 2, nothing written (-o), bounded time.

H_MOTOR='local M = leaf "Motor" {
  continuous_state { z = { "i", "w" }, z0 = { 0, 0 } },
  input_port { "vin", size = 1 },
  derivatives { prerequisites = { "z", "vin" }, calc = [[
    double va = fmin(fmax(vin[0], -12.0), 12.0);
    zdot[0] = (va - 1.2 * z[0] - 0.02 * z[1]) / 0.05;
    zdot[1] = (0.02 * z[0] - 2e-5 * z[1]) / 1e-4; ]] },
  output_port { "speed", size = 1, prerequisites = { "z" }, calc = [[ speed[0] = z[1]; ]] },
}
return diagram "motor" { system { "m", M }, export_input { "m.vin", as = "volts" },
  export_output { "m.speed", as = "speed" } }'

# htrim NAME ARGS...: diagc trim on the motor with -o
htrim() {
  local name=$1
  shift
  hcase "trim.$name"
  printf '%s\n' "$H_MOTOR" >"$T/motor.lua"
  hrun -- "$DIAGC" trim "$T/motor.lua" -o "$T/out.txt" "$@"
}
expect_refused() {
  expect_exit 2
  expect_error "$1"
  expect_absent "$T/out.txt"
  expect_within 20
}

htrim unknown_flag --fre volts
expect_refused "^diagc: diagc trim: unknown option '--fre'; did you mean '--free'\?"
hdone

htrim free_unknown_name --free volt
expect_refused "^diagc: diagc trim: --free: no input or state named 'volt'; did you mean 'volts'\?"
hdone

htrim free_empty_name --free volts,
expect_refused "^diagc: diagc trim: --free 'volts,': an empty name"
hdone

htrim fix_an_input --fix volts
expect_refused "^diagc: diagc trim: --fix: no state named 'volts'"
hdone

htrim target_without_value --target speed
expect_refused "^diagc: diagc trim: --target expects NAME=VALUE"
hdone

htrim target_nan --target speed=nan
expect_refused "^diagc: diagc trim: --target speed: value 1 'nan' is not a finite decimal number$"
hdone

htrim target_unknown --target sped=3
expect_refused "^diagc: diagc trim: --target: no output or state named 'sped'; did you mean 'speed'\?"
hdone

htrim target_size --target speed=1,2
expect_refused "^diagc: diagc trim: --target speed: it has 1 value, got 2$"
hdone

htrim free_and_fixed --fix m.i --free m.i
expect_refused "^diagc: diagc trim: --free: 'm.i' is also held"
hdone

htrim deriv_and_free_deriv --deriv m.i=1 --free-deriv m.i
expect_refused "^diagc: diagc trim: --deriv: the derivative of 'm.i' is also left free"
hdone

htrim nothing_free --fix m.i,m.w
expect_refused "^diagc: diagc trim: no unknown is free"
hdone

htrim tolerance_negative --tolerance -1
expect_refused "^diagc: diagc trim: invalid --tolerance '-1': expected a finite decimal number > 0$"
hdone

htrim max_iterations_zero --max-iterations 0
expect_refused "^diagc: diagc trim: invalid --max-iterations '0': expected a whole number in \[1, 10000\]$"
hdone

htrim jacobian_unknown --jacobian exact
expect_refused "^diagc: diagc trim: --jacobian: unknown value 'exact'"
hdone

htrim two_specs extra.lua
expect_refused "^diagc: diagc trim: expected one spec file"
hdone

# the highest speed is 12 * 0.02 / (1.2 * 2e-5 + 0.02 * 0.02) = 566 rad/s
htrim beyond_the_voltage_limit --free volts --target speed=900 --input volts=5
expect_refused "^diagc: diagc trim: (the trim Jacobian is singular|no trim point)"
hdone

htrim singular --free volts --fix m.w --free-deriv m.w --target speed=10
expect_refused "^diagc: diagc trim: the trim Jacobian is singular at iteration 0"
hdone
