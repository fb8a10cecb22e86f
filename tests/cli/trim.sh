#!/usr/bin/env bash
# tests/cli/trim.sh: `diagc trim` (docs/jacobians.md, "Trim"): the
# pendulum example trimmed inverted (theta = pi) in text and JSON; its last
# line pasted into `diagc linearize` is an equilibrium there (A's
# pend.omega row is +g/l); the DC motor example's point pasted into `diagc
# run` stays put (within the integrator's error); -o writes the file.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok trim.$1"; }
bad() { echo "FAIL trim.$1: $2"; }

# 1. inverted: theta = pi exactly (the nearest double), omega 0
if "$DIAGC" trim examples/pendulum.lua --state pend.theta=2.5 >"$tmp/text" 2>"$tmp/err" &&
   head -1 "$tmp/text" | grep -Eq '^trim of pendulum: converged in [0-9]+ iterations?, max \|residual\| = [0-9.e+-]+ \(generated Jacobian\)$' &&
   tail -1 "$tmp/text" | grep -Eq '^--state pend\.theta=3\.14159265358979[0-9]* --state pend\.omega=[-0-9.e]+$'; then
  ok pendulum_inverted_text
else
  bad pendulum_inverted_text "$(tr '\n' '|' <"$tmp/text") $(head -1 "$tmp/err")"
fi

# 2. pasted into linearize: an equilibrium, A = [[0, 1], [+g/l, -b]]
# shellcheck disable=SC2046
if "$DIAGC" linearize examples/pendulum.lua $(tail -1 "$tmp/text") >"$tmp/lin" 2>"$tmp/err" &&
   grep -Eq '^  pend\.omega +9\.81 +-0\.1$' "$tmp/lin"; then
  ok pasted_into_linearize
else
  bad pasted_into_linearize "$(tr '\n' '|' <"$tmp/lin") $(head -1 "$tmp/err")"
fi

# 3. JSON: the residual, the point and the flags
if "$DIAGC" trim examples/pendulum.lua --state pend.theta=2.5 --json >"$tmp/json" 2>"$tmp/err" &&
   grep -q '"jacobian": "model"' "$tmp/json" && grep -Eq '"iterations": [0-9]+' "$tmp/json" &&
   grep -q '"args": "--state pend.theta=3.14159' "$tmp/json" && grep -q '"d/dt pend.omega"' "$tmp/json"; then
  ok json
else
  bad json "$(tr '\n' '|' <"$tmp/json") $(head -1 "$tmp/err")"
fi

# 4. the motor loop at 100 rad/s, pasted into run: the speed stays at 100
if "$DIAGC" trim examples/control/dc_motor_pi.lua --input speed_ref=100 -o "$tmp/point" 2>"$tmp/err" &&
   tail -1 "$tmp/point" | grep -q -- '--state pi.I=0.52' &&
   # shellcheck disable=SC2046
   "$DIAGC" run examples/control/dc_motor_pi.lua --until 0.5 --integrator radau5 $(tail -1 "$tmp/point") >"$tmp/run.csv" 2>"$tmp/err" &&
   awk -F, 'NR > 1 && ($2 < 99.9999 || $2 > 100.0001) { bad = 1 } END { exit bad }' "$tmp/run.csv"; then
  ok motor_point_holds
else
  bad motor_point_holds "$(tail -2 "$tmp/run.csv" | tr '\n' '|') $(head -1 "$tmp/err")"
fi
