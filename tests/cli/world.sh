#!/usr/bin/env bash
# tests/cli/world.sh: the compiled world's generated C and commands
# (docs/world.md): every example world generates byte-identical C twice,
# compiles under gcc, clang and tcc at -std=c99 -Wall -Wextra -Werror
# -pedantic, holds no heap call, and links into a program that steps the
# ball with the runtime's simulator; `diagc run --stats` reports the
# world's contact counts.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
FLAGS="-std=c99 -Wall -Wextra -Werror -pedantic -Iruntime/include"

for spec in examples/world/*.lua; do
  case $spec in *_test.lua) continue ;; esac
  name=$(basename "$spec" .lua)
  mkdir -p "$tmp/again"
  if ! $DIAGC "$spec" -o "$tmp/$name.c" 2>"$tmp/err" || ! $DIAGC "$spec" -o "$tmp/again/$name.c" 2>>"$tmp/err"; then
    echo "FAIL world.generate.$name: $(head -2 "$tmp/err" | tr '\n' ' ')"; continue
  fi
  if ! cmp -s "$tmp/$name.h" "$tmp/again/$name.h" || ! cmp -s "$tmp/again/$name.c" "$tmp/$name.c"; then
    echo "FAIL world.generate.$name: two runs differ"; continue
  fi
  echo "ok world.generate.$name"
  for cc in gcc clang tcc; do
    if ! command -v $cc >/dev/null; then echo "ok world.compile.$name.$cc # SKIP no $cc"; continue; fi
    if $cc $FLAGS -c "$tmp/$name.c" -I"$tmp" -o "$tmp/$name.$cc.o" 2>"$tmp/err"; then
      echo "ok world.compile.$name.$cc"
    else
      echo "FAIL world.compile.$name.$cc: $(head -3 "$tmp/err" | tr '\n' ' ')"
    fi
  done
  if grep -Eq '\b(malloc|calloc|realloc|free)\s*\(' "$tmp/$name.c" "$tmp/$name.h"; then
    echo "FAIL world.no_heap.$name"
  else
    echo "ok world.no_heap.$name"
  fi
done

# a C program steps the ball 1.5 s through the runtime's simulator
cat >"$tmp/main.c" <<'EOF2'
#include <stdio.h>
#include "ball.h"
#include "diagc/simulator.h"
int main(void)
{
  diagc_sim *sim = diagc_sim_create(&ball_model, NULL);
  if (!sim || diagc_sim_advance_to(sim, 1.5) != 0) return 1;
  const ball_context *c = (const ball_context *)diagc_sim_context(sim);
  printf("%.6f\n", c->x.xd[2]);
  diagc_sim_destroy(sim);
  return 0;
}
EOF2
if cc $FLAGS -I"$tmp" "$tmp/main.c" "$tmp/ball.c" lib/libdiagc.a -lm -lpthread -o "$tmp/main" 2>"$tmp/err" &&
   z=$("$tmp/main") && awk -v z="$z" 'BEGIN { exit !(z > 0.09 && z < 1.2) }'; then
  echo "ok world.c_program"
else
  echo "FAIL world.c_program: $(head -3 "$tmp/err" | tr '\n' ' ') z=${z:-}"
fi

if $DIAGC run examples/world/stack.lua --until 0.2 --stats >/dev/null 2>"$tmp/stats" &&
   grep -q '^world world: steps over the LCP work budget 0, steps with contacts dropped (max_contacts) 0; last step: contacts 20, ' "$tmp/stats"; then
  echo "ok world.run_stats"
else
  echo "FAIL world.run_stats: $(tr '\n' ' ' <"$tmp/stats")"
fi

# diagc linearize through a world and its controller (the cartpole at its
# equilibrium: cart at the PD target, pole hanging): generated Jacobians
# (the world's rows from its grad entry) against finite differences
if $DIAGC linearize examples/world/cartpole.lua --state plant.pos=1,0 --format json >"$tmp/lin.json" 2>"$tmp/err" &&
   $DIAGC linearize examples/world/cartpole.lua --state plant.pos=1,0 --format json --jacobian fd >"$tmp/linfd.json" 2>>"$tmp/err" &&
   grep -oE -- '-?[0-9][0-9.]*([eE][-+]?[0-9]+)?' "$tmp/lin.json" >"$tmp/a" &&
   grep -oE -- '-?[0-9][0-9.]*([eE][-+]?[0-9]+)?' "$tmp/linfd.json" >"$tmp/b" &&
   [ "$(wc -l <"$tmp/a")" = "$(wc -l <"$tmp/b")" ] && [ "$(wc -l <"$tmp/a")" -gt 100 ] &&
   paste "$tmp/a" "$tmp/b" | awk '{ d = $1 - $2; if (d < 0) d = -d; m = $2 < 0 ? -$2 : $2; if (m < 1) m = 1;
     if (d > 1e-7 * m) { print "entry " NR ": " $1 " vs " $2 > "/dev/stderr"; bad = 1 } } END { exit bad }' 2>>"$tmp/err"; then
  echo "ok world.linearize_generated"
else
  echo "FAIL world.linearize_generated: $(head -3 "$tmp/err" | tr '\n' ' ')"
fi
