# tests/hostile/writes.sh: nothing lost.  Every write and close is checked
# (a full disk is one error line with the path and the reason, exit 1 or 2)
# and outputs are replaced only when everything succeeded.

wr_spec() {
  cat >"$T/spec.lua" <<'LUA'
local Decay = leaf "Decay" {
  continuous_state { z = { "x" }, z0 = { 1.0 } },
  parameter { "k", default = { 1.0 } },
  derivatives { prerequisites = { "z", "k" }, calc = [[ zdot[0] = -k[0] * z[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
}
return diagram "decay" { system { "d", Decay }, log { "d.y", period = 0.5 } }
LUA
}

# a model whose state becomes NaN at t = 0.5: the simulation fails
wr_failing_spec() {
  cat >"$T/spec.lua" <<'LUA'
local Bad = leaf "Bad" {
  continuous_state { z = { "x" }, z0 = { 1.0 } },
  derivatives { prerequisites = { "z", "time" }, calc = [[ zdot[0] = t > 0.5 ? (0.0 / 0.0) : -z[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
}
return diagram "bad" { system { "b", Bad }, log { "b.y", period = 0.1 } }
LUA
}

hcase writes.csv_to_full_disk
wr_spec
hrun -- "$DIAGC" run "$T/spec.lua" --csv /dev/full
expect_exit 2
expect_error "cannot write '/dev/full': No space left on device"
hdone

hcase writes.run_stdout_to_full_disk
wr_spec
hrun -- sh -c '"$0" run "$1" >/dev/full' "$DIAGC" "$T/spec.lua"
expect_exit 2
expect_error "diagc run: cannot write to standard output: No space left on device"
hdone

hcase writes.graph_stdout_to_full_disk
wr_spec
hrun -- sh -c '"$0" graph "$1" >/dev/full' "$DIAGC" "$T/spec.lua"
expect_exit 2
expect_error "diagc graph: cannot write to standard output: No space left on device"
hdone

hcase writes.graph_o_full_disk
wr_spec
hrun -- "$DIAGC" graph "$T/spec.lua" -o /dev/full
expect_exit 2
expect_error "cannot write '/dev/full': No space left on device"
hdone

hcase writes.info_stdout_to_full_disk
wr_spec
hrun -- sh -c '"$0" info "$1" --json >/dev/full' "$DIAGC" "$T/spec.lua"
expect_exit 2
expect_error "diagc info: cannot write to standard output: No space left on device"
hdone

hcase writes.help_to_full_disk
hrun -- sh -c '"$0" --help >/dev/full' "$DIAGC"
expect_exit 1
expect_error "cannot write to standard output: No space left on device"
hdone

hcase writes.version_to_full_disk
hrun -- sh -c '"$0" --version >/dev/full' "$DIAGC"
expect_exit 1
expect_error "cannot write to standard output: No space left on device"
hdone

hcase writes.generate_c_fails_keeps_h
# x.c cannot be written (a link to a full disk): x.h keeps its old bytes
wr_spec
echo "old header" >"$T/x.h"
ln -s /dev/full "$T/x.c"
snapshot "$T/x.h"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/x.c"
expect_exit 2
expect_error "cannot write '.*x\.c': No space left on device"
expect_unchanged "$T/x.h"
check "no temporary file is left" test -z "$(ls -A "$T" | grep '\.tmp')"
hdone

hcase writes.generate_c_is_directory_keeps_h
wr_spec
echo "old header" >"$T/x.h"
mkdir "$T/x.c"
snapshot "$T/x.h"
hrun -- "$DIAGC" "$T/spec.lua" -o "$T/x.c"
expect_exit 2
expect_error "cannot write '.*x\.c': it is a directory"
expect_unchanged "$T/x.h"
hdone

hcase writes.failing_run_keeps_csv
wr_failing_spec
echo "t,old" >"$T/out.csv"
snapshot "$T/out.csv"
hrun -- "$DIAGC" run "$T/spec.lua" --csv "$T/out.csv"
expect_exit 2
expect_error "simulation failed: .*non-finite"
expect_unchanged "$T/out.csv"
check "no temporary file is left" test -z "$(ls -A "$T" | grep '\.tmp')"
hdone

hcase writes.failing_run_keeps_plot
wr_failing_spec
echo "old image" >"$T/out.png"
snapshot "$T/out.png"
hrun -- "$DIAGC" run "$T/spec.lua" --plot "$T/out.png"
expect_exit 2
expect_unchanged "$T/out.png"
hdone

hcase writes.plot_nothing_logged
cat >"$T/spec.lua" <<'LUA'
local Decay = leaf "Decay" {
  continuous_state { z = { "x" }, z0 = { 1.0 } },
  derivatives { prerequisites = { "z" }, calc = [[ zdot[0] = -z[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
}
return diagram "quiet" { system { "d", Decay } }
LUA
if command -v gnuplot >/dev/null; then
  hrun -- "$DIAGC" run "$T/spec.lua" --plot "$T/out.png"
  expect_exit 0
  expect_stderr_match "^diagc run: warning: the diagram logs nothing; add log"
  check "the warning is one line" test "$(printf '%s\n' "$err" | wc -l)" = 1
  expect_absent "$T/out.png"
else
  hrun -- "$DIAGC" run "$T/spec.lua" --csv "$T/out.csv"
  expect_exit 0
  expect_stderr_match "^diagc run: warning: the diagram logs nothing; add log"
  check "the warning is one line" test "$(printf '%s\n' "$err" | wc -l)" = 1
fi
hdone

hcase writes.deploy_app_fails_writes_nothing
# app.c (written last) cannot be written: no model file appears either
wr_spec
cat >"$T/spec.lua" <<'LUA'
local C = leaf "Clock" {
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
  periodic_publish { "tick", period = 0.01, calc = [[ ]] },
}
return diagram "clock" { system { "c", C } }
LUA
mkdir "$T/d"
ln -s /dev/full "$T/d/app.c"
hrun -- "$DIAGC" deploy "$T/spec.lua" -o "$T/d/app.c"
expect_exit 2
expect_error "diagc deploy: cannot write '.*app\.c': No space left on device"
expect_absent "$T/d/c.c" "$T/d/c.h"
hdone

hcase writes.success_leaves_no_temporary
wr_spec
echo old >"$T/out.csv"
hrun -- "$DIAGC" run "$T/spec.lua" --csv "$T/out.csv"
expect_exit 0
check "the CSV was replaced" grep -q '^t,d.y$' "$T/out.csv"
check "no temporary file is left" test -z "$(ls -A "$T" | grep '\.tmp')"
hdone

if command -v gnuplot >/dev/null; then
  # --plot without --csv: the CSV and gnuplot's files are private temporary
  # files in $TMPDIR, all removed (they were left in /tmp, one per run)
  hcase writes.plot_leaves_no_temporary
  wr_spec
  mkdir "$T/tmp"
  hrun -- env TMPDIR="$T/tmp" "$DIAGC" run "$T/spec.lua" --until 2 --plot "$T/out.png"
  expect_exit 0
  check "the plot was written" test -s "$T/out.png"
  check "TMPDIR is empty: $(ls -A "$T/tmp")" test -z "$(ls -A "$T/tmp")"
  hdone

  # the same when SIGTERM stops the run in the middle (a simulation is not
  # bound by --timeout: docs/security.md)
  hcase writes.plot_sigterm_leaves_no_temporary
  cat >"$T/spec.lua" <<'LUA'
local Slow = leaf "Slow" {
  continuous_state { z = { "x" }, z0 = { 1.0 } },
  derivatives { prerequisites = { "z" }, calc = [[
    double acc = 0.0;
    long i;
    for (i = 0; i < 20000000; i++) acc += 1e-30 * (double)i;
    zdot[0] = -z[0] + acc * 0.0; ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
}
return diagram "slow" { system { "s", Slow }, log { "s.y", period = 0.1 } }
LUA
  mkdir "$T/tmp"
  ( TMPDIR="$T/tmp" exec timeout -s KILL 60 "$DIAGC" run "$T/spec.lua" --until 1000 --plot "$T/out.png" ) \
    >"$T/.stdout" 2>"$T/.stderr" &
  pid=$!
  for i in $(seq 1 200); do [ -n "$(ls -A "$T/tmp")" ] && break; sleep 0.1; done
  check "the run made its temporary CSV" test -n "$(ls -A "$T/tmp")"
  sleep 0.5
  pkill -TERM -P "$pid" -x diagc
  { wait "$pid"; } 2>/dev/null
  rc=$?
  expect_exit 143
  expect_absent "$T/out.png"
  check "TMPDIR is empty: $(ls -A "$T/tmp")" test -z "$(ls -A "$T/tmp")"
  hdone
fi

hcase writes.run_stdout_closed
wr_spec
hrun -- sh -c '"$0" run "$1" >&-' "$DIAGC" "$T/spec.lua"
expect_exit 2
expect_error "diagc run: cannot write to standard output: Bad file descriptor"
hdone

hcase writes.graph_stdout_closed
wr_spec
hrun -- sh -c '"$0" graph "$1" >&-' "$DIAGC" "$T/spec.lua"
expect_exit 2
expect_error "diagc graph: cannot write to standard output: Bad file descriptor"
hdone
