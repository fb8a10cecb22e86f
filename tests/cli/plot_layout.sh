#!/usr/bin/env bash
# tests/cli/plot_layout.sh: diagc run --plot's layout (docs/simulator.md),
# counted in the image: one subplot per logged port of
# tests/lua/fixtures/motor_units.lua (three log declarations) and of
# examples/hybrid_controller.lua (three, two of them discrete), the ports
# --plot-signals chooses, and the image's height for that many (cli/plot.lua:
# a 40-pixel title band, 200 pixels a subplot, 56 for the time axis).  The
# subplots' frames are counted by tests/cli/png_panels.py; the labels and
# the script are checked in tests/lua/plot_test.lua.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
DIAGC=${DIAGC:-bin/diagc}
T=$(mktemp -d "${TMPDIR:-/tmp}/diagc-plot.XXXXXX")
trap 'rm -rf "$T"' EXIT
ART=build/test-artifacts/plot
mkdir -p "$ART"
fail=0
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "skip plot_layout: gnuplot not installed (scripts/install-deps.sh gnuplot-nox)"
  exit 0
fi
spec=tests/lua/fixtures/motor_units.lua

# check NAME PNG SUBPLOTS
check() {
  local got want
  got=$(python3 tests/cli/png_panels.py "$2" 2>&1)
  want="1000 $((40 + 200 * $3 + 56)) $((2 * $3))"
  if [ "$got" = "$want" ]; then echo "ok plot_layout.$1"
  else echo "FAIL plot_layout.$1: width, height, frame edges '$got', expected '$want' ($3 subplots)"; fail=1; fi
  cp "$2" "$ART/$1.png" 2>/dev/null
}

"$DIAGC" run $spec --until 2 --plot "$T/all.png" >"$T/out" 2>"$T/err" || { echo "FAIL plot_layout.all: $(cat "$T/err")"; fail=1; }
[ -s "$T/out" ] && { echo "FAIL plot_layout.no_csv: --plot without --csv printed a CSV"; fail=1; }
check all "$T/all.png" 3

"$DIAGC" run $spec --until 2 --plot "$T/two.png" --plot-signals m.both.i,m.speed 2>"$T/err" ||
  { echo "FAIL plot_layout.signals: $(cat "$T/err")"; fail=1; }
check signals "$T/two.png" 2

"$DIAGC" run $spec --until 2 --plot "$T/one.png" --plot-signals m.current --csv "$T/run.csv" 2>"$T/err" ||
  { echo "FAIL plot_layout.one: $(cat "$T/err")"; fail=1; }
check one "$T/one.png" 1
"$DIAGC" run examples/hybrid_controller.lua --until 1 --plot "$T/hybrid.png" 2>"$T/err" ||
  { echo "FAIL plot_layout.hybrid: $(cat "$T/err")"; fail=1; }
check hybrid "$T/hybrid.png" 3
# --plot-signals chooses what is drawn, not what is logged
if [ "$(head -1 "$T/run.csv")" = "t,m.speed,m.current,m.both.w,m.both.i" ]; then echo "ok plot_layout.csv_whole"
else echo "FAIL plot_layout.csv_whole: header $(head -1 "$T/run.csv")"; fail=1; fi
exit $fail
