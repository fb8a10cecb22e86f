#!/usr/bin/env bash
# The optional CVODE backend (lib/libdiagc_cvode, diagc/cvode.h): installs
# libsundials-dev with the project's script (skip if impossible), builds
# the backend (make) and its sanitized copy (make asan-cvode), runs
# tests/cli/sim_cvode.c under ASan/UBSan against build/asan/libdiagc.a,
# then `diagc run --integrator cvode_bdf` end to end: the generated
# Robertson model against radau3, its --stats, and the one-line error when
# the backend library is missing.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! scripts/install-deps.sh libsundials-dev >"$tmp/install.log" 2>&1; then
  echo "skip sim_cvode: libsundials-dev could not be installed ($(tail -1 "$tmp/install.log"))"
  exit 0
fi
# SuiteSparse's KLU, for the sparse path (optional: without it the backend
# uses dense LU and the KLU checks print skip lines)
scripts/install-deps.sh libsuitesparse-dev >/dev/null 2>&1 || true
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory "$@"; }
if ! mk all asan-runtime asan-cvode >"$tmp/make.log" 2>&1; then
  echo "FAIL sim_cvode.build: $(grep -m1 -i error "$tmp/make.log" || tail -1 "$tmp/make.log")"
  exit 0
fi
libs=$(mk cvode-libs)
CC=${CC:-cc}
# shellcheck disable=SC2086
if ! $CC -std=c11 -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
     -Wall -Wextra -Werror -Iruntime/include -o "$tmp/sim_cvode" tests/cli/sim_cvode.c \
     build/asan/libdiagc_cvode.a build/asan/libdiagc.a $libs -ldl -lm -lpthread 2>"$tmp/err"; then
  echo "FAIL sim_cvode.compile: $(head -3 "$tmp/err" | tr '\n' ' ')"
  exit 0
fi
"$tmp/sim_cvode"   # its ok/FAIL lines (exit 1 after a FAIL line)
st=$?
[ $st -le 1 ] || echo "FAIL sim_cvode.program: exit status $st (crashed or a sanitizer report)"

# diagc run --integrator cvode_bdf on a generated model (Robertson's
# kinetics, logged every 10 s): the last row against radau3's at tight
# accuracy; --stats names the backend and the generated Jacobian
cat >"$tmp/rob.lua" <<'SPEC'
local Robertson = leaf "Robertson" {
  continuous_state { z = { "y1", "y2", "y3" }, z0 = { 1.0, 0.0, 0.0 } },
  derivatives { prerequisites = { "z" }, calc = [[
    zdot[0] = -0.04 * z[0] + 1e4 * z[1] * z[2];
    zdot[2] = 3e7 * z[1] * z[1];
    zdot[1] = -zdot[0] - zdot[2]; ]] },
  output_port { "y", size = 3, prerequisites = { "z" },
    calc = [[ y[0] = z[0]; y[1] = z[1]; y[2] = z[2]; ]] },
}
return diagram "rob" { system { "rob", Robertson }, log { "rob.y", period = 10 } }
SPEC
if ! $DIAGC run "$tmp/rob.lua" --integrator cvode_bdf --until 100 --max-step 100 --accuracy 1e-10 \
     --stats >"$tmp/cv.csv" 2>"$tmp/cv.err"; then
  echo "FAIL sim_cvode.run: $(head -1 "$tmp/cv.err")"
else
  $DIAGC run "$tmp/rob.lua" --integrator radau3 --until 100 --max-step 100 --accuracy 1e-11 \
    >"$tmp/ra.csv" 2>/dev/null
  d=$(paste -d, <(tail -1 "$tmp/cv.csv") <(tail -1 "$tmp/ra.csv") | awk -F, '{
        n = NF / 2; w = 0
        for (i = 2; i <= n; i++) { a = $i; b = $(i + n); f = (b < 0 ? -b : b); if (f < 1e-12) f = 1e-12
          e = (a - b) / f; if (e < 0) e = -e; if (e > w) w = e }
        print (n > 1 && $1 == $(n + 1)) ? w : "mismatch" }')
  if [ "$(wc -l <"$tmp/cv.csv")" = 12 ] && [ "$d" != mismatch ] &&
     awk -v d="$d" 'BEGIN { exit !(d < 1e-5) }'; then
    echo "ok sim_cvode.run.robertson_vs_radau3"
  else
    echo "FAIL sim_cvode.run.robertson_vs_radau3: rows $(wc -l <"$tmp/cv.csv"), worst relative difference $d"
  fi
  if grep -q "^integrator cvode_bdf (SUNDIALS [0-9.]*, [a-zA-Z ]* LU), jacobians [1-9][0-9]* (the model's generated Jacobian)" "$tmp/cv.err"; then
    echo "ok sim_cvode.run.stats"
  else
    echo "FAIL sim_cvode.run.stats: $(tr '\n' ' ' <"$tmp/cv.err")"
  fi
fi
# m:simulator{ integrator = "cvode_bdf" } in diagc test: the generated
# bouncing ball's witnesses (impact times against the analytic sequence)
cat >"$tmp/cvode_test.lua" <<'LUA'
local ffi = require("ffi")
local m = diagc.jit(diagc.root .. "/examples/bouncing_ball.lua")
test("sim_cvode.diagc_test.bouncing_ball_impacts", function()
  local h, g, e = 1.0, 9.81, 0.8
  local t1 = math.sqrt(2 * h / g)
  local want = { t1 }
  for k = 1, 5 do want[k + 1] = want[k] + 2 * e ^ k * g * t1 / g end
  local sim = m:simulator({ integrator = "cvode_bdf", accuracy = 1e-10 })
  local got, last = {}, nil
  local cb = ffi.cast("diagc_progress_fn", function(_, t)
    local v = sim.context:get("ball.vy")
    if last and last < 0 and v > 0 then got[#got + 1] = t end
    last = v
  end)
  ffi.C.diagc_sim_set_progress_callback(sim.sim, cb, nil)
  sim:initialize()
  sim:advance_to(want[6] + 0.01)
  ffi.C.diagc_sim_set_progress_callback(sim.sim, nil, nil)
  cb:free()
  eq(ffi.string(ffi.C.diagc_sim_integrator(sim.sim)), "cvode_bdf")
  truthy(#got >= 6, "six impacts")
  for k = 1, 6 do near(got[k], want[k], { atol = 1e-6 }) end
end)
LUA
$DIAGC test "$tmp/cvode_test.lua" 2>&1 | grep -E "^(ok|FAIL|skip) " || echo "FAIL sim_cvode.diagc_test: no result"
# no fixed steps
$DIAGC run "$tmp/rob.lua" --integrator cvode_bdf --step 0.1 >/dev/null 2>"$tmp/step.err"
rc=$?
if [ $rc = 2 ] && grep -q -- "--step: cvode_bdf chooses its own steps" "$tmp/step.err"; then
  echo "ok sim_cvode.run.no_fixed_steps"
else
  echo "FAIL sim_cvode.run.no_fixed_steps: exit $rc: $(tr '\n' ' ' <"$tmp/step.err")"
fi
# the backend missing: one line, exit 2
DIAGC_CVODE_LIBRARY="$tmp/none/libdiagc_cvode.so" $DIAGC run "$tmp/rob.lua" --integrator cvode_bdf \
  --until 1 >/dev/null 2>"$tmp/miss.err"
rc=$?
if [ $rc = 2 ] && [ "$(wc -l <"$tmp/miss.err")" = 1 ] &&
   grep -q "cvode_bdf needs libsundials-dev: install it with scripts/install-deps.sh libsundials-dev and rebuild" "$tmp/miss.err"; then
  echo "ok sim_cvode.run.missing_backend"
else
  echo "FAIL sim_cvode.run.missing_backend: exit $rc: $(tr '\n' ' ' <"$tmp/miss.err")"
fi
