#!/usr/bin/env bash
# diagc run: --plot (gnuplot), the progress bar, every integrator name, and
# the checker's errors for witness declarations.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; }

# --plot draws a PNG with gnuplot (install it as CI would)
scripts/install-deps.sh gnuplot-nox >/dev/null 2>&1
if command -v gnuplot >/dev/null; then
  if $DIAGC run examples/bouncing_ball.lua --until 2 --plot "$tmp/b.png" >"$tmp/out" 2>"$tmp/err" &&
     [ "$(head -c 4 "$tmp/b.png" | od -An -c | tr -d ' ')" = '211PNG' ] && [ ! -s "$tmp/out" ]; then
    ok run.plot_png
  else
    fail run.plot_png "$(head -2 "$tmp/err")"
  fi
  if $DIAGC run examples/hybrid_controller.lua --plot "$tmp/h.png" --csv "$tmp/h.csv" 2>"$tmp/err" &&
     [ -s "$tmp/h.png" ] && [ "$(head -1 "$tmp/h.csv")" = "t,plant.y,controller.u_out,supervisor.r" ]; then
    ok run.plot_and_csv
  else
    fail run.plot_and_csv "$(head -2 "$tmp/err")"
  fi
else
  echo "skip run.plot_png: gnuplot could not be installed"
  echo "skip run.plot_and_csv: gnuplot could not be installed"
fi
# without gnuplot on PATH: one clear error, exit 2
PATH=/nonexistent "$PWD/$DIAGC" run examples/bouncing_ball.lua --plot "$tmp/x.png" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && grep -q "needs gnuplot" "$tmp/err" && [ "$(wc -l <"$tmp/err")" = 1 ]; then
  ok run.plot_without_gnuplot
else
  fail run.plot_without_gnuplot "rc $rc: $(cat "$tmp/err")"
fi
$DIAGC run examples/bouncing_ball.lua --plot "$tmp/no/such/dir.png" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && grep -q "cannot write" "$tmp/err"; then ok run.plot_bad_path; else fail run.plot_bad_path "rc $rc"; fi

# progress bar on stderr (forced: stderr is not a terminal here), cleared at
# the end; the CSV is identical to a run without it
$DIAGC run examples/spring_mass.lua --integrator explicit_euler --step 1e-6 --until 3 --progress \
  --csv "$tmp/p1.csv" 2>"$tmp/progress"
$DIAGC run examples/spring_mass.lua --integrator explicit_euler --step 1e-6 --until 3 \
  --csv "$tmp/p2.csv" 2>"$tmp/noprogress"
if grep -q '%  t = ' "$tmp/progress" && grep -q $'\033\[K' "$tmp/progress" && [ ! -s "$tmp/noprogress" ] &&
   cmp -s "$tmp/p1.csv" "$tmp/p2.csv"; then
  ok run.progress_bar
else
  fail run.progress_bar "stderr: $(head -c 200 "$tmp/progress" | tr '\r\033' '  ')"
fi

# every integrator runs with a fixed step of 0.01; the spring's x(1) = cos(1)
# to the method's order: errors are about 2.7e-3 (order 1), 1.4e-5 (2),
# 2.3e-8 (3), 7e-11 (4), 1.5e-14 (5), and each bound lies below the error of
# a method one order lower
for spec in explicit_euler:1e-2 semi_explicit_euler:1e-2 implicit_euler:1e-2 \
            runge_kutta2:5e-5 runge_kutta3:1e-7 bogacki_shampine3:1e-7 \
            runge_kutta4:3e-10 dormand_prince54:1e-12; do
  integ=${spec%%:*} bound=${spec#*:}
  x=$($DIAGC run examples/spring_mass.lua --until 1 --integrator $integ --step 0.01 2>"$tmp/err" | tail -1 | cut -d, -f2)
  if [ -n "$x" ] && awk -v x="$x" -v b="$bound" 'BEGIN { d = x - cos(1); exit !(d < b && d > -b) }'; then
    ok run.integrator.$integ
  else
    fail run.integrator.$integ "x(1) = '$x', want cos(1) within $bound $(head -1 "$tmp/err")"
  fi
done
$DIAGC run examples/spring_mass.lua --integrator radau9 >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && grep -q "unknown integrator 'radau9'" "$tmp/err"; then ok run.integrator.unknown; else fail run.integrator.unknown "rc $rc"; fi
$DIAGC run examples/bouncing_ball.lua --until 1.5 --stats >/dev/null 2>"$tmp/err"
if grep -q "witness crossings 2" "$tmp/err"; then ok run.stats_witness; else fail run.stats_witness "$(cat "$tmp/err")"; fi

# a witness that crosses exactly on a log time (z' = 1 crosses 0.5 at
# t = 0.5, a step's end): both fire there, the log row is kept
cat >"$tmp/wlog.lua" <<'EOF2'
local Clock = leaf "Clock" {
  continuous_state { z = { "s" }, z0 = { 0.0 } },
  derivatives { prerequisites = { "nothing" }, calc = [[ zdot[0] = 1.0; ]] },
  witness { "half", direction = "positive_to_nonpositive", prerequisites = { "z" },
    calc = [[ value = 0.5 - z[0]; ]], publish = [[ ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
}
return diagram "wl" { system { "c", Clock }, log { "c.y", period = 0.25 } }
EOF2
if $DIAGC run "$tmp/wlog.lua" --until 1 --stats >"$tmp/out" 2>"$tmp/err" &&
   [ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "t 0 0.25 0.5 0.75 1 " ] && grep -q "witness crossings 1" "$tmp/err"; then
  ok run.witness_on_a_log_time
else
  fail run.witness_on_a_log_time "$(tr '\n' ' ' <"$tmp/out") $(cat "$tmp/err")"
fi

# witness declarations the checker rejects: one line, exit 2
bad() {
  local name=$1 want=$2 body=$3
  printf '%s\n' "$body" >"$tmp/$name.lua"
  $DIAGC "$tmp/$name.lua" -o "$tmp/$name.c" >/dev/null 2>"$tmp/err"
  local rc=$?
  if [ $rc = 2 ] && grep -q -- "$want" "$tmp/err" && [ "$(wc -l <"$tmp/err")" = 1 ]; then
    ok "witness_check.$name"
  else
    fail "witness_check.$name" "rc $rc: $(cat "$tmp/err")"
  fi
}
LEAF_HEAD='local B = leaf "B" { continuous_state { q = { "y" }, v = { "vy" } },
  derivatives { prerequisites = { "v" }, calc = [[ qdot[0] = v[0]; vdot[0] = -1; ]] },'
TAIL='}
return diagram "d" { system { "b", B } }'
bad direction "direction must be" "$LEAF_HEAD witness { \"w\", direction = \"down\", prerequisites = { \"q\" }, calc = [[ value = q[0]; ]] }, $TAIL"
bad two_events "both publish and unrestricted_update" "$LEAF_HEAD witness { \"w\", direction = \"crossing\", prerequisites = { \"q\" }, calc = [[ value = q[0]; ]], publish = [[ ]], unrestricted_update = [[ ]] }, $TAIL"
bad no_calc "needs a calc" "$LEAF_HEAD witness { \"w\", direction = \"crossing\" }, $TAIL"
bad scope "reads 'v'" "$LEAF_HEAD witness { \"w\", direction = \"crossing\", prerequisites = { \"q\" }, calc = [[ value = v[0]; ]] }, $TAIL"
bad writes "cannot write 'xd'" "$LEAF_HEAD witness { \"w\", direction = \"crossing\", prerequisites = { \"q\" }, calc = [[ value = q[0]; ]], unrestricted_update = [[ ]], writes = { \"xd\" } }, $TAIL"
bad duplicate "already has" "$LEAF_HEAD witness { \"w\", direction = \"crossing\", prerequisites = { \"q\" }, calc = [[ value = q[0]; ]] }, witness { \"w\", direction = \"crossing\", prerequisites = { \"q\" }, calc = [[ value = q[0]; ]] }, $TAIL"
bad value_name "named 'value'" "$LEAF_HEAD parameter { \"value\", default = { 1 } }, witness { \"w\", direction = \"crossing\", prerequisites = { \"q\" }, calc = [[ value = q[0]; ]] }, $TAIL"
exit 0
