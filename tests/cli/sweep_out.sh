#!/usr/bin/env bash
# tests/cli/sweep_out.sh: what `diagc sweep` writes, formatted and written
# by the batch's threads (docs/sweep.md, "Output" and "What runs where").
#   1. The output folder is the same byte for byte with --jobs 1, 2 and 4
#      (random samples of two parameters; two loggers at two rates, so
#      most rows have empty cells; runs that fail on the step budget
#      among them), and every run's summary cells are its
#      CSV's: each column's last non-empty cell, smallest and largest
#      (found by awk from runs/N.csv, compared as text).
#   2. A run's CSV is what `diagc run` writes with its sampled values.
#   3. A write that fails is that run's failure, reported as run failures
#      are: under a file size limit (ulimit -f, with SIGXFSZ ignored so
#      that write(2) fails with EFBIG) the run whose log does not fit gets
#      DIAGC_CSV_E_IO and "cannot write OUT/runs/1.csv: File too large"
#      in summary.csv, and neither runs/1.csv nor a temporary file is
#      left; the run that fits is written; the sweep exits 0 with one line
#      on stderr counting the failed runs and the unwritten ones; the same
#      with --jobs 1 and 2.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok sweep_out.$1"; }
bad() { echo "FAIL sweep_out.$1: $2"; }
F=tests/fixtures/sweep

# 1. --jobs 1, 2, 4: one folder; the summary's cells from the CSVs
sweep() {
  "$DIAGC" sweep $F/two_rates.lua --random 30 --seed 5 --uniform s.k=0.5:200 --uniform s.c=0:1 --until 2 \
    --max-steps 700 --no-progress "$@"
}
# prints a line per run whose summary cells differ from its CSV's (the
# CSV's column i >= 2 is the summary's final, min, max at t_end + 3 (i - 2)
# + 1, 2, 3)
stats_check() {  # $1 the folder
  local dir=$1 run name
  tail -n +2 "$dir/summary.csv" | cut -d, -f1 | while read -r run; do
    name=$(ls "$dir/runs" | sed -n "${run}p")
    awk -F, -v run="$run" '
      FNR == 1 && NR == 1 { nc = NF; next }
      NR == FNR { for (i = 2; i <= nc; i++) if ($i != "") {
                    fin[i] = $i
                    if (!(i in lo) || $i + 0 < lo[i] + 0) lo[i] = $i
                    if (!(i in hi) || $i + 0 > hi[i] + 0) hi[i] = $i } next }
      FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "t_end") te = i; next }
      $1 == run { for (i = 2; i <= nc; i++) {
                    a = te + 3 * (i - 2)
                    if ($(a + 1) != fin[i] || $(a + 2) != lo[i] || $(a + 3) != hi[i])
                      print "run " run " column " i ": " $(a + 1) "/" fin[i] " " $(a + 2) "/" lo[i] " " \
                        $(a + 3) "/" hi[i] } }' "$dir/runs/$name" "$dir/summary.csv"
  done
}
if sweep --jobs 1 --out "$tmp/j1" 2>"$tmp/err1" && sweep --jobs 2 --out "$tmp/j2" 2>/dev/null &&
   sweep --jobs 4 --out "$tmp/j4" 2>/dev/null &&
   diff -r "$tmp/j1" "$tmp/j2" >/dev/null && diff -r "$tmp/j1" "$tmp/j4" >/dev/null &&
   grep -q ',ok,' "$tmp/j1/summary.csv" && grep -q ',DIAGC_SIM_E_STEP,' "$tmp/j1/summary.csv" &&
   [ "$(ls "$tmp/j1/runs" | wc -l)" = 30 ] && [ -z "$(ls -A "$tmp/j1/runs" | grep '^\.')" ] &&
   stats_check "$tmp/j1" >"$tmp/why" && [ ! -s "$tmp/why" ]; then
  ok jobs_identical_cells_from_csv
else
  bad jobs_identical_cells_from_csv "$(diff -r "$tmp/j1" "$tmp/j4" 2>&1 | head -3 | tr '\n' '|') $(head -3 "$tmp/why" 2>/dev/null | tr '\n' '|') $(head -1 "$tmp/err1")"
fi

# 2. an ok run's CSV against diagc run with its values
row=$(grep -m1 ',ok,' "$tmp/j1/summary.csv")
IFS=, read -r run _ k c _ <<<"$row"
if [ -n "$row" ] &&
   "$DIAGC" run $F/two_rates.lua -p "s.k=$k" -p "s.c=$c" --until 2 --max-steps 700 >"$tmp/run.csv" 2>"$tmp/err" &&
   cmp -s "$tmp/run.csv" "$tmp/j1/runs/$(printf %02d "$run").csv"; then
  ok run_csv_is_diagc_run
else
  bad run_csv_is_diagc_run "run '$run' k '$k' c '$c': $(head -1 "$tmp/err")"
fi

# 3. a write that fails: run 1 logs 5 kB, run 2 stops early (the step
# budget) with 65 bytes; at most 2 kB a file
for jobs in 1 2; do
  out=$tmp/limit$jobs
  ( trap '' XFSZ; ulimit -f 2
    DIAGC_CHECK_CC=none exec "$DIAGC" sweep examples/spring_mass.lua -p spring.stiffness=1:999999:1000000 \
      --until 2 --max-steps 3000 --no-progress --jobs "$jobs" --out "$out" ) >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" = 0 ] &&
     [ "$(cat "$tmp/err")" = "diagc sweep: 2 of 2 runs failed (1 could not write their CSV); their status and message are in $out/summary.csv" ] &&
     grep -Eqx "1,DIAGC_CSV_E_IO,1,2,[^,]*,[^,]*,1,cannot write $out/runs/1\.csv: File too large" "$out/summary.csv" &&
     grep -q '^2,DIAGC_SIM_E_STEP,' "$out/summary.csv" &&
     [ "$(ls -A "$out/runs")" = 2.csv ] && [ "$(wc -l <"$out/runs/2.csv")" -gt 1 ]; then
    ok "write_fails_per_run.jobs$jobs"
  else
    bad "write_fails_per_run.jobs$jobs" "exit $rc: $(head -2 "$tmp/err" | tr '\n' '|') $(tr '\n' '|' <"$out/summary.csv" 2>&1 | head -c 300) $(ls -A "$out/runs" 2>&1 | tr '\n' ' ')"
  fi
done

# 4. The summary names a column as the run's CSV does: a world's position
#    port names its elements (plant.position.cart.q), so the summary's
#    columns are plant.position.cart.q.final/.min/.max, in the CSV's order
#    (and the metrics' log is keyed by the same names: docs/sweep.md)
if "$DIAGC" sweep examples/world/cartpole.lua -p pd.kp=10:10:20 --until 0.05 --no-progress \
     --out "$tmp/named" 2>"$tmp/err"; then
  csv=$(head -1 "$tmp/named/runs/1.csv" | cut -d, -f2- | tr ',' '\n')
  sum=$(head -1 "$tmp/named/summary.csv" | tr ',' '\n' | sed -n 's/\.final$//p')
  if [ -n "$csv" ] && [ "$csv" = "$sum" ] && echo "$csv" | grep -qx 'plant\.position\.cart\.q'; then
    ok summary_names_as_csv
  else
    bad summary_names_as_csv "csv: $(echo $csv) summary: $(echo $sum)"
  fi
else
  bad summary_names_as_csv "exit $?: $(head -1 "$tmp/err")"
fi
