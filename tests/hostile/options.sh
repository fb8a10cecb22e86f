# tests/hostile/options.sh: command-line mistakes get one error line, exit
# 2, and a "did you mean" or the list of valid names (docs/simulator.md).

# a decay model: x' = -k x + u, a discrete group, one exported input
opt_spec() {
  cat >"$T/spec.lua" <<'LUA'
local Decay = leaf "Decay" {
  continuous_state { z = { "x" }, z0 = { 1.0 } },
  parameter { "rate", default = { 1.0 } },
  discrete_state { "count", default = { 0, 0 } },
  input_port { "u", size = 1 },
  derivatives { prerequisites = { "z", "rate", "u" }, calc = [[ zdot[0] = -rate[0] * z[0] + u[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
}
return diagram "decay" {
  system { "pendulum", Decay },
  export_input { "pendulum.u", as = "force" },
  log { "pendulum.y", period = 0.5 },
}
LUA
}

hcase options.unknown_option_suggests
opt_spec
hrun -- "$DIAGC" run "$T/spec.lua" --untill 2
expect_exit 2
expect_error "unknown option '--untill'; did you mean '--until'\?"
hdone

hcase options.unknown_command_suggests
opt_spec
hrun -- "$DIAGC" rnu "$T/spec.lua"
expect_exit 2
expect_error "unknown command 'rnu'; did you mean 'run'\?"
hdone

hcase options.unknown_integrator_suggests
opt_spec
hrun -- "$DIAGC" run "$T/spec.lua" --integrator runge_kuta3
expect_exit 2
expect_error "unknown integrator 'runge_kuta3'; did you mean 'runge_kutta3'\? \(integrators: .*dormand_prince54"
hdone

hcase options.unknown_jacobian_suggests
opt_spec
hrun -- "$DIAGC" run "$T/spec.lua" --integrator radau3 --jacobian modl
expect_exit 2
expect_error "unknown jacobian source 'modl'; did you mean 'model'\? \(sources: fd, model\)"
hdone

hcase options.jacobian_needs_value
opt_spec
hrun -- "$DIAGC" run "$T/spec.lua" --jacobian
expect_exit 2
expect_error "option --jacobian needs a value"
hdone

hcase options.param_unknown_system
opt_spec
hrun -- "$DIAGC" run "$T/spec.lua" -p pendlum.rate=1
expect_exit 2
expect_error "-p pendlum.rate: no system named 'pendlum'; did you mean 'pendulum'\? \(systems: pendulum\)"
hdone

hcase options.param_unknown_name
opt_spec
hrun -- "$DIAGC" run "$T/spec.lua" -p pendulum.rat=2
expect_exit 2
expect_error "system 'pendulum' has no numeric parameter named 'rat'; did you mean 'rate'\?"
hdone

hcase options.param_names_a_state
opt_spec
hrun -- "$DIAGC" run "$T/spec.lua" -p pendulum.z=2
expect_exit 2
expect_error "'pendulum.z' is a state, not a numeric parameter; use --state"
hdone

hcase options.state_unknown_name
opt_spec
hrun -- "$DIAGC" run "$T/spec.lua" --state pendulum.cont=1,2
expect_exit 2
expect_error "system 'pendulum' has no state named 'cont'; did you mean 'count'\?"
hdone

hcase options.state_wrong_size
opt_spec
hrun -- "$DIAGC" run "$T/spec.lua" --state pendulum.count=1
expect_exit 2
expect_error "--state pendulum.count: it has 2 values, got 1"
hdone

hcase options.input_unknown_name
opt_spec
hrun -- "$DIAGC" run "$T/spec.lua" --input forse=1
expect_exit 2
expect_error "--input forse: no input named 'forse'; did you mean 'force'\? \(inputs: force\)"
hdone

hcase options.input_names_a_parameter
opt_spec
hrun -- "$DIAGC" run "$T/spec.lua" --input pendulum.rate=1
expect_exit 2
expect_error "'pendulum.rate' is a numeric parameter, not an input; use -p"
hdone

hcase options.assignment_without_equals
opt_spec
hrun -- "$DIAGC" run "$T/spec.lua" -p pendulum.rate
expect_exit 2
expect_error "-p expects NAME=VALUE\[,VALUE...\], got 'pendulum.rate'"
hdone

hcase options.option_given_twice
opt_spec
hrun -- "$DIAGC" run "$T/spec.lua" --until 1 --until 2
expect_exit 2
expect_error "option --until is given twice"
hdone

hcase options.switch_with_value
opt_spec
hrun -- "$DIAGC" run "$T/spec.lua" --stats=yes
expect_exit 2
expect_error "option --stats takes no value \(got 'yes'\)"
hdone

hcase options.missing_value
opt_spec
hrun -- "$DIAGC" run "$T/spec.lua" --until
expect_exit 2
expect_error "option --until needs a value"
hdone

hcase options.step_and_max_step
opt_spec
hrun -- "$DIAGC" run "$T/spec.lua" --step 0.01 --max-step 0.1
expect_exit 2
expect_error "give --step \(fixed steps\) or --max-step \(error control\), not both"
hdone

hcase options.graph_unknown_option
opt_spec
hrun -- "$DIAGC" graph "$T/spec.lua" --al
expect_exit 2
expect_error "diagc graph: unknown option '--al'; did you mean '--all'\?"
hdone

hcase options.info_unknown_option
opt_spec
hrun -- "$DIAGC" info "$T/spec.lua" --jsn
expect_exit 2
expect_error "diagc info: unknown option '--jsn'; did you mean '--json'\?"
hdone

hcase options.generate_unknown_option
opt_spec
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/out.c" --nmae x
expect_exit 2
expect_error "unknown option '--nmae'; did you mean '--name'\?"
expect_absent "$T/out.c" "$T/out.h"
hdone

hcase options.deploy_without_periodic_event
opt_spec
hrun -- "$DIAGC" deploy "$T/spec.lua" -o "$T/app.c"
expect_exit 2
expect_error "spec\.lua:10: subsystem 'pendulum' has no periodic event"
expect_absent "$T/app.c" "$T/pendulum.c" "$T/pendulum.h"
hdone

hcase options.test_timeout_not_a_number
hrun -- "$DIAGC" test --timeout inf "$T"
expect_exit 2
expect_error "invalid --timeout 'inf'"
hdone

# no arguments is a usage error: the usage on stderr, nothing on stdout,
# exit 2; --help asks for it: stdout, exit 0
hcase options.no_arguments_usage_on_stderr
hrun -- "$DIAGC"
expect_exit 2
check "nothing on stdout: $out" test -z "$out"
expect_stderr_match '^usage: diagc SPEC\.lua -o OUT\.c'
hdone

hcase options.help_usage_on_stdout
hrun -- "$DIAGC" --help
expect_exit 0
check "nothing on stderr: $err" test -z "$err"
expect_stdout_match '^usage: diagc SPEC\.lua -o OUT\.c'
hdone
