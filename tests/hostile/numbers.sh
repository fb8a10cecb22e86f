# tests/hostile/numbers.sh: numeric options and run lengths.  Every bad
# value is one line naming the option, the value and the valid range, exit
# 2; runs that could not finish (limits in docs/simulator.md) are refused
# before simulating, in bounded time.

num_spec() {
  cat >"$T/spec.lua" <<'LUA'
local Decay = leaf "Decay" {
  continuous_state { z = { "x" }, z0 = { 1.0 } },
  parameter { "k", default = { 1.0 } },
  derivatives { prerequisites = { "z", "k" }, calc = [[ zdot[0] = -k[0] * z[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
}
return diagram "decay" { system { "d", Decay }, log { "d.y", period = 0.5 } }
LUA
}

# num_bad NAME EXPECTED-ERE ARGS...: diagc run spec ARGS fails as expected
num_bad() {
  local name=$1 want=$2
  shift 2
  hcase "numbers.$name"
  num_spec
  hrun --timeout 20 -- "$DIAGC" run "$T/spec.lua" --csv "$T/out.csv" "$@"
  expect_exit 2
  expect_error "$want"
  expect_absent "$T/out.csv"
  hdone
}

num_bad step_nan "invalid --step 'nan': expected a finite decimal number > 0" --step nan
num_bad max_step_zero "invalid --max-step '0': expected a finite decimal number > 0" --max-step 0
num_bad accuracy_negative "invalid --accuracy '-1': expected a finite decimal number >= 1e-14 and <= 1" --accuracy -1
num_bad accuracy_tiny "invalid --accuracy '1e-300'" --accuracy 1e-300
num_bad until_inf "invalid --until 'inf': expected a finite decimal number >= 0" --until inf
num_bad until_negative "invalid --until '-1'" --until -1
num_bad until_overflow "invalid --until '1e400'" --until 1e400
num_bad until_hex "invalid --until '0x10'" --until 0x10
num_bad until_trailing_space "invalid --until '1 '" --until "1 "
num_bad until_incomplete_exponent "invalid --until '1e'" --until 1e
num_bad until_empty "invalid --until ''" --until=
num_bad param_inf "-p d.k: value 1 'inf' is not a finite decimal number" -p d.k=inf
num_bad param_nan "-p d.k: value 1 'nan' is not a finite decimal number" -p d.k=nan
num_bad param_empty_item "-p d.k: value 2 '' is not a finite decimal number" -p d.k=1,,2
num_bad param_empty "-p d.k: no value after '='" -p d.k=
num_bad state_garbage "--state d.z: value 1 '1x' is not a finite decimal number" --state d.z=1x
num_bad step_too_small "at least 1e\+300 steps of 1e-300 s, more than the limit of 1e\+09 steps per run; raise --step" --step 1e-300
num_bad until_too_long "would take at least 1e\+13 steps of 0.1 s, more than the limit of 1e\+09" --until 1e12

hcase numbers.period_tiny
cat >"$T/spec.lua" <<'LUA'
local C = leaf "Counter" {
  discrete_state { "n", default = { 0 } },
  periodic_discrete_update { "tick", period = 1e-300, calc = [[ n_next[0] = n[0] + 1.0; ]] },
  output_port { "y", size = 1, prerequisites = { "n" }, calc = [[ y[0] = n[0]; ]] },
}
return diagram "tiny" { system { "c", C }, log { "c.y" } }
LUA
hrun --timeout 20 -- "$DIAGC" run "$T/spec.lua" --until 1
expect_exit 2
expect_error "periodic event 'c.tick' with period 1e-300 s alone .* times\), more than the limit of 1e\+09"
expect_within 10
hdone

hcase numbers.period_relative_to_end
cat >"$T/spec.lua" <<'LUA'
local C = leaf "Counter" {
  discrete_state { "n", default = { 0 } },
  periodic_discrete_update { "tick", period = 1e-6, calc = [[ n_next[0] = n[0] + 1.0; ]] },
  output_port { "y", size = 1, prerequisites = { "n" }, calc = [[ y[0] = n[0]; ]] },
}
return diagram "rel" { system { "c", C }, log { "c.y", period = 1 } }
LUA
hrun --timeout 20 -- "$DIAGC" run "$T/spec.lua" --until 1e4
expect_exit 2
expect_error "would fire periodic events 1e\+10 times"
hdone

hcase numbers.logger_period_tiny
num_spec
sed -i 's/period = 0.5/period = 1e-12/' "$T/spec.lua"
hrun --timeout 20 -- "$DIAGC" run "$T/spec.lua" --until 10
expect_exit 2
expect_error "logger 'd.y' with period 1e-12 s"
hdone

hcase numbers.deploy_duration_nan
num_spec
hrun -- "$DIAGC" deploy "$T/spec.lua" --run --duration nan
expect_exit 2
expect_error "invalid --duration 'nan': expected a finite decimal number > 0 and <= 1000000"
hdone

hcase numbers.deploy_threads_fraction
num_spec
hrun -- "$DIAGC" deploy "$T/spec.lua" --run --threads 1.5
expect_exit 2
expect_error "invalid --threads '1.5': expected a whole number in \[0, 256\]"
hdone

hcase numbers.deploy_period_below_resolution
cat >"$T/spec.lua" <<'LUA'
local C = leaf "Clock" {
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
  periodic_publish { "tick", period = 1e-12, calc = [[ ]] },
}
return diagram "fast" { system { "c", C } }
LUA
hrun -- "$DIAGC" deploy "$T/spec.lua" -o "$T/app.c"
expect_exit 2
expect_error "spec\.lua:3: periodic event 'c.tick' has period 1e-12 s, below the executor's 1 ns resolution"
expect_absent "$T/app.c" "$T/c.c"
hdone

hcase numbers.state_analytic_decay
# x' = -k x from x0 = 3 (--state) with k = 2 (-p): x(2) = 3 e^-4
num_spec
hrun -- "$DIAGC" run "$T/spec.lua" --until 2 --state d.z=3 -p d.k=2 --accuracy 1e-10 --integrator dormand_prince54
expect_exit 0
check "x(2) = 3 exp(-4) to 1e-8" awk -F, -v out="$out" 'BEGIN { n = split(out, L, "\n"); split(L[n], f, ",");
  d = f[2] - 3 * exp(-4); exit !(f[1] == 2 && d < 1e-8 && d > -1e-8) }'
hdone

hcase numbers.period_below_time_resolution
# few events, but late: 1e-9 s steps at t = 1e6 cannot be told apart
cat >"$T/spec.lua" <<'LUA'
local C = leaf "Counter" {
  discrete_state { "n", default = { 0 } },
  periodic_discrete_update { "tick", period = 1e-9, offset = 1e6, calc = [[ n_next[0] = n[0] + 1.0; ]] },
  output_port { "y", size = 1, prerequisites = { "n" }, calc = [[ y[0] = n[0]; ]] },
}
return diagram "late" { system { "c", C }, log { "c.y", period = 1e5 } }
LUA
hrun --timeout 20 -- "$DIAGC" run "$T/spec.lua" --until 1000000.0000001
expect_exit 2
expect_error "periodic event 'c.tick' has period 1e-09 s, below 1e-12 times the time 1e\+06 of the run"
hdone
