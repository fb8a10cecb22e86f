# tests/hostile/nonfinite.sh: NaN and infinity outside the continuous state
# (discrete state, state written by updates, logged outputs, parameters,
# next_update_time calcs) stop `diagc run` with one line naming the value,
# its index and the time: exit 2, no row with the bad value logged.
# --no-finite-check turns the checks off (docs/simulator.md).

# a discrete controller whose second element becomes $1 at t > 0.03
_nf_ctrl() {
  cat >"$T/spec.lua" <<EOF
local Ctrl = leaf "Ctrl" {
  discrete_state { "x", default = { 1, 2 } },
  parameter { "k", default = { 0.0 } },
  periodic_discrete_update { "update", period = 0.02, prerequisites = { "x", "k", "time" },
    calc = [[ x_next[0] = x[0] + 1.0; x_next[1] = t > 0.03 ? $1 : x[1]; ]] },
  output_port { "y", size = 2, prerequisites = { "x" }, calc = [[ y[0] = x[0]; y[1] = x[1]; ]] },
}
return diagram "nf" { system { "ctrl", Ctrl }, log { "ctrl.y", period = 0.02 } }
EOF
}

hcase nonfinite.discrete_nan
_nf_ctrl 'k[0] / k[0]'
hrun -- "$DIAGC" run "$T/spec.lua" --until 0.1
expect_exit 2
expect_error "simulation failed: non-finite value in discrete state 'ctrl\.x\[1\]' \(xd\[1\]\) = nan at t = 0\.04 \(after periodic discrete update 'ctrl\.update'\)$"
check "a row with nan was logged" test -z "$(printf '%s' "$out" | grep -i nan)"
hdone

hcase nonfinite.discrete_inf
_nf_ctrl '-1.0 / k[0]'
hrun -- "$DIAGC" run "$T/spec.lua" --until 0.1
expect_exit 2
expect_error "discrete state 'ctrl\.x\[1\]' \(xd\[1\]\) = -inf at t = 0\.04 "
hdone

hcase nonfinite.discrete_check_off
_nf_ctrl 'k[0] / k[0]'
hrun -- "$DIAGC" run "$T/spec.lua" --until 0.1 --no-finite-check
expect_exit 0
expect_stdout_match '0\.1,6,-?nan'
hdone

hcase nonfinite.output_vector_element
cat >"$T/spec.lua" <<'EOF'
local S = leaf "S" {
  continuous_state { z = { "x" }, z0 = { 1 } },
  derivatives { prerequisites = { "z" }, calc = [[ zdot[0] = -z[0]; ]] },
  output_port { "y", size = 3, prerequisites = { "z", "time" },
    calc = [[ y[0] = z[0]; y[1] = 2.0 * z[0]; y[2] = t >= 0.25 ? sqrt(-z[0]) : z[0]; ]] },
}
return diagram "o" { system { "s", S }, log { "s.y", period = 0.125 } }
EOF
hrun -- "$DIAGC" run "$T/spec.lua" --until 1
expect_exit 2
expect_error "non-finite value in logged output 's\.y'\[2\] = nan at t = 0\.25$"
check "the row at 0.25 was logged" test -z "$(printf '%s' "$out" | grep '^0\.25,')"
expect_stdout_match '0\.125,'
hdone

# a finite parameter that overflows in an output
hcase nonfinite.parameter_overflow
cat >"$T/spec.lua" <<'EOF'
local C = leaf "C" {
  discrete_state { "x", default = { 1 } },
  parameter { "k", default = { 1.0 } },
  output_port { "y", size = 1, prerequisites = { "x", "k" }, calc = [[ y[0] = x[0] * k[0] * 10.0; ]] },
}
return diagram "p" { system { "c", C }, log { "c.y", period = 0.5 } }
EOF
hrun -- "$DIAGC" run "$T/spec.lua" -p c.k=1e308
expect_exit 2
expect_error "non-finite value in logged output 'c\.y' = inf at t = 0$"
hdone

# the initial state computed from a parameter by an initialization update
hcase nonfinite.initial_state_from_parameter
cat >"$T/spec.lua" <<'EOF'
local C = leaf "C" {
  discrete_state { "x", default = { 1 } },
  parameter { "x0", default = { 1.0 } },
  initialization_discrete_update { "start", prerequisites = { "x0" },
    calc = [[ x_next[0] = x0[0] * 1e10; ]] },
  output_port { "y", size = 1, prerequisites = { "x" }, calc = [[ y[0] = x[0]; ]] },
}
return diagram "i" { system { "c", C }, log { "c.y", period = 0.5 } }
EOF
hrun -- "$DIAGC" run "$T/spec.lua" -p c.x0=1e300
expect_exit 2
expect_error "non-finite value in discrete state 'c\.x' \(xd\[0\]\) = inf at t = 0 \(after initialization discrete update 'c\.start'\)$"
check "something was logged" test -z "$(printf '%s' "$out" | grep -v '^t,')"
hdone

# an unrestricted update that writes NaN into the continuous state
hcase nonfinite.unrestricted_continuous
cat >"$T/spec.lua" <<'EOF'
local B = leaf "B" {
  continuous_state { z = { "h" }, z0 = { 1 } },
  discrete_state { "n", default = { 0 } },
  derivatives { prerequisites = { "nothing" }, calc = [[ zdot[0] = -1.0; ]] },
  periodic_unrestricted_update { "kick", period = 0.25, prerequisites = { "z", "n" },
    calc = [[ z_next[0] = n[0] >= 2 ? z[0] * NAN : z[0]; n_next[0] = n[0] + 1; ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
}
return diagram "u" { system { "b", B }, log { "b.y", period = 0.25 } }
EOF
hrun -- "$DIAGC" run "$T/spec.lua" --until 1
expect_exit 2
expect_error "non-finite value in continuous state 'b\.h' \(xc\[0\]\) = nan at t = 0\.5 \(after periodic unrestricted update 'b\.kick'\)$"
hdone

# a next_update_time calc that returns NaN
hcase nonfinite.next_update_time_nan
cat >"$T/spec.lua" <<'EOF'
local W = leaf "W" {
  discrete_state { "n", default = { 0 } },
  next_update_time { "wake", prerequisites = { "n" },
    calc = [[ t_next = n[0] < 2 ? n[0] + 1.0 : NAN; ]],
    discrete_update = [[ n_next[0] = n[0] + 1; ]] },
  output_port { "y", size = 1, prerequisites = { "n" }, calc = [[ y[0] = n[0]; ]] },
}
return diagram "w" { system { "w", W }, log { "w.y", period = 0.5 } }
EOF
hrun -- "$DIAGC" run "$T/spec.lua" --until 5
expect_exit 2
expect_error "next_update_time 'w\.wake' returned NaN at t = 2$"
hdone

# a next_update_time calc that never moves forward cannot hang the run
hcase nonfinite.next_update_time_stuck
cat >"$T/spec.lua" <<'EOF'
local W = leaf "W" {
  discrete_state { "n", default = { 0 } },
  next_update_time { "wake", prerequisites = { "n" },
    calc = [[ t_next = 1.0; ]],
    discrete_update = [[ n_next[0] = n[0] + 1; ]] },
  output_port { "y", size = 1, prerequisites = { "n" }, calc = [[ y[0] = n[0]; ]] },
}
return diagram "w" { system { "w", W }, log { "w.y", period = 0.5 } }
EOF
hrun --timeout 10 -- "$DIAGC" run "$T/spec.lua" --until 5
expect_exit 2
expect_error "next_update_time 'w\.wake' returned t_next = 1, not after t = 1 "
hdone
