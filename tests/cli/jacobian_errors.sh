#!/usr/bin/env bash
# tests/cli/jacobian_errors.sh: a calc outside the differentiable subset
# (docs/jacobians.md) is no error while no Jacobian is needed (diagc -o, run
# with the default Jacobian source) and one line with FILE:LINE:COL, exit 2,
# nothing on stdout, when one is (diagc linearize, diagc run --jacobian
# model): a for loop with a non-constant bound, recursion in a c_preamble
# helper, a pointer; with finite differences (--jacobian fd) the commands
# work; jacobian = "finite_difference" on the calc makes the model's
# Jacobians exist again.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/loop.lua" <<'EOF2'
local Lag = leaf "Lag" {
  continuous_state { z = 2 },
  input_port { "u", size = 1 },
  derivatives { prerequisites = { "z", "u" }, calc = [[
    int n = (int)u[0];
    zdot[0] = -z[0]; zdot[1] = -z[1];
    for (int i = 0; i < n; i++) zdot[1] += 0.1; ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = "y[0] = z[0];" },
}
return diagram "loop" { system { "l", Lag }, export_input { "l.u", as = "u" }, export_output { "l.y", as = "y" } }
EOF2
cat >"$tmp/rec.lua" <<'EOF2'
local Lag = leaf "Lag" {
  c_preamble [[
static double fact(double x) { return x <= 1.0 ? 1.0 : x * fact(x - 1.0); }
]],
  continuous_state { z = 1 },
  derivatives { prerequisites = { "z" }, calc = [[ zdot[0] = -z[0] * fact(3.0); ]] },
}
return diagram "rec" { system { "l", Lag } }
EOF2
cat >"$tmp/ptr.lua" <<'EOF2'
local Lag = leaf "Lag" {
  continuous_state { z = 1 },
  derivatives { prerequisites = { "z" }, calc = [[ const double *p = z; zdot[0] = -*p; ]] },
}
return diagram "ptr" { system { "l", Lag } }
EOF2
sed 's/derivatives { prerequisites = { "z" }, calc/derivatives { prerequisites = { "z" }, jacobian = "finite_difference", calc/' \
  "$tmp/ptr.lua" >"$tmp/ptrfd.lua"

# one_error NAME WHERE CONSTRUCT CMD...: exit 2, one stderr line starting
# "diagc: FILE:WHERE:" and naming CONSTRUCT, nothing on stdout
one_error() {
  local name=$1 where=$2 what=$3 rc
  shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
     grep -q "^diagc: [^ ]*:$where: .*$what" "$tmp/err" && ! grep -q traceback "$tmp/err"; then
    echo "ok jacobian_errors.$name"
  else
    echo "FAIL jacobian_errors.$name: rc $rc: $(head -c 300 "$tmp/err")"
  fi
}
works() {
  local name=$1
  shift
  if "$@" >"$tmp/out" 2>"$tmp/err"; then echo "ok jacobian_errors.$name"
  else echo "FAIL jacobian_errors.$name: $(head -1 "$tmp/err")"; fi
}

for s in loop rec ptr; do works "generate_$s" "$DIAGC" "$tmp/$s.lua" -o "$tmp/$s.c"; done
works run_default_fd "$DIAGC" run "$tmp/rec.lua" --integrator radau3 --until 0.1
one_error loop_linearize 7:21 "a for loop with a non-constant bound" "$DIAGC" linearize "$tmp/loop.lua" --input u=0
one_error loop_run_model 7:21 "a for loop with a non-constant bound" \
  "$DIAGC" run "$tmp/loop.lua" --integrator radau3 --jacobian model --until 0.1
one_error recursion_linearize 3:60 "recursion: fact -> fact" "$DIAGC" linearize "$tmp/rec.lua"
one_error pointer_linearize 3:84 "a pointer dereference" "$DIAGC" linearize "$tmp/ptr.lua"
works loop_linearize_fd "$DIAGC" linearize "$tmp/loop.lua" --input u=0 --jacobian fd
if "$DIAGC" linearize "$tmp/ptrfd.lua" --format csv >"$tmp/csv" 2>"$tmp/err" &&
   grep -qx 'A,l.z\[0\],l.z\[0\],-1' "$tmp/csv" && "$DIAGC" "$tmp/ptrfd.lua" -o "$tmp/ptrfd.c" &&
   grep -q 'define PTR_HAS_JAC_XC 1' "$tmp/ptrfd.h"; then
  echo "ok jacobian_errors.finite_difference_calc"
else
  echo "FAIL jacobian_errors.finite_difference_calc: $(tr '\n' '|' <"$tmp/csv") $(head -1 "$tmp/err")"
fi
