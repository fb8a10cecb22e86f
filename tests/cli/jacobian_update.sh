#!/usr/bin/env bash
# tests/cli/jacobian_update.sh: the periodic updates' Jacobians and the
# Jacobians as cache entries from C (docs/jacobians.md, "Periodic updates";
# docs/generated-c-api.md, "Counters"): the hybrid_controller example built
# natively (gcc/cc with ASan and UBSan where available), its
# P_jac_update0/1 against the analytic values, the descriptor's
# jac_updates and cache table, eval_cache on a Jacobian entry, the
# counters (a repeat is a bit test; a change the Jacobian does not depend
# on leaves it valid, one it depends on recomputes it); diagc graph and
# diagc info show the Jacobian entries.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok jacobian_update.$1"; }
bad() { echo "FAIL jacobian_update.$1: $2"; }

cat >"$tmp/main.c" <<'EOF2'
#include <stdio.h>
#include <string.h>
#include "model.h"
#define P(x) hybrid_controller_##x
#define REQUIRE(c) do { if (!(c)) { printf("failed: %s (line %d)\n", #c, __LINE__); return 1; } } while (0)
int main(void)
{
  P(context) c;
  double nz0[HYBRID_CONTROLLER_JAC_UPDATE0_NNZ], nz1[HYBRID_CONTROLLER_JAC_UPDATE1_NNZ];
  const double gain = 3.0, x = 0.25;
  const diagc_model *m = &P(model);
  const double *v;
  int k, e0 = -1;
  P(init)(&c);
  P(set_controller__gain)(&c, &gain);
  P(set_xc)(&c, &x);
  /* d x+ / d(xc, xd): columns plant.x, controller.u, controller.ticks,
     supervisor.setpoint, supervisor.ticks; rows the same */
  REQUIRE(P(jac_update0)(&c, nz0) == 0);
  REQUIRE(HYBRID_CONTROLLER_JAC_UPDATE0_NROW == 5 && HYBRID_CONTROLLER_JAC_UPDATE0_NCOL == 5);
  /* column 0 (plant.x): rows plant.x (1) and controller.u (-gain) */
  REQUIRE(P(jac_update0_sparsity)[2] == 0 && P(jac_update0_sparsity)[3] == 2);
  REQUIRE(nz0[0] == 1.0 && nz0[1] == -gain);
  REQUIRE(P(jac_update1)(&c, nz1) == 0);
  REQUIRE(m->abi_version == DIAGC_ABI_VERSION && m->n_jac_updates == 2);
  REQUIRE(m->jac_updates[0].period == 0.01 && m->jac_updates[1].period == 0.1);
  REQUIRE(m->jac_updates[0].nnz == HYBRID_CONTROLLER_JAC_UPDATE0_NNZ && m->jac_updates[0].jac != NULL);
  REQUIRE(m->first_jac_cache == HYBRID_CONTROLLER_NCACHE);
  for (k = m->first_jac_cache; k < m->n_cache; ++k) {
    if (strcmp(m->cache[k].name, "jac_update0") == 0) e0 = k;
  }
  REQUIRE(e0 >= 0 && m->cache[e0].size == HYBRID_CONTROLLER_JAC_UPDATE0_NNZ);
  REQUIRE(m->eval_cache(&c, e0, &v) == 0 && v != NULL && v[1] == -gain);
  {
    const uint64_t *calcs = (const uint64_t *)(const void *)((const char *)&c + m->n_calc_offset);
    const uint64_t *evals = (const uint64_t *)(const void *)((const char *)&c + m->n_eval_offset);
    const double t = 0.3, g2 = 5.0;
    REQUIRE(calcs[e0] == 1 && evals[e0] == 2);
    P(set_time)(&c, t); /* the controller's update does not read the time */
    REQUIRE(P(jac_update0)(&c, nz0) == 0 && calcs[e0] == 1);
    P(set_controller__gain)(&c, &g2);
    REQUIRE(P(jac_update0)(&c, nz0) == 0 && calcs[e0] == 2 && nz0[1] == -g2);
  }
  puts("done");
  return 0;
}
EOF2

SAN=""
if echo 'int main(void){return 0;}' | cc -fsanitize=address,undefined -x c - -o "$tmp/san" 2>/dev/null; then
  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer"
fi
FLAGS="-std=c99 -Wall -Wextra -Werror -pedantic -Iruntime/include"
if $DIAGC examples/hybrid_controller.lua -o "$tmp/model.c" 2>"$tmp/err" &&
   cc $FLAGS $SAN -I"$tmp" "$tmp/main.c" "$tmp/model.c" -lm -o "$tmp/main" 2>>"$tmp/err" &&
   "$tmp/main" >"$tmp/out" 2>>"$tmp/err" && grep -q '^done$' "$tmp/out"; then
  ok native
else
  bad native "$(cat "$tmp/out" 2>/dev/null | tr '\n' ' ') $(head -5 "$tmp/err" | tr '\n' ' ')"
fi

# diagc graph: the Jacobian nodes and their prerequisite edges
if $DIAGC graph examples/hybrid_controller.lua -o "$tmp/g.dot" 2>"$tmp/err" &&
   grep -q '"jac_update1" \[label="jac_update1", shape=box3d' "$tmp/g.dot" &&
   [ "$(grep -c ' -> "jac_update0" \[color=purple\];' "$tmp/g.dot")" = 4 ] &&
   grep -q ' -> "jac_xc" \[color=purple\];' "$tmp/g.dot"; then
  ok graph
else
  bad graph "$(grep jac "$tmp/g.dot" 2>/dev/null | head -5 | tr '\n' ' ') $(head -2 "$tmp/err")"
fi

# diagc info: a section listing them
if $DIAGC info examples/hybrid_controller.lua >"$tmp/info" 2>"$tmp/err" &&
   grep -q '^jacobians (cache entries):$' "$tmp/info" &&
   grep -Eq '^  jac_update0 +nnz 6  <- controller.input:r, controller.input:y, controller.pn:gain, controller.xd:ticks$' "$tmp/info"; then
  ok info
else
  bad info "$(tail -6 "$tmp/info" | tr '\n' '|') $(head -2 "$tmp/err")"
fi
