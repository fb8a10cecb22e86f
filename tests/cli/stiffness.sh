#!/usr/bin/env bash
# Stiffness is never silent (docs/simulator.md, "Stiffness"): a DC motor
# under a fast PI current loop warns once, with the evidence and the
# suggestion, under the default runge_kutta3, bogacki_shampine3 and
# dormand_prince54 and with fixed-step runge_kutta4 at 1 ms (wrong but
# bounded with a 1 mH coil; overflowing, then one error line, with the
# 0.1 mH one); a stable fixed step, the implicit integrators and every
# example with every explicit integrator say nothing; --stats shows the
# counters.
#
# The motor's stiff eigenvalue, from its linearization (unsaturated):
# the current loop's lambda^2 + (R + kp)/L lambda + ki/L = 0 gives
# lambda = -(1.1e5 + sqrt(1.1e5^2 - 8e8)) / 2 = -1.0815e5 /s (the
# mechanics shift it by < 0.1 %); with the voltage saturated, -R/L = -1e4.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; }

cat >"$tmp/motor.lua" <<'LUA'
-- A DC motor under a PI current loop: L di/dt = u - R i - K w,
-- J dw/dt = K i - b w, u = sat(kp (i_ref - i) + ki s, vmax), s' = i_ref - i.
local Motor = leaf "Motor" {
  continuous_state { z = { "i", "w" } },
  parameter { "L", default = { 1e-4 } },
  parameter { "R", default = { 1.0 } },
  parameter { "K", default = { 0.05 } },
  parameter { "J", default = { 1e-4 } },
  parameter { "b", default = { 1e-4 } },
  input_port { "u", size = 1 },
  derivatives { prerequisites = { "z", "u", "L", "R", "K", "J", "b" },
    calc = [[
      zdot[0] = (u[0] - R[0] * z[0] - K[0] * z[1]) / L[0];
      zdot[1] = (K[0] * z[0] - b[0] * z[1]) / J[0];
    ]] },
  output_port { "current", size = 1, prerequisites = { "z" }, calc = [[ current[0] = z[0]; ]] },
  output_port { "speed", size = 1, prerequisites = { "z" }, calc = [[ speed[0] = z[1]; ]] },
}
local CurrentLoop = leaf "CurrentLoop" {
  continuous_state { z = { "s" } },
  parameter { "i_ref", default = { 2.0 } },
  parameter { "kp", default = { 10.0 } },
  parameter { "ki", default = { 2e4 } },
  parameter { "vmax", default = { 24.0 } },
  input_port { "i", size = 1 },
  derivatives { prerequisites = { "i", "i_ref" }, calc = [[ zdot[0] = i_ref[0] - i[0]; ]] },
  output_port { "u", size = 1, prerequisites = { "z", "i", "i_ref", "kp", "ki", "vmax" },
    calc = [[
      double v = kp[0] * (i_ref[0] - i[0]) + ki[0] * z[0];
      u[0] = v > vmax[0] ? vmax[0] : (v < -vmax[0] ? -vmax[0] : v);
    ]] },
}
return diagram "dc_motor" {
  system { "motor", Motor },
  system { "pi", CurrentLoop },
  connect { "motor.current", "pi.i" },
  connect { "pi.u", "motor.u" },
  log { "motor.current", period = 0.01 },
  log { "motor.speed", period = 0.01 },
}
LUA

# run NAME ARGS...: $rc, stderr in $tmp/err, stdout in $tmp/out
run() {
  "$DIAGC" run "$tmp/motor.lua" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}
lines() { awk 'END { print NR }' "$1"; }

# error control: one warning with |lambda| within 2 % of 1.0815e5, the
# step and rejection counts, the suggestion; the run still succeeds
for g in runge_kutta3 bogacki_shampine3 dormand_prince54; do
  run --integrator $g
  if [ $rc = 0 ] && [ "$(lines "$tmp/err")" = 1 ] &&
     grep -qE "^diagc run: warning: the model looks stiff for $g: from t = [0-9.e-]+ its steps were held at the method's stability limit \(h \|lambda\| = [0-9.]+ with h = [0-9.e-]+ s: \|lambda\| ~ 1\.0[6-9]e\+05 /s\); [0-9]+ steps \(and [0-9]+ rejected, [0-9.]+ %\) averaged [0-9.e-]+ s where the maximum step is 0\.1 s; try --integrator radau5" "$tmp/err" &&
     [ "$(tail -1 "$tmp/out" | cut -d, -f1)" = 1 ]; then
    ok "stiffness.motor.$g"
  else
    fail "stiffness.motor.$g" "rc $rc: $(head -c 400 "$tmp/err")"
  fi
done

# fixed-step runge_kutta4 at 1 ms, 1 mH: bounded but wrong (from t = 0.01
# to 0.3 the current stays within 0.003 of i_ref = 2, radau5 says; here it
# swings between about -3 and 8): one warning
run --integrator radau5 -p motor.L=1e-3
calm=$(awk -F, 'NR > 1 && $1 >= 0.01 && $1 <= 0.3 && ($2 > 2.01 || $2 < 1.99) { bad = 1 } END { print bad ? "no" : "yes" }' "$tmp/out")
run --integrator runge_kutta4 --step 1e-3 -p motor.L=1e-3
if [ $rc = 0 ] && [ "$calm" = yes ] && [ "$(lines "$tmp/err")" = 1 ] &&
   grep -qE "^diagc run: warning: the model looks stiff for runge_kutta4 with fixed steps of 0\.001 s: .* stability limit or beyond .*the results cannot be trusted; try --integrator radau5" "$tmp/err" &&
   awk -F, 'NR > 1 && $1 >= 0.01 && $1 <= 0.3 && ($2 > 2.5 || $2 < 1.5) { bad = 1 } END { exit !bad }' "$tmp/out"; then
  ok stiffness.motor.rk4_bounded_but_wrong
else
  fail stiffness.motor.rk4_bounded_but_wrong "rc $rc: $(head -c 400 "$tmp/err")"
fi

# ... 0.1 mH: it overflows; the error line carries the evidence (the
# saturated loop's -R/L = -1e4)
run --integrator runge_kutta4 --step 1e-3 --csv "$tmp/rk4.csv"
if [ $rc = 2 ] && [ "$(lines "$tmp/err")" = 1 ] && [ ! -e "$tmp/rk4.csv" ] &&
   grep -qE "^diagc: diagc run: simulation failed: non-finite continuous state motor\.i .*; the model looks stiff for runge_kutta4 with fixed steps of 0\.001 s: .*\|lambda\| ~ (9\.9[5-9]e\+03|1e\+04|1\.00e\+04) /s.*try --integrator radau5" "$tmp/err"; then
  ok stiffness.motor.rk4_overflow
else
  fail stiffness.motor.rk4_overflow "rc $rc: $(head -c 400 "$tmp/err")"
fi

# a stable fixed step, and the stiff integrators: nothing to say, and the
# same current at t = 1 (the fixed-step runge_kutta4 the reference)
run --integrator runge_kutta4 --step 1e-5
ref=$(tail -1 "$tmp/out" | cut -d, -f2)
for args in "--integrator runge_kutta4 --step 1e-5" "--integrator radau5" "--integrator radau3" \
            "--integrator implicit_euler"; do
  run $args
  name=$(echo "$args" | tr -s ' -' '_')
  if [ $rc = 0 ] && [ ! -s "$tmp/err" ] &&
     awk -F, -v r="$ref" 'END { d = $2 - r; exit !(d < 1e-4 && d > -1e-4) }' "$tmp/out"; then
    ok "stiffness.motor.quiet$name"
  else
    fail "stiffness.motor.quiet$name" "rc $rc: $(head -c 300 "$tmp/err") last $(tail -1 "$tmp/out"), reference $ref"
  fi
done

# --stats: the counters (when a test hit; none for the pendulum)
run --stats
if grep -qE "^stiffness tests [0-9]+, above the stability limit 2\.51: 15, conclusive at t = [0-9.e-]+ \(h \|lambda\| = [0-9.]+, h = [0-9.e-]+ s\)$" "$tmp/err"; then
  ok stiffness.stats
else
  fail stiffness.stats "$(cat "$tmp/err")"
fi
"$DIAGC" run examples/pendulum.lua --stats >/dev/null 2>"$tmp/err"
if [ "$(lines "$tmp/err")" = 1 ] && grep -q "^steps " "$tmp/err"; then
  ok stiffness.stats_pendulum
else
  fail stiffness.stats_pendulum "$(cat "$tmp/err")"
fi

# every example, every explicit integrator: no warning
bad=""
for ex in examples/*.lua; do
  case $ex in *_test.lua | *deploy*) continue ;; esac
  for g in runge_kutta3 bogacki_shampine3 dormand_prince54 runge_kutta4 runge_kutta2 explicit_euler \
           semi_explicit_euler; do
    "$DIAGC" run "$ex" --until 5 --integrator $g >/dev/null 2>"$tmp/err"
    grep -q "looks stiff" "$tmp/err" && bad="$bad $ex:$g"
  done
done
if [ -z "$bad" ]; then ok stiffness.examples_quiet; else fail stiffness.examples_quiet "$bad"; fi
exit 0
