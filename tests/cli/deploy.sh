#!/usr/bin/env bash
# tests/cli/deploy.sh: `diagc deploy` on examples/deploy_controller_plant.lua:
# the app and the two models are generated, compile warning-free with gcc
# against the runtime library, run for 1 s on the executor and report
# traffic on both topics; the deployed plant's final position agrees with
# `diagc run` of the same diagram (the zero-latency reference) at the same
# time.  Bad usage exits with status 2.
set -u
DIAGC=${DIAGC:-bin/diagc}
spec=examples/deploy_controller_plant.lua
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if $DIAGC deploy "$spec" -o "$tmp/app.c" 2>"$tmp/err" && [ -f "$tmp/controller.c" ] && [ -f "$tmp/plant.h" ]; then
  echo "ok deploy_generate"
else
  echo "FAIL deploy_generate: $(head -3 "$tmp/err")"; exit 0
fi
if gcc -std=c11 -O2 -Wall -Wextra -Werror -Iruntime/include -I"$tmp" "$tmp/app.c" "$tmp/controller.c" "$tmp/plant.c" \
     lib/libdiagc.a -lm -lpthread -o "$tmp/app" 2>"$tmp/cc.err"; then
  echo "ok deploy_compile"
else
  echo "FAIL deploy_compile: $(head -5 "$tmp/cc.err")"; exit 0
fi
"$tmp/app" --duration 1 --threads 2 >"$tmp/out" 2>"$tmp/run.err"
rc=$?
recv() { sed -n "s/^topic $1 -> $2: received \\([0-9]*\\),.*/\\1/p" "$tmp/out"; }
y2c=$(recv plant.y controller.y)
c2p=$(recv controller.u plant.u)
if [ $rc -eq 0 ] && [ -n "$y2c" ] && [ "$y2c" -gt 0 ] && [ -n "$c2p" ] && [ "$c2p" -gt 0 ] &&
   grep -q '^topic plant.y -> controller.y: received [0-9]*, latency mean [0-9.]* us, max [0-9.]* us, dropped' "$tmp/out"; then
  echo "ok deploy_run_reports_latency"
else
  echo "FAIL deploy_run_reports_latency: exit $rc: $(cat "$tmp/out" "$tmp/run.err" | head -8)"
fi
# the binding and the executor under ASan + UBSan (the runtime from source)
if gcc -std=c11 -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -Iruntime/include -I"$tmp" \
     "$tmp/app.c" "$tmp/controller.c" "$tmp/plant.c" runtime/src/*.c -lm -lpthread -o "$tmp/app_asan" 2>"$tmp/cc.err"; then
  out=$(UBSAN_OPTIONS=halt_on_error=1 "$tmp/app_asan" --duration 0.3 --threads 2 2>&1); rc=$?
  if [ $rc -eq 0 ] && grep -q '^topic plant.y -> controller.y: received [1-9]' <<<"$out"; then echo "ok deploy_asan"
  else echo "FAIL deploy_asan: exit $rc: $(head -20 <<<"$out")"; fi
else
  echo "FAIL deploy_asan: compilation failed: $(head -5 "$tmp/cc.err")"
fi
# final plant position vs the simulation of the whole diagram
line=$(grep '^final plant.y at t = ' "$tmp/out")
t=$(sed -n 's/^final plant.y at t = \([0-9.]*\):.*/\1/p' <<<"$line")
y=$(sed -n 's/^final plant.y at t = [0-9.]*: \([-0-9.e+]*\).*/\1/p' <<<"$line")
if [ -z "$t" ] || [ -z "$y" ]; then
  echo "FAIL deploy_matches_simulation: no final plant.y line"
else
  $DIAGC run "$spec" --until 1.1 >"$tmp/sim.csv" 2>/dev/null
  ref=$(awk -F, -v t="$t" 'NR > 1 { d = $1 - t; if (d < 0) d = -d; if (best == "" || d < best) { best = d; y = $2 } } END { print y }' "$tmp/sim.csv")
  if awk -v a="$y" -v b="$ref" -v t="$t" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(t > 0.9 && d < 0.02) }'; then
    echo "ok deploy_matches_simulation"
  else
    echo "FAIL deploy_matches_simulation: deployed y($t) = $y, simulated $ref"
  fi
fi
# the one-command form: generate, build and run in a temporary directory
out=$($DIAGC deploy "$spec" --run --duration 0.3 --threads 1 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^topic controller.u -> plant.u: received [1-9]' <<<"$out"; then echo "ok deploy_run_one_command"
else echo "FAIL deploy_run_one_command: exit $rc: $(head -5 <<<"$out")"; fi
# usage errors: one line, status 2
"$tmp/app" --bogus >/dev/null 2>"$tmp/e"; rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ]; then echo "ok deploy_app_bad_argument"; else echo "FAIL deploy_app_bad_argument: exit $rc"; fi
$DIAGC deploy "$spec" >/dev/null 2>"$tmp/e"; rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ]; then echo "ok deploy_missing_output"; else echo "FAIL deploy_missing_output: exit $rc $(cat "$tmp/e")"; fi
$DIAGC deploy "$spec" -o "$tmp/x.c" --duration 1 >/dev/null 2>"$tmp/e"; rc=$?
if [ $rc -eq 2 ]; then echo "ok deploy_run_options_need_run"; else echo "FAIL deploy_run_options_need_run: exit $rc"; fi
# a subsystem without periodic events cannot be deployed: the app says so
cat > "$tmp/noevent.lua" <<'LUA'
local G = leaf "Gain" {
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "u" }, calc = [[ y[0] = 2.0 * u[0]; ]] },
}
local S = leaf "Src" {
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
  periodic_publish { "tick", period = 0.01, prerequisites = { "time" }, calc = [[ (void)t; ]] },
}
return diagram "noevent" { system { "src", S }, system { "gain", G }, connect { "src.y", "gain.u" } }
LUA
# diagc deploy refuses it before building (one line at the subsystem's
# spec line, exit 2, nothing written); the app keeps its own check for
# hand-written bindings
mkdir -p "$tmp/ne"
$DIAGC deploy "$tmp/noevent.lua" -o "$tmp/ne/app.c" 2>"$tmp/e"; rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q "noevent.lua:9: subsystem 'gain' has no periodic event" "$tmp/e" &&
   [ -z "$(ls -A "$tmp/ne")" ]; then echo "ok deploy_model_without_periodic_event"
else echo "FAIL deploy_model_without_periodic_event: exit $rc: $(cat "$tmp/e")"; fi
exit 0
