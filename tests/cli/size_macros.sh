#!/usr/bin/env bash
# tests/cli/size_macros.sh: the header's size macros (docs/generated-c-api.md)
# have the sizes the spec declares: state, parameters, the input vector u,
# every output port, exported and fixed input; a C program uses them as
# array sizes and compile-time checks.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/sizes.lua" <<'EOF2'
local Mix = leaf "Mix" {
  continuous_state { q = { "a", "b" }, v = { "c", "d" }, z = { "e" } },
  discrete_state { "h", size = 3 },
  parameter { "k", default = { 1, 2, 3, 4 } },
  input_port { "u", size = 2 },
  input_port { "w", size = 3 },
  output_port { "y", size = 5, prerequisites = { "u", "w" },
    calc = [[ int i; for (i = 0; i < 2; ++i) y[i] = u[i]; for (i = 0; i < 3; ++i) y[2 + i] = w[i]; ]] },
  derivatives { prerequisites = { "q", "v", "z" },
    calc = [[ qdot[0] = v[0]; qdot[1] = v[1]; vdot[0] = -q[0]; vdot[1] = -q[1]; zdot[0] = -z[0]; ]] },
}
return diagram "sizes" {
  system { "m", Mix },
  export_input { "m.u", as = "cmd" },
  fix_input { "m.w", value = { 1, 2, 3 } },
  export_output { "m.y", as = "out" },
}
EOF2
cat >"$tmp/main.c" <<'EOF2'
#include "model.h"
#define CHECK(name, cond) typedef char name[(cond) ? 1 : -1]
CHECK(nq, SIZES_NQ == 2);
CHECK(nv, SIZES_NV == 2);
CHECK(nz, SIZES_NZ == 1);
CHECK(nxc, SIZES_NXC == 5);
CHECK(nxd, SIZES_NXD == 3);
CHECK(npn, SIZES_NPN == 4);
CHECK(nu, SIZES_NU == 5);
CHECK(out, SIZES_OUT_out_SIZE == 5);
CHECK(leaf_out, SIZES_OUT_m__y_SIZE == 5);
CHECK(in, SIZES_IN_cmd_SIZE == 2);
CHECK(fixed, SIZES_FIXED_m__w_SIZE == 3);
int main(void)
{
  sizes_context c;
  const double u[SIZES_IN_cmd_SIZE] = { 7, 8 };
  const double *y;
  sizes_init(&c);
  sizes_set_input_cmd(&c, u);
  if (sizes_eval_out(&c, &y) != 0) return 1;
  return !(y[0] == 7 && y[1] == 8 && y[4] == 3);
}
EOF2
FLAGS="-std=c99 -Wall -Wextra -Werror -pedantic -Iruntime/include"
if $DIAGC "$tmp/sizes.lua" -o "$tmp/model.c" 2>"$tmp/err" &&
   cc $FLAGS -I"$tmp" "$tmp/main.c" "$tmp/model.c" -lm -o "$tmp/main" 2>>"$tmp/err" && "$tmp/main"; then
  echo "ok size_macros.values"
else
  echo "FAIL size_macros.values: $(head -3 "$tmp/err" | tr '\n' ' ')"
fi
