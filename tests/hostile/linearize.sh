# tests/hostile/linearize.sh: `diagc linearize` where it cannot give the
# matrices (docs/jacobians.md, "When linearization fails"): one line
# naming the evaluation that failed (the derivatives, a discrete update, an
# output, the model's Jacobian, central differences at a moved point), the
# calc or the non-finite element, exit 2, nothing written; advice to
# declare jacobian = "finite_difference" only where that would help; the
# options refused with the same reasons as c:linearize{...}.

# hlin NAME SPEC ARGS...: writes $T/spec.lua, runs diagc linearize on it with -o
hlin() {
  local name=$1 spec=$2
  shift 2
  hcase "linearize.$name"
  printf '%s\n' "$spec" >"$T/spec.lua"
  hrun -- "$DIAGC" linearize "$T/spec.lua" -o "$T/out.txt" "$@"
}
expect_refused() {
  expect_exit 2
  expect_error "$1"
  expect_absent "$T/out.txt"
  expect_within 20
}

H_FAILS='local L = leaf "L" {
  continuous_state { z = { "x" }, z0 = { 0 } },
  parameter { "k", default = { 1 } },
  output_port { "y", size = 1, prerequisites = { "z", "k" }, calc = [[ if (k[0] > 0.5) return 1; y[0] = z[0]; ]] },
  derivatives { prerequisites = { "z" }, calc = [[ zdot[0] = -z[0]; ]] },
}
return diagram "fl" { system { "l", L }, export_output { "l.y", as = "y" } }'

hlin output_calc_fails "$H_FAILS" --jacobian fd
expect_refused "diagc linearize: output 'y' failed with status -11 \(model: a calc body failed\) at the operating point; the calc of l\.y returned a nonzero status \([^ ]*spec\.lua:4\)$"
hdone

# the same calc without jacobian = "finite_difference": the advice applies
hlin calc_outside_subset "$H_FAILS"
expect_refused 'spec\.lua:4:[0-9]+: the linearization needs the Jacobian of l\.y: return in a calc body .*; declare that calc jacobian = "finite_difference", or use finite differences \(--jacobian fd\)$'
hdone

hlin derivative_nan 'local L = leaf "L" {
  continuous_state { z = { "x", "w" }, z0 = { 0, -1 } },
  derivatives { prerequisites = { "z" }, calc = [[ zdot[0] = -z[0]; zdot[1] = sqrt(z[1]); ]] },
}
return diagram "dn" { system { "l", L } }'
expect_refused 'diagc linearize: d/dt l\.w is NaN at the operating point$'
hdone

hlin output_nan 'local L = leaf "L" {
  continuous_state { z = { "x", "w" }, z0 = { 0, 0 } },
  output_port { "y", size = 2, prerequisites = { "z" }, calc = [[ y[0] = z[0]; y[1] = log(z[1] - 1.0); ]] },
  derivatives { prerequisites = { "z" }, calc = [[ zdot[0] = -z[0]; zdot[1] = -z[1]; ]] },
}
return diagram "nn" { system { "l", L }, export_output { "l.y", as = "y" } }' --mode first_order_taylor
expect_refused 'diagc linearize: y\[1\] is NaN at the operating point$'
hdone

# sqrt at 0: y(x0) is finite, its derivative is not
H_SQRT='local L = leaf "L" {
  continuous_state { z = { "x" }, z0 = { 0 } },
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = sqrt(z[0]); ]] },
  derivatives { prerequisites = { "z", "u" }, calc = [[ zdot[0] = -z[0] + u[0]; ]] },
}
return diagram "sq" { system { "l", L }, export_input { "l.u", as = "u" }, export_output { "l.y", as = "y" } }'

hlin jacobian_entry_infinite "$H_SQRT"
expect_refused "diagc linearize: the entry d\(y\)/d\(l\.x\) of C is inf at the operating point \(from the model's generated Jacobian\): the model is not differentiable there$"
hdone

hlin differences_entry_nan "$H_SQRT" --jacobian fd
expect_refused 'diagc linearize: the entry d\(y\)/d\(l\.x\) of C is NaN at the operating point \(from central differences\)'
hdone

# a calc that fails only away from the operating point: central differences name the moved element
hlin differences_moved_point 'local L = leaf "L" {
  continuous_state { z = { "x" }, z0 = { 0 } },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ if (z[0] < 0.0) return 1; y[0] = z[0]; ]] },
  derivatives { prerequisites = { "z" }, calc = [[ zdot[0] = -z[0]; ]] },
}
return diagram "mv" { system { "l", L }, export_output { "l.y", as = "y" } }' --jacobian fd
expect_refused "diagc linearize: output 'y' failed with status -11 \(model: a calc body failed\) at the operating point with l\.x moved by -6\.06e-06 \(central differences\)$"
hdone

hlin discrete_update_fails 'local L = leaf "L" {
  discrete_state { "x", default = { 0 } },
  parameter { "k", default = { 1 } },
  periodic_discrete_update { "tick", period = 0.1, prerequisites = { "x", "k" },
    calc = [[ if (k[0] > 0.5) return DIAGC_FAILED; x_next[0] = x[0]; ]] },
}
return diagram "du" { system { "l", L } }' --jacobian fd
expect_refused "diagc linearize: the discrete update 'l\.tick' failed at the operating point$"
hdone

# declared jacobian = "finite_difference" already: no advice to declare it
hlin declared_finite_difference 'local L = leaf "L" {
  c_preamble [[ typedef struct { double g; } gain_t; ]],
  continuous_state { z = { "x" }, z0 = { 0 } },
  abstract_parameter { "p", type = "gain_t", init = "{ 2.0 }" },
  output_port { "y", size = 1, prerequisites = { "z", "p" }, jacobian = "finite_difference",
    calc = [[ y[0] = p->g * z[0]; ]] },
  derivatives { prerequisites = { "z" }, calc = [[ zdot[0] = -z[0]; ]] },
}
return diagram "fa" { system { "l", L }, export_output { "l.y", as = "y" } }'
expect_refused "spec\.lua:6:[0-9]+: the linearization needs the Jacobian of l\.y: it is declared jacobian = \"finite_difference\", but central differences of it are not possible: 'p' is of C type gain_t; use finite differences \(--jacobian fd\)$"
check "advises declaring what is declared: $err" sh -c '! printf "%s" "$1" | grep -q "declare that calc"' _ "$err"
hdone

# a world whose dense update Jacobian exceeds the limit: the limit and the number
hcase linearize.world_over_entry_limit
hrun -- "$DIAGC" linearize examples/world/stack.lua -o "$T/out.txt"
expect_refused "stack\.lua:16:1: the linearization needs the Jacobian of world\.step: its world's dense update Jacobian would have 35429 entries, more than the limit of 4096 \(its rows grow with max_contacts = 120: the warm start holds 4 values per contact\); use finite differences \(--jacobian fd\)$"
hdone

# a world's output outside the subset: leave it out, no calc to declare
hlin world_output_outside_subset 'return diagram "bp" {
  system { "world", world "w" { time_step = 1e-3, body { "b", mass = 1, inertia = { 1, 1, 1 }, joint = { "prismatic", axis = { 0, 0, 1 } } } } },
  log { "world.poses", period = 1e-2 },
}'
expect_refused "the linearization needs the Jacobian of world\.poses: it is computed by the world's generated code, outside the differentiable subset .*; leave it out \(choose other output ports\) or use finite differences \(--jacobian fd\)$"
hdone

hcase linearize.negative_tolerance
hrun -- "$DIAGC" linearize examples/pendulum.lua --tolerance -1 -o "$T/out.txt"
expect_refused "diagc linearize: invalid --tolerance '-1': expected a finite decimal number >= 0$"
hdone

hcase linearize.nan_tolerance
hrun -- "$DIAGC" linearize examples/pendulum.lua --tolerance nan -o "$T/out.txt"
expect_refused "diagc linearize: invalid --tolerance 'nan': expected a finite decimal number >= 0$"
hdone

# a sampled loop (xc under one periodic update): only at an equilibrium,
# only mode linearize; --eig takes no value
H_SAMPLED='local P = leaf "P" {
  continuous_state { z = { "x" }, z0 = { 0 } },
  input_port { "u", size = 1 },
  derivatives { prerequisites = { "z", "u" }, calc = [[ zdot[0] = u[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
}
local K = leaf "K" {
  discrete_state { "u", default = { 0 } },
  input_port { "y", size = 1 },
  output_port { "cmd", size = 1, prerequisites = { "xd" }, calc = [[ cmd[0] = u[0]; ]] },
  periodic_discrete_update { "s", period = 0.1, calc = [[ u_next[0] = -y[0]; ]] },
}
return diagram "sl" { system { "p", P }, system { "k", K },
  connect { "p.y", "k.y" }, connect { "k.cmd", "p.u" } }'

hlin sampled_taylor "$H_SAMPLED" --mode first_order_taylor
expect_refused "diagc linearize: model sl is a sampled loop \(continuous state under a periodic discrete update\): it is linearized at an equilibrium only \(mode linearize; diagc trim finds one\), first_order_taylor is not available$"
hdone

hlin sampled_not_equilibrium "$H_SAMPLED" --state p.x=1
expect_refused "diagc linearize: not an equilibrium: k\.u\[n\+1\] - k\.u\[n\] = -1 \(tolerance 1e-06\); linearize needs x\[n\+1\] = x\[n\] and xcdot = 0 \(diagc trim finds such a point\)$"
hdone

hlin eig_with_value "$H_SAMPLED" --eig=1
expect_refused "diagc linearize: option --eig takes no value \(got '1'\)$"
hdone
