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
   grep -q '^world world: steps over the LCP work budget 0, steps with contacts dropped (max_contacts = 120) 0, contacts dropped 0, steps with an LCP left inexact 0; last step: contacts 20, dropped 0, ' "$tmp/stats"; then
  echo "ok world.run_stats"
else
  echo "FAIL world.run_stats: $(tr '\n' ' ' <"$tmp/stats")"
fi

# effort limits (docs/world.md, "Joint limits"): an input of 5 N m on a
# joint limited to 1 N m is clamped at every one of the 100 steps
cat >"$tmp/clamp.lua" <<'EOF2'
local W = world "w" { gravity = { 0, 0, 0 }, gradients = false,
  body { "rod", mass = 1, com = { 0.5, 0, 0 }, inertia = { 0.01, 0.01, 0.01 },
    joint = { "revolute", axis = { 0, 1, 0 }, actuated = true, limit = { effort = 1 } } } }
return diagram "d" { system { "w", W }, fix_input { "w.effort", value = { 5 } } }
EOF2
if $DIAGC run "$tmp/clamp.lua" --until 0.1 --stats >/dev/null 2>"$tmp/stats" &&
   grep -q '^world w: .*, steps with an effort clamped 100 (last step: 1 efforts), steps with an LCP left inexact 0; last step: contacts 0, ' "$tmp/stats"; then
  echo "ok world.run_stats_effort_clamped"
else
  echo "FAIL world.run_stats_effort_clamped: $(tr '\n' ' ' <"$tmp/stats")"
fi

# capacity (docs/world.md, "Capacity"): a stack of 20 cubes needs 80
# contacts (4 per resting face); with max_contacts = 40 the run stops with
# exit status 2 and one line naming the world, the time, the count and the
# cap; with contact_overflow = "drop" it goes on and --stats counts the drops
# (the first step drops 80 - 40; every step of 0.1 s drops some)
stack20() {
  cat <<EOF2
local n, a = 20, 0.2
local items = { time_step = 1e-3, friction = 0.6, gradients = false, max_contacts = 40, $1 }
items[1] = body { "ground", joint = { "fixed" }, shapes = { { "plane" } } }
for i = 1, n do
  items[#items + 1] = body { "box" .. i, mass = 1, inertia = { a * a / 6, a * a / 6, a * a / 6 },
    joint = { "free", q = { 0, 0, a / 2 + (i - 1) * a, 1, 0, 0, 0 } }, shapes = { { "box", size = { a, a, a } } } }
end
return diagram "s" { system { "tower", world "tower" (items) }, log { "tower.position", period = 0.01 } }
EOF2
}
stack20 "" >"$tmp/stop.lua"
$DIAGC run "$tmp/stop.lua" --until 0.1 --csv "$tmp/stop.csv" 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -e "$tmp/stop.csv" ] &&
   grep -qxF 'diagc: diagc run: simulation failed: world "tower" needs 80 contacts at t = 0 s, more than max_contacts = 40; raise max_contacts to at least 80 or set contact_overflow = "drop" (docs/world.md, "Capacity")' "$tmp/err"; then
  echo "ok world.contacts_over_max_stop"
else
  echo "FAIL world.contacts_over_max_stop: exit $rc: $(head -c 400 "$tmp/err")"
fi
stack20 'contact_overflow = "drop"' >"$tmp/drop.lua"
if $DIAGC run "$tmp/drop.lua" --until 0.1 --stats >/dev/null 2>"$tmp/stats" &&
   line=$(grep '^world tower: ' "$tmp/stats") &&
   steps=$(printf '%s' "$line" | sed -n 's/.*steps with contacts dropped (max_contacts = 40) \([0-9]*\), contacts dropped \([0-9]*\), steps with an LCP left inexact [0-9]*; last step: contacts 40, dropped \([0-9]*\),.*/\1 \2 \3/p') &&
   set -- $steps && [ "$1" = 100 ] && [ "$2" -ge $((40 + 99)) ] && [ "$3" -ge 1 ]; then
  echo "ok world.contacts_over_max_drop_stats"
else
  echo "FAIL world.contacts_over_max_drop_stats: $(tr '\n' ' ' <"$tmp/stats")"
fi

# diagc linearize through a world and its controller (the cartpole at its
# equilibrium: cart at the PD target, pole hanging): generated Jacobians
# (the world's rows from its grad entry) against finite differences (the
# world's info state left out: A is the loop's 4 x 4, about 40 numbers)
if $DIAGC linearize examples/world/cartpole.lua --state plant.pos=1,0 --format json >"$tmp/lin.json" 2>"$tmp/err" &&
   $DIAGC linearize examples/world/cartpole.lua --state plant.pos=1,0 --format json --jacobian fd >"$tmp/linfd.json" 2>>"$tmp/err" &&
   grep -oE -- '-?[0-9][0-9.]*([eE][-+]?[0-9]+)?' "$tmp/lin.json" >"$tmp/a" &&
   grep -oE -- '-?[0-9][0-9.]*([eE][-+]?[0-9]+)?' "$tmp/linfd.json" >"$tmp/b" &&
   [ "$(wc -l <"$tmp/a")" = "$(wc -l <"$tmp/b")" ] && [ "$(wc -l <"$tmp/a")" -gt 30 ] &&
   paste "$tmp/a" "$tmp/b" | awk '{ d = $1 - $2; if (d < 0) d = -d; m = $2 < 0 ? -$2 : $2; if (m < 1) m = 1;
     if (d > 1e-7 * m) { print "entry " NR ": " $1 " vs " $2 > "/dev/stderr"; bad = 1 } } END { exit bad }' 2>>"$tmp/err"; then
  echo "ok world.linearize_generated"
else
  echo "FAIL world.linearize_generated: $(head -3 "$tmp/err" | tr '\n' ' ')"
fi
