#!/usr/bin/env bash
# tests/cli/sweep.sh: `diagc sweep` (docs/sweep.md).
#   1. A grid over a spring's stiffness k (m = 1, x(0) = 1): the period
#      the metric finds in each run's log (tests/fixtures/sweep/period.lua)
#      is 2 pi / sqrt(k), and x(2) is cos(2 sqrt(k)), both to 1e-9
#      (dormand_prince54 at accuracy 1e-12).
#   2. A run's CSV is what `diagc run` writes with the same -p and --state.
#   3. The output folder is the same bit for bit with --jobs 1, 2 and 4
#      (random samples, a run that fails on the step budget among them).
#   4. Failures stay in their run: the step budget and too many rows are
#      recorded in summary.csv, the sweep goes on and exits 0.
#   5. --samples FILE.csv runs its rows.
#   5b. One element of a parameter of two, s.k[1]: x2(2) = cos(2 sqrt(k[1]))
#      to 1e-9, x1 untouched (cos 2), by a grid and by a CSV column.
#   6. MPI: `mpirun --oversubscribe -np 3 diagc sweep --mpi` writes the
#      same folder as the threaded sweep (skipped without Open MPI).
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok sweep.$1"; }
bad() { echo "FAIL sweep.$1: $2"; }
F=tests/fixtures/sweep

# 1. the analytic period and state
if "$DIAGC" sweep $F/spring.lua -p s.k=1:0.5:4 --until 2 --integrator dormand_prince54 --accuracy 1e-12 \
     --metrics $F/period.lua --out "$tmp/period" 2>"$tmp/err" &&
   awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
     { w = sqrt($c["s.k"]); n++
       dp = $c["period"] - 2 * 3.14159265358979323846 / w; dx = $c["s.xv[0].final"] - cos(2 * w)
       if ($c["status"] != "ok" || dp > 1e-9 || dp < -1e-9 || dx > 1e-9 || dx < -1e-9) { print "run " $1 ": " dp " " dx; bad = 1 } }
     END { exit bad || n != 7 }' "$tmp/period/summary.csv" >"$tmp/why"; then
  ok analytic_period
else
  bad analytic_period "$(cat "$tmp/why") $(head -1 "$tmp/err")"
fi

# 2. a run's CSV against diagc run
if "$DIAGC" sweep examples/spring_mass.lua -p spring.stiffness=1:1:3 --state spring.position=1:0.5:2 --until 1.5 \
     --out "$tmp/grid" 2>"$tmp/err" &&
   "$DIAGC" run examples/spring_mass.lua -p spring.stiffness=2 --state spring.position=1.5 --until 1.5 >"$tmp/run.csv" &&
   [ "$(sed -n 6p "$tmp/grid/summary.csv" | cut -d, -f1-4)" = "5,ok,2,1.5" ] &&
   cmp -s "$tmp/run.csv" "$tmp/grid/runs/5.csv"; then
  ok run_csv_is_diagc_run
else
  bad run_csv_is_diagc_run "$(sed -n 6p "$tmp/grid/summary.csv") $(head -1 "$tmp/err")"
fi

# 3. --jobs 1, 2, 4: the same folder
sweep_random() {
  "$DIAGC" sweep $F/spring.lua --random 40 --seed 7 --uniform s.k=0.5:100 --normal s.v=0:0.3 --until 3 \
    --max-steps 1000 --no-progress "$@"
}
if sweep_random --jobs 1 --out "$tmp/j1" 2>"$tmp/err1" && sweep_random --jobs 2 --out "$tmp/j2" 2>/dev/null &&
   sweep_random --jobs 4 --out "$tmp/j4" 2>/dev/null &&
   diff -r "$tmp/j1" "$tmp/j2" >/dev/null && diff -r "$tmp/j1" "$tmp/j4" >/dev/null &&
   grep -q ',DIAGC_SIM_E_STEP,' "$tmp/j1/summary.csv" && grep -q ',ok,' "$tmp/j1/summary.csv"; then
  ok jobs_identical
else
  bad jobs_identical "$(diff -r "$tmp/j1" "$tmp/j2" | head -3 | tr '\n' '|') $(head -1 "$tmp/err1")"
fi

# 4. failures recorded per run: the step budget (k = 1e6), too many rows
if "$DIAGC" sweep $F/spring.lua -p s.k=1:999999:1000000 --until 1 --max-steps 3000 --out "$tmp/fail" \
     2>"$tmp/err" && "$DIAGC" sweep $F/spring.lua -p s.k=1:1:2 --until 1 --max-rows 50 --out "$tmp/rows" 2>/dev/null &&
   grep -q '^1,ok,' "$tmp/fail/summary.csv" &&
   grep -Eq '^2,DIAGC_SIM_E_STEP,.*step-count limit' "$tmp/fail/summary.csv" &&
   grep -q '1 of 2 runs failed' "$tmp/err" &&
   grep -Eq '^1,DIAGC_BATCH_E_ROWS,.*201 rows, more than max_rows = 50' "$tmp/rows/summary.csv" &&
   [ "$(wc -l <"$tmp/rows/runs/1.csv")" = 51 ]; then
  ok failures_per_run
else
  bad failures_per_run "$(tr '\n' '|' <"$tmp/fail/summary.csv" | head -c 400) $(head -1 "$tmp/err")"
fi

# 5. --samples
printf 's.k,s.x\n1,1\n"4",0.5\n\n' >"$tmp/samples.csv"
if "$DIAGC" sweep $F/spring.lua --samples "$tmp/samples.csv" --until 1 --out "$tmp/csv" 2>"$tmp/err" &&
   [ "$(cut -d, -f1-4 "$tmp/csv/summary.csv" | tr '\n' ' ')" = "run,status,s.k,s.x 1,ok,1,1 2,ok,4,0.5 " ]; then
  ok samples_csv
else
  bad samples_csv "$(tr '\n' '|' <"$tmp/csv/summary.csv") $(head -1 "$tmp/err")"
fi

# 5b. one element of a vector parameter, NAME[i]
printf 's.k[1]\n4\n9\n' >"$tmp/elem.csv"
check_elem() {  # $1 summary.csv, $2 runs: x1(2) = cos 2, x2(2) = cos(2 sqrt(k[1])) to 1e-9
  awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { w = sqrt($c["s.k[1]"]); m++
      d1 = $c["s.x[0].final"] - cos(2); d2 = $c["s.x[1].final"] - cos(2 * w)
      if ($c["status"] != "ok" || d1 > 1e-9 || d1 < -1e-9 || d2 > 1e-9 || d2 < -1e-9) { print "run " $1 ": " d1 " " d2; bad = 1 } }
    END { exit bad || m != n }' "$1"
}
if "$DIAGC" sweep $F/springs2.lua -p 's.k[1]=1:1:4' --until 2 --integrator dormand_prince54 --accuracy 1e-12 \
     --out "$tmp/elem" 2>"$tmp/err" && check_elem "$tmp/elem/summary.csv" 4 >"$tmp/why" &&
   "$DIAGC" sweep $F/springs2.lua --samples "$tmp/elem.csv" --until 2 --integrator dormand_prince54 --accuracy 1e-12 \
     --out "$tmp/elemcsv" 2>>"$tmp/err" && check_elem "$tmp/elemcsv/summary.csv" 2 >>"$tmp/why"; then
  ok vector_element
else
  bad vector_element "$(cat "$tmp/why") $(head -1 "$tmp/err")"
fi

# 6. MPI, 3 ranks on this machine
lib=$(dirname "$DIAGC")/../lib/libdiagc_mpi.so
if ! command -v mpirun >/dev/null 2>&1 || [ ! -f "$lib" ]; then
  echo "skip sweep.mpi_identical: Open MPI (mpirun, lib/libdiagc_mpi.so) is not installed"
else
  root=()
  [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
  if timeout 300 mpirun "${root[@]}" --oversubscribe -np 3 "$DIAGC" sweep $F/spring.lua --random 40 --seed 7 \
       --uniform s.k=0.5:100 --normal s.v=0:0.3 --until 3 --max-steps 1000 --no-progress --mpi --jobs 1 \
       --out "$tmp/mpi" >"$tmp/mpi.out" 2>&1 &&
     diff -r "$tmp/j1" "$tmp/mpi" >/dev/null; then
    ok mpi_identical
  else
    bad mpi_identical "$(tail -3 "$tmp/mpi.out" | tr '\n' '|') $(diff -r "$tmp/j1" "$tmp/mpi" 2>&1 | head -2 | tr '\n' '|')"
  fi
fi

# 7. a rank killed mid-sweep: Open MPI ends every rank; rank 0 names the
# runs that were out (the lost rank's among them) and writes no folder
if ! command -v mpirun >/dev/null 2>&1 || [ ! -f "$lib" ]; then
  echo "skip sweep.mpi_rank_lost: Open MPI (mpirun, lib/libdiagc_mpi.so) is not installed"
else
  root=()
  [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
  ( cd "$tmp" && exec timeout 120 mpirun "${root[@]}" --oversubscribe -np 3 "$OLDPWD/$DIAGC" sweep \
      "$OLDPWD/$F/spring.lua" --random 3000 --uniform s.k=1:100 --until 20 --no-progress --mpi --jobs 1 \
      --out lost >"$tmp/lost.out" 2>&1 ) &
  mpi_pid=$!
  # wait for rank 0's output folder (the work is handed out from then on)
  victim=""
  for _ in $(seq 1 300); do
    if ls -a "$tmp" | grep -q '^\.lost\.tmp'; then
      sleep 1
      for p in $(pgrep -f "sweep $PWD/$F/spring.lua" 2>/dev/null); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1' && victim=$p
      done
      break
    fi
    sleep 0.1
  done
  [ -n "$victim" ] && kill -9 "$victim"
  wait "$mpi_pid"
  status=$?
  if [ -n "$victim" ] && [ "$status" != 0 ] && [ "$status" != 124 ] && [ ! -e "$tmp/lost" ] &&
     grep -Eq '^diagc: diagc sweep --mpi: stopped by a signal with [0-9]+ of 3000 runs written .*runs not finished: [0-9, ()a-z-]*\(rank 1\)' "$tmp/lost.out"; then
    ok mpi_rank_lost
  else
    bad mpi_rank_lost "victim '$victim', exit $status: $(grep -v -- '-----' "$tmp/lost.out" | head -4 | tr '\n' '|')"
  fi
fi
