#!/usr/bin/env bash
# tests/cli/linearize.sh: `diagc linearize` (docs/jacobians.md,
# "Linearization"): the pendulum example at its bottom equilibrium against
# the analytic A (A = [[0, 1], [-g/l, -b]] with its defaults g = 9.81, l = 1,
# b = 0.1); a torque pendulum's B, C, D in json and csv; a point that is not
# an equilibrium is one error line, exit 2, nothing on stdout, and works in
# first_order_taylor mode; -o writes the file; the exact text, CSV and JSON
# of a linear system whose matrices are its parameters.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok linearize.$1"; }
bad() { echo "FAIL linearize.$1: $2"; }

# 1. the example, text: the A rows with their names
if "$DIAGC" linearize examples/pendulum.lua --state pend.theta=0 >"$tmp/text" 2>"$tmp/err" &&
   grep -Eq '^  pend\.theta +0 +1$' "$tmp/text" && grep -Eq '^  pend\.omega +-9\.81 +-0\.1$' "$tmp/text"; then
  ok pendulum_text
else
  bad pendulum_text "$(tr '\n' '|' <"$tmp/text") $(head -1 "$tmp/err")"
fi

cat >"$tmp/tp.lua" <<'EOF2'
local P = leaf "TorquePendulum" {
  continuous_state { q = { "theta" }, v = { "omega" }, q0 = { 0 }, v0 = { 0 } },
  parameter { "m", default = { 2.0 } },
  parameter { "l", default = { 0.5 } },
  parameter { "g", default = { 9.81 } },
  parameter { "b", default = { 0.3 } },
  input_port { "tau", size = 1 },
  derivatives {
    prerequisites = { "q", "v", "m", "l", "g", "b", "tau" },
    calc = [[
      qdot[0] = v[0];
      vdot[0] = (tau[0] - m[0] * g[0] * l[0] * sin(q[0]) - b[0] * v[0]) / (m[0] * l[0] * l[0]);
    ]],
  },
  output_port { "angle", size = 1, prerequisites = { "q" }, calc = "angle[0] = q[0];" },
}
return diagram "pend" {
  system { "p", P },
  export_input { "p.tau", as = "torque" },
  export_output { "p.angle", as = "theta" },
}
EOF2

# 2. json: B = [0, 1/(m l^2)] = [0, 2], C = [1, 0], D = [0]; top equilibrium A21 = +g/l
if "$DIAGC" linearize "$tmp/tp.lua" --input torque=0 --state p.theta=3.141592653589793 --format json \
     -o "$tmp/lin.json" 2>"$tmp/err" &&
   tr -d ' \n' <"$tmp/lin.json" | grep -q '"A":\[\[0,1\],\[19.62,-0.6\]\],"B":\[\[0\],\[2\]\],"C":\[\[1,0\]\],"D":\[\[0\]\]'; then
  ok torque_json
else
  bad torque_json "$(tr -d ' \n' <"$tmp/lin.json" 2>/dev/null | head -c 300) $(head -1 "$tmp/err")"
fi

# 3. not an equilibrium: one line, exit 2, stdout empty
"$DIAGC" linearize "$tmp/tp.lua" --input torque=0 --state p.theta=0.3 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
   grep -q 'not an equilibrium: d/dt p.omega' "$tmp/err"; then
  ok not_an_equilibrium
else
  bad not_an_equilibrium "rc $rc: $(cat "$tmp/err")"
fi

# 4. first_order_taylor there, csv: f0 of omega = xcdot0 - A x0 - B u0
if "$DIAGC" linearize "$tmp/tp.lua" --input torque=0.1 --state p.theta=0.3 --mode first_order_taylor \
     --format csv >"$tmp/csv" 2>"$tmp/err"; then
  f0=$(awk -F, '$1 == "f0" && $2 == "p.omega" { print $4 }' "$tmp/csv")
  want=$(awk 'BEGIN { m = 2; l = 0.5; g = 9.81; b = 0.3; th = 0.3; u = 0.1
    vdot = (u - m * g * l * sin(th)) / (m * l * l); a21 = -g / l * cos(th)
    printf "%.12g", vdot - a21 * th - u / (m * l * l) }')
  if awk -v a="$f0" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 1e-9) }'; then
    ok taylor_csv
  else
    bad taylor_csv "f0 $f0, expected $want"
  fi
else
  bad taylor_csv "$(head -1 "$tmp/err")"
fi

# 5. finite differences agree with the generated Jacobian
"$DIAGC" linearize "$tmp/tp.lua" --input torque=0.1 --state p.theta=0.3 --mode first_order_taylor \
  --jacobian fd --format csv >"$tmp/fd" 2>"$tmp/err"
if paste -d, "$tmp/csv" "$tmp/fd" | awk -F, 'NR > 1 { d = $4 - $8; if (d < 0) d = -d; s = ($4 < 0 ? -$4 : $4) + 1
     if (d > 1e-6 * s) bad = 1 } END { exit bad }'; then
  ok fd_agrees
else
  bad fd_agrees "$(paste -d' ' "$tmp/csv" "$tmp/fd" | head -5 | tr '\n' '|')"
fi

# 6. discrete time: Drake's ExampleDiscreteSystem x[n+1] = x[n] + 1, y = 10 x
"$DIAGC" linearize examples/discrete_counter.lua --mode first_order_taylor --format csv >"$tmp/dc" 2>"$tmp/err"
if grep -qx 'A,example.x,example.x,1' "$tmp/dc" && grep -qx 'C,example.Sn,example.x,10' "$tmp/dc" &&
   grep -qx 'f0,example.x,,1' "$tmp/dc" &&
   "$DIAGC" linearize examples/discrete_counter.lua 2>&1 >/dev/null | grep -q 'example.x\[n+1\] - example.x\[n\] = 1'; then
  ok discrete_counter
else
  bad discrete_counter "$(tr '\n' '|' <"$tmp/dc") $(head -1 "$tmp/err")"
fi

# 7. exact output of a linear system whose A, B, C, D are its parameters
# (so the expected matrices are the parameters): 2^-47, 600 sqrt(2) and
# 2^-43 are wider than a 14-character column in the text format (each
# matrix's columns widen to their widest value plus two spaces), -0 prints
# as 0 (b[1], d), and CSV / JSON write the shortest
# form that reads back, as `diagc run` does
cat >"$tmp/lin.lua" <<'EOF2'
local Lin = leaf "Lin" {
  continuous_state { z = { "x1", "x2" }, z0 = { 0, 0 } },
  parameter { "a", default = { 0, -7.105427357601002e-15, 848.5281374238571, -1.1368683772161603e-13 } },
  parameter { "b", default = { 1, -0.0 } },
  parameter { "c", default = { 1, 0.5 } },
  parameter { "d", default = { -0.0 } },
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "z", "u", "c", "d" },
    calc = [[ y[0] = c[0] * z[0] + c[1] * z[1] + d[0] * u[0]; ]] },
  derivatives { prerequisites = { "z", "u", "a", "b" }, calc = [[
    zdot[0] = a[0] * z[0] + a[1] * z[1] + b[0] * u[0];
    zdot[1] = a[2] * z[0] + a[3] * z[1] + b[1] * u[0]; ]] },
}
return diagram "lin" { system { "l", Lin }, export_input { "l.u", as = "u" }, export_output { "l.y", as = "y" } }
EOF2
{
  echo 'linearize of lin at t = 0'
  echo '  d/dt (x - x0) = A (x - x0) + B (u - u0),  y - y0 = C (x - x0) + D (u - u0)'
  echo 'x0: l.x1 = 0, l.x2 = 0'
  echo 'u0: u = 0'
  echo 'y0: y = 0'
  echo 'A (2 x 2)'
  printf '%10s%14s%18s\n' '' l.x1 l.x2
  printf '  %-8s%14s%18s\n' l.x1 0 -7.105427358e-15 l.x2 848.5281374 -1.136868377e-13
  echo 'B (2 x 1)'
  printf '%10s%14s\n' '' u
  printf '  %-8s%14s\n' l.x1 1 l.x2 0
  echo 'C (1 x 2)'
  printf '%10s%14s%14s\n' '' l.x1 l.x2
  printf '  %-8s%14s%14s\n' y 1 0.5
  echo 'D (1 x 1)'
  printf '%10s%14s\n' '' u
  printf '  %-8s%14s\n' y 0
} >"$tmp/want.txt"
cat >"$tmp/want.csv" <<'EOF2'
matrix,row,column,value
A,l.x1,l.x1,0
A,l.x1,l.x2,-7.105427357601002e-15
A,l.x2,l.x1,848.5281374238571
A,l.x2,l.x2,-1.1368683772161603e-13
B,l.x1,u,1
B,l.x2,u,0
C,y,l.x1,1
C,y,l.x2,0.5
D,y,u,0
x0,l.x1,,0
x0,l.x2,,0
u0,u,,0
y0,y,,0
f0,l.x1,,0
f0,l.x2,,0
EOF2
if "$DIAGC" linearize "$tmp/lin.lua" >"$tmp/got.txt" 2>"$tmp/err" && cmp -s "$tmp/got.txt" "$tmp/want.txt" &&
   "$DIAGC" linearize "$tmp/lin.lua" --format csv >"$tmp/got.csv" 2>>"$tmp/err" && cmp -s "$tmp/got.csv" "$tmp/want.csv" &&
   "$DIAGC" linearize "$tmp/lin.lua" --format json 2>>"$tmp/err" | tr -d ' \n' |
     grep -q '"A":\[\[0,-7.105427357601002e-15\],\[848.5281374238571,-1.1368683772161603e-13\]\],"B":\[\[1\],\[0\]\],"C":\[\[1,0.5\]\],"D":\[\[0\]\]'; then
  ok exact_formats
else
  bad exact_formats "$(diff "$tmp/want.txt" "$tmp/got.txt" | tr '\n' '|') $(diff "$tmp/want.csv" "$tmp/got.csv" | tr '\n' '|') $(head -1 "$tmp/err")"
fi
