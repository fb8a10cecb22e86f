#!/usr/bin/env bash
# tests/cli/viewer_firings.sh: the event marks of the page at the times
# events fired (docs/viewer.md, "Event marks"; the side file of
# diagc run --csv, cli/firings.lua).
#   - without a browser: the side file beside the CSV (the bouncing ball's
#     impacts, the thermostat's next-update schedule, a per-step event cut
#     at 100 000 rows and counted); view, run --html and view --csv give
#     the same page; a CSV without its side file gives a page that says so;
#   - in headless Chromium (tests/cli/viewer_firings.mjs): the marks on
#     every panel at the expected times, hover, switch, zoom.
# Expected times: the bouncing ball's analytic impacts from the spec's h, g
# and e (diagc info --json), to the witness isolation's tolerance; the
# thermostat's schedule `times` from the spec; the per-step event's times
# from the CSV's rows (one per step: its logger fires every step too).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
DIAGC=${DIAGC:-bin/diagc}
T=$(mktemp -d "${TMPDIR:-/tmp}/diagc-firings.XXXXXX")
trap 'rm -rf "$T"' EXIT
ART=build/test-artifacts/viewer
mkdir -p "$ART"
fail=0
ok() { echo "ok firings.$1"; }
bad() { echo "FAIL firings.$1: $2"; fail=1; }

# --- the side file (no bundle or browser needed) ---
ball=examples/bouncing_ball.lua
"$DIAGC" run $ball --until 3 --csv "$T/ball.csv" || bad ball.run "diagc run failed"
if [ "$(sed -n 1,2p "$T/ball.events.csv" | tr '\n' '|')" = "# diagc firings t0=0 t_end=3|t,event|" ] &&
   [ "$(sed 1,2d "$T/ball.events.csv" | cut -d, -f2 | sort -u)" = "ball.impact" ]; then
  ok ball.side_file
else
  bad ball.side_file "$(head -c 300 "$T/ball.events.csv" 2>&1)"
fi
th=examples/thermostat.lua
"$DIAGC" run $th --until 200 --csv "$T/th.csv" || bad thermostat.run "diagc run failed"
# thermostat.lua: the schedule's times = { 60.0, 135.0 }; the periodic
# control (every 10 s) is not written: the page computes it
want=$'# diagc firings t0=0 t_end=200\nt,event\n60,thermostat.schedule\n135,thermostat.schedule'
[ "$(cat "$T/th.events.csv")" = "$want" ] && ok thermostat.side_file || bad thermostat.side_file "$(cat "$T/th.events.csv")"
# a model whose events are all periodic: no side file
"$DIAGC" run examples/hybrid_controller.lua --until 0.1 --csv "$T/hy.csv" >/dev/null || bad hybrid.run "diagc run failed"
[ ! -e "$T/hy.events.csv" ] && ok periodic_only.no_side_file || bad periodic_only.no_side_file "hy.events.csv written"

# per step: explicit Euler, 2 s in steps of 1e-5: a firing at
# initialization and after each step, as many as the CSV's rows
ps=tests/cli/viewer_firings/per_step.lua
PSOPT=(--until 2 --step 1e-5 --integrator explicit_euler)
"$DIAGC" run $ps "${PSOPT[@]}" --csv "$T/ps.csv" 2>"$T/ps.err" || bad per_step.run "diagc run failed"
rows=$(($(wc -l <"$T/ps.csv") - 1))
kept=$(grep -c ',clock.tick$' "$T/ps.events.csv")
omitted=$(sed -n 's/^# omitted clock.tick //p' "$T/ps.events.csv")
if [ "$kept" = 100000 ] && [ "$omitted" = $((rows - 100000)) ] &&
   grep -q "diagc run: note: clock.tick fired $rows times; its first 100000 firings are kept and marked, the other $omitted counted" "$T/ps.err"; then
  ok per_step.cut_and_counted
else
  bad per_step.cut_and_counted "rows $rows kept $kept omitted $omitted: $(cat "$T/ps.err")"
fi
# the firings written are the CSV's first 100000 times, bit for bit
if cmp -s <(sed 1,2d "$T/ps.events.csv" | grep -v '^#' | cut -d, -f1) <(sed -n 2,100001p "$T/ps.csv" | cut -d, -f1); then
  ok per_step.times
else
  bad per_step.times "the firings' times are not the CSV's"
fi

if [ ! -f build/viewer/viewer.js ]; then
  echo "skip firings.pages: the viewer's bundle is not built (its npm packages are missing: scripts/install-deps.sh)"
  exit $fail
fi

# --- the pages: view, run --html and view --csv give the same page ---
same() { # NAME SPEC OPTIONS... : the three pages of one run
  local name=$1 spec=$2
  shift 2
  "$DIAGC" view "$spec" "$@" -o "$T/$name.html" 2>/dev/null || bad "$name.view" "diagc view failed"
  "$DIAGC" run "$spec" "$@" --html "$T/${name}_run.html" >/dev/null 2>&1 || bad "$name.run_html" "run --html failed"
  "$DIAGC" view "$spec" --csv "$T/$name.csv" -o "$T/${name}_csv.html" 2>/dev/null || bad "$name.view_csv" "view --csv failed"
  if cmp -s "$T/$name.html" "$T/${name}_run.html" && cmp -s "$T/$name.html" "$T/${name}_csv.html"; then
    ok "$name.same_page"
  else
    bad "$name.same_page" "view, run --html and view --csv give different pages"
  fi
}
same ball $ball --until 3
same th $th --until 200
same ps $ps "${PSOPT[@]}"
for n in ball th ps; do echo "note firings.$n: page $(wc -c <"$T/$n.html") bytes"; done

# a CSV without its side file: the page says so, and so does stderr
cp "$T/ball.csv" "$T/lone.csv"
"$DIAGC" view $ball --csv "$T/lone.csv" -o "$T/lone.html" 2>"$T/lone.err" || bad lone.view "view --csv failed"
if grep -q "diagc view: note: no firings file .*lone.events.csv beside the CSV" "$T/lone.err" &&
   grep -q '"missing": "no firings file' "$T/lone.html"; then
  ok lone_csv.says_so
else
  bad lone_csv.says_so "$(cat "$T/lone.err")"
fi

if ! command -v "${CHROMIUM:-chromium}" >/dev/null 2>&1; then
  echo "skip firings.browser: chromium not installed (scripts/install-deps.sh installs it)"
  exit $fail
fi
if ! command -v node >/dev/null 2>&1 || [ ! -d viewer/node_modules/playwright-core ]; then
  echo "skip firings.browser: node or viewer/node_modules missing (scripts/install-deps.sh installs them)"
  exit $fail
fi
export CHROMIUM=$(command -v "${CHROMIUM:-chromium}")

# the bouncing ball's impacts: h, g, e from the spec (diagc info --json);
# t1 = sqrt(2h/g), then t_{k+1} = t_k + 2 e^k v1 / g with v1 = g t1, below
# 3 s.  Each impact is isolated to within iso = 1 % of the accuracy
# (1e-6 s at the default 1e-4; docs/simulator.md, "Witness functions")
# after the crossing of the computed flight, which RK3 integrates exactly
# (a parabola); a late impact by d shifts the next one by
# d (1 + 2e - 1/e) < d, so impact k is within k * 2 * iso.
"$DIAGC" info $ball --json >"$T/ball.json"
node -e '
const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const val = (list, path) => list.find((x) => x.path === path);
const g = val(d.parameters, "ball.gravity").default[0], e = val(d.parameters, "ball.restitution").default[0];
const h = val(d.states, "ball.q").initial[0], iso = 0.01 * 1e-4;
let t = Math.sqrt(2 * h / g);
const v1 = g * t, times = [];
for (let k = 1; t <= 3; k++) { times.push(t); t += 2 * Math.pow(e, k) * v1 / g; }
const tol = times.map((_, k) => 2 * (k + 1) * iso);
const ev = { path: "ball.impact", trigger: "witness", times, tol, label: ["witness", `${times.length} firings`] };
console.log(JSON.stringify({ name: "bouncing_ball", panels: 1, events: [ev],
  hover: { path: "ball.impact", word: "witness" }, pixel: { path: "ball.impact" }, off: "ball.impact",
  zooms: [{ min: 1, max: 2, events: [{ ...ev, times: times.filter((x) => x >= 1 && x <= 2), tol: tol.filter((_, k) => times[k] >= 1 && times[k] <= 2) }] }] }));
' "$T/ball.json" >"$T/ball.expect.json"
timeout 120 node tests/cli/viewer_firings.mjs "$T/ball.html" "$T/ball.expect.json" "$ART/firings_ball.png" || fail=1
# the same marks from the CSV and its side file
timeout 120 node tests/cli/viewer_firings.mjs "$T/ball_csv.html" "$T/ball.expect.json" "$ART/firings_ball_csv.png" || fail=1

# the thermostat: the schedule at its times (exact: the simulator lands on
# next_update_time's times), the control every 10 s from 0 to 200
ctrl=$(seq 0 10 200 | paste -sd, -)
cat >"$T/th.expect.json" <<JSON
{ "name": "thermostat", "panels": 2,
  "events": [ { "path": "thermostat.schedule", "trigger": "timed", "times": [60, 135], "tol": 0,
                "label": ["next update time", "2 firings"] },
              { "path": "thermostat.control", "trigger": "periodic", "times": [$ctrl], "tol": 1e-9,
                "label": ["periodic", "every 10 s"] } ],
  "hover": { "path": "thermostat.schedule", "word": "next update time" }, "off": "thermostat.schedule",
  "zooms": [ { "min": 50, "max": 100, "events": [ { "path": "thermostat.schedule", "times": [60], "tol": 0 },
    { "path": "thermostat.control", "times": [50, 60, 70, 80, 90, 100], "tol": 1e-9 } ] } ] }
JSON
timeout 120 node tests/cli/viewer_firings.mjs "$T/th.html" "$T/th.expect.json" "$ART/firings_thermostat.png" || fail=1

# per step: over the whole run too many to mark (the bar says so); a zoom
# before the cut marks the CSV's times there, a zoom after it none
zoomed() { awk -F, -v a="$1" -v b="$2" 'NR > 1 && NR <= 100001 && $1 >= a && $1 <= b { printf "%s%s", s, $1; s = "," }' "$T/ps.csv"; }
cat >"$T/ps.expect.json" <<JSON
{ "name": "per_step", "panels": 1,
  "events": [ { "path": "clock.tick", "trigger": "per_step", "times": [], "tol": 0,
                "label": ["per step", "$rows firings", "the first 100000 recorded and marked", "$omitted later ones only counted"] } ],
  "zooms": [ { "min": 0, "max": 2, "events": [], "note": { "path": "clock.tick", "has": "over 200 firings in this range" } },
             { "min": 0.5, "max": 0.5005, "events": [ { "path": "clock.tick", "times": [$(zoomed 0.5 0.5005)], "tol": 0 } ] },
             { "min": 1.5, "max": 1.5005, "events": [ { "path": "clock.tick", "times": [], "tol": 0 } ] } ] }
JSON
timeout 120 node tests/cli/viewer_firings.mjs "$T/ps.html" "$T/ps.expect.json" "$ART/firings_per_step.png" || fail=1
exit $fail
