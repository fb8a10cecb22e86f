#!/usr/bin/env bash
# tests/cli/no_jacobian.sh: `diagc SPEC.lua -o OUT.c --no-jacobian` leaves
# the Jacobians out of a model that has them (docs/jacobians.md):
# P_HAS_JAC_XC and P_HAS_JAC_LIN are 0, no P_jac_xc or P_jac_lin is
# written, the descriptor's jac_xc and jac_lin are NULL with no pattern,
# and the model compiles strictly and runs as before;
# without the option the same spec has its Jacobian.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/pend.lua" <<'EOF2'
local Pend = leaf "Pend" {
  continuous_state { q = { "th" }, v = { "om" } },
  parameter { "g", default = { 9.81 } },
  derivatives { prerequisites = { "q", "v", "g" },
    calc = [[ qdot[0] = v[0]; vdot[0] = -g[0] * sin(q[0]) - 0.5 * v[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "q" }, calc = [[ y[0] = q[0]; ]] },
}
return diagram "pend" { system { "p", Pend } }
EOF2
cat >"$tmp/main.c" <<'EOF2'
#include "model.h"
#include <math.h>
typedef char no_jacobian[PEND_HAS_JAC_XC == 0 && PEND_HAS_JAC_LIN == 0 ? 1 : -1];
int main(void)
{
  pend_context c;
  const double x[PEND_NXC] = { 0.5, 0.25 };
  const double *xd;
  pend_init(&c);
  pend_set_xc(&c, x);
  if (pend_calc_derivatives(&c, &xd) != 0) return 1;
  if (pend_model.jac_xc != NULL || pend_model.jac_xc_nnz != 0 ||
      pend_model.jac_xc_colptr != NULL || pend_model.jac_xc_rowind != NULL) return 2;
  if (pend_model.jac_lin != NULL || pend_model.jac_lin_nnz != 0 || pend_model.jac_p != NULL) return 3;
  return !(xd[0] == 0.25 && fabs(xd[1] - (-9.81 * sin(0.5) - 0.125)) < 1e-15);
}
EOF2
FLAGS="-std=c99 -Wall -Wextra -Werror -pedantic -Iruntime/include"
if $DIAGC "$tmp/pend.lua" -o "$tmp/with.c" 2>"$tmp/err" &&
   grep -q "^#define PEND_HAS_JAC_XC 1$" "$tmp/with.h"; then
  echo "ok no_jacobian.default_has_jacobian"
else
  echo "FAIL no_jacobian.default_has_jacobian: $(head -3 "$tmp/err" "$tmp/with.h" 2>/dev/null | tr '\n' ' ' | cut -c1-300)"
fi
if $DIAGC "$tmp/pend.lua" -o "$tmp/model.c" --no-jacobian 2>"$tmp/err" &&
   grep -q "^#define PEND_HAS_JAC_XC 0$" "$tmp/model.h" &&
   grep -q "^#define PEND_HAS_JAC_LIN 0$" "$tmp/model.h" &&
   ! grep -q "jac_xc(\|jac_lin(" "$tmp/model.h" "$tmp/model.c"; then
  echo "ok no_jacobian.header"
else
  echo "FAIL no_jacobian.header: $(head -3 "$tmp/err" | tr '\n' ' ')"
fi
for cc in gcc clang; do
  command -v "$cc" >/dev/null 2>&1 || { echo "skip no_jacobian.compile_$cc: no $cc"; continue; }
  if $cc $FLAGS -I"$tmp" "$tmp/main.c" "$tmp/model.c" -lm -o "$tmp/main_$cc" 2>"$tmp/err" && "$tmp/main_$cc"; then
    echo "ok no_jacobian.compile_$cc"
  else
    echo "FAIL no_jacobian.compile_$cc: exit $? $(head -3 "$tmp/err" | tr '\n' ' ')"
  fi
done
# the same bytes for the same input
if $DIAGC "$tmp/pend.lua" -o "$tmp/again.c" --no-jacobian 2>"$tmp/err" &&
   cmp -s <(sed 's/again\.\([ch]\)"/model.\1"/' "$tmp/again.c") "$tmp/model.c"; then
  echo "ok no_jacobian.deterministic"
else
  echo "FAIL no_jacobian.deterministic: $(head -3 "$tmp/err" | tr '\n' ' ')"
fi
