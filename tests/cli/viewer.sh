#!/usr/bin/env bash
# tests/cli/viewer.sh: the pages of `diagc view` (docs/viewer.md).
#   - without a browser: view and run --html give the same page, a page
#     from --csv is the same again; the page holds no address to fetch;
#   - in headless Chromium (tests/cli/viewer_browser.mjs), network off:
#     blocks and wires per level, clicks, the masks, one panel per logged
#     port with its series and points, shared zoom, the size budget;
#     screenshots kept in build/test-artifacts/viewer/.
# Expected counts come from the specs, read by hand (the comments say
# how), and from the CSV that `diagc run` writes; never from the page.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
DIAGC=${DIAGC:-bin/diagc}
T=$(mktemp -d "${TMPDIR:-/tmp}/diagc-viewer.XXXXXX")
trap 'rm -rf "$T"' EXIT
ART=build/test-artifacts/viewer
mkdir -p "$ART"
fail=0
ok() { echo "ok viewer.$1"; }
bad() { echo "FAIL viewer.$1: $2"; fail=1; }

# the rows of a CSV where column $2 (1-based) is not empty
points() { awk -F, -v c="$2" 'NR > 1 && $c != "" { n++ } END { print n + 0 }' "$1"; }
# pairs CSV X Y [T0 T1]: the rows where columns X and Y are both logged
# (with T0 <= t <= T1): the points of an x-y plot
pairs() { awk -F, -v x="$2" -v y="$3" -v a="${4:--1e300}" -v b="${5:-1e300}" \
  'NR > 1 && $x != "" && $y != "" && $1 + 0 >= a + 0 && $1 + 0 <= b + 0 { n++ } END { print n + 0 }' "$1"; }

# the viewer's bundle is built only where `npm ci` reached the npm registry
# (scripts/install-deps.sh, docs/viewer.md): without it every page is refused
# with one line (tests/hostile/viewer.sh), and these tests are skipped
if [ ! -f build/viewer/viewer.js ]; then
  echo "skip viewer.pages: the viewer's bundle is not built (its npm packages are missing: scripts/install-deps.sh)"
  exit 0
fi

# --- pid_plant, 10 s (the size budget's case) ---
pid=examples/pid_plant.lua
"$DIAGC" run $pid --until 10 --csv "$T/pid.csv" || bad pid.run "diagc run failed"
"$DIAGC" view $pid --until 10 -o "$T/pid.html" || bad pid.view "diagc view failed"
"$DIAGC" run $pid --until 10 --html "$T/pid_run.html" >/dev/null || bad pid.run_html "diagc run --html failed"
"$DIAGC" view $pid --csv "$T/pid.csv" -o "$T/pid_csv.html" || bad pid.view_csv "diagc view --csv failed"
if cmp -s "$T/pid.html" "$T/pid_run.html" && cmp -s "$T/pid.html" "$T/pid_csv.html"; then
  ok pid.same_page
else
  bad pid.same_page "diagc view, diagc run --html and diagc view --csv give different pages"
fi
# nothing in the page may be fetched: no http(s) address in a src or href,
# no import(), no fetch(
if grep -qE '(src|href)="?https?:|fetch\(|import\(' "$T/pid.html"; then
  bad pid.self_contained "the page refers to something outside it"
else
  ok pid.self_contained
fi

if ! command -v "${CHROMIUM:-chromium}" >/dev/null 2>&1; then
  echo "skip viewer.browser: chromium not installed (scripts/install-deps.sh installs it)"
  exit $fail
fi
if ! command -v node >/dev/null 2>&1 || [ ! -d viewer/node_modules/playwright-core ]; then
  echo "skip viewer.browser: node or viewer/node_modules missing (scripts/install-deps.sh installs them)"
  exit $fail
fi
export CHROMIUM=$(command -v "${CHROMIUM:-chromium}")

n=$(points "$T/pid.csv" 2)
[ "$n" -ge 1000 ] || bad pid.rows "$n rows for 10 s at 0.01 s"
# pid_plant.lua: the root holds ref, controller, plant; wires ref.r ->
# controller.r, plant.y -> controller.y, controller.u -> plant.u and plant.y
# -> the exported output position.  controller holds err, law: r -> err.a,
# y -> err.b, err.y -> law.e, law.u -> u.  law holds p, i, d, sum: e -> p.u,
# i.u, d.u (three wires), p.y, i.y, d.y -> sum.a, b, c, sum.y -> u.
# A change of law.p's gain k reaches p.y and then sum.y (the law's blocks);
# in p's cache view, its one entry outcache:y.
# Opening controller in place at the root draws err and law instead of it,
# with the root's 4 wires and controller's 4; opening law too draws its
# four blocks and adds its 7 wires (15 in all, every wire of the model).
cat >"$T/pid.json" <<JSON
{ "name": "pid_plant", "budget": 2000000, "systems": 9, "wires": 15,
  "levels": [
    { "path": "", "blocks": 3, "wires": 4, "inputs": 0, "outputs": 1 },
    { "path": "controller", "blocks": 2, "wires": 4, "inputs": 2, "outputs": 1 },
    { "path": "controller.law", "blocks": 4, "wires": 7, "inputs": 1, "outputs": 1 } ],
  "enter": "controller",
  "expand": [
    { "open": ["controller"], "frames": 1, "wires": 8, "closed_blocks": 3,
      "blocks": ["controller.err", "controller.law", "plant", "ref"] },
    { "open": ["controller", "controller.law"], "frames": 2, "wires": 15, "closed_blocks": 3, "shot": true,
      "blocks": ["controller.err", "controller.law.d", "controller.law.i", "controller.law.p", "controller.law.sum", "plant", "ref"] } ],
  "clicks": [
    { "level": "", "block": "plant",
      "states": [["q", "continuous q", "x", "0"], ["v", "continuous v", "xdot", "0"]],
      "params": [["mass", "1", "1"], ["damping", "1", "2"]] },
    { "level": "controller.law", "block": "controller.law.d",
      "states": [["z", "continuous z", "z[0]", "0"]],
      "params": [["k", "1", "8"], ["tau", "1", "0.01"]] },
    { "level": "controller.law", "block": "controller.law.p",
      "states": [], "params": [["k", "1", "40"]],
      "stale": { "source": "controller.law.p.k", "blocks": ["controller.law.p", "controller.law.sum"] } } ],
  "panels": [
    { "logger": "ref.r", "series": 1, "points": $(points "$T/pid.csv" 2), "discrete": false, "legend": ["ref.r"] },
    { "logger": "plant.y", "series": 1, "points": $(points "$T/pid.csv" 3), "discrete": false, "legend": ["plant.y"] },
    { "logger": "controller.u", "series": 1, "points": $(points "$T/pid.csv" 4), "discrete": false, "legend": ["controller.u"] } ],
  "wire": { "level": "", "from": "controller.u", "logger": "controller.u" },
  "cache": [ { "select": "controller.law.p", "shot": true, "follow": "controller.law.sum",
    "own": ["controller.law.p:pn:k", "controller.law.p:input:u", "controller.law.p:outcache:y", "controller.law.p:output:y"],
    "near": ["controller.law:input:e", "controller.law.sum:input:a"], "edges": 5,
    "stale": { "source": "controller.law.p.k", "nodes": ["controller.law.p:outcache:y"] } } ],
  "xy": { "x": "ref.r", "y": "plant.y", "xlabel": "ref.r", "ylabel": "plant.y",
    "points": $(pairs "$T/pid.csv" 2 3), "zoomed": $(pairs "$T/pid.csv" 2 3 0.2 0.4) } }
JSON
timeout 120 node tests/cli/viewer_browser.mjs "$T/pid.html" "$T/pid.json" "$ART/pid_plant.png" || fail=1
cp "$T/pid.html" "$ART/pid_plant.html"

# --- hybrid_controller: discrete signals, loggers of two periods ---
hy=examples/hybrid_controller.lua
"$DIAGC" run $hy --until 1 --csv "$T/hy.csv" || bad hybrid.run "diagc run failed"
"$DIAGC" view $hy --until 1 -o "$T/hy.html" || bad hybrid.view "diagc view failed"
# hybrid_controller.lua: plant, controller, supervisor; three connects.
# plant.y follows a continuous state; controller.u_out and supervisor.r
# read discrete states only (steps).  supervisor.r is logged every 0.1 s,
# the others every 0.01 s (the CSV's empty cells).
cat >"$T/hy.json" <<JSON
{ "name": "hybrid_controller", "budget": 2000000, "systems": 3, "wires": 3,
  "levels": [ { "path": "", "blocks": 3, "wires": 3, "inputs": 0, "outputs": 0 } ],
  "clicks": [
    { "level": "", "block": "controller",
      "states": [["u", "discrete", "", "0"], ["ticks", "discrete", "", "0"]],
      "params": [["gain", "1", "20"]] } ],
  "panels": [
    { "logger": "plant.y", "series": 1, "points": $(points "$T/hy.csv" 2), "discrete": false, "legend": ["plant.y"] },
    { "logger": "controller.u_out", "series": 1, "points": $(points "$T/hy.csv" 3), "discrete": true, "legend": ["controller.u_out"] },
    { "logger": "supervisor.r", "series": 1, "points": $(points "$T/hy.csv" 4), "discrete": true, "legend": ["supervisor.r"] } ],
  "wire": { "level": "", "from": "supervisor.r", "logger": "supervisor.r" },
  "marks": { "all": 112, "zoomed": 24, "off": "controller.control", "without": 3 } }
JSON
# the event marks: controller.control every 0.01 s and supervisor.schedule
# every 0.1 s, both from 0: over 0 .. 1 s 101 + 11 firings, over the zoom
# 0.2 .. 0.4 s 21 + 3, and 3 with the controller's switched off
timeout 120 node tests/cli/viewer_browser.mjs "$T/hy.html" "$T/hy.json" "$ART/hybrid_controller.png" || fail=1

# --- ports with units (tests/lua/fixtures/motor_units.lua) ---
mu=tests/lua/fixtures/motor_units.lua
"$DIAGC" run $mu --until 2 --csv "$T/mu.csv" || bad units.run "diagc run failed"
"$DIAGC" view $mu --csv "$T/mu.csv" -o "$T/mu.html" || bad units.view "diagc view failed"
# motor_units.lua: one leaf m, its input exported as volts (one wire from
# the boundary); speed is rad/s, current A, both has no unit; the CSV is
# t, m.speed, m.current, m.both.w, m.both.i
cat >"$T/mu.json" <<JSON
{ "name": "motor_units", "budget": 2000000, "systems": 1, "wires": 1,
  "levels": [ { "path": "", "blocks": 1, "wires": 1, "inputs": 1, "outputs": 0 } ],
  "clicks": [ { "level": "", "block": "m", "states": [["z", "continuous z", "w, i", "0, 0"]], "params": [] } ],
  "panels": [
    { "logger": "m.speed", "series": 1, "points": $(points "$T/mu.csv" 2), "discrete": false, "legend": ["m.speed"] },
    { "logger": "m.current", "series": 1, "points": $(points "$T/mu.csv" 3), "discrete": false, "legend": ["m.current"] },
    { "logger": "m.both", "series": 2, "points": $(points "$T/mu.csv" 4), "discrete": false, "legend": ["m.both.w", "m.both.i"] } ],
  "ylabels": ["m.speed [rad/s]", "m.current [A]", "m.both"],
  "xy": { "x": "m.speed", "y": "m.current", "xlabel": "m.speed [rad/s]", "ylabel": "m.current [A]",
    "points": $(pairs "$T/mu.csv" 2 3), "zoomed": $(pairs "$T/mu.csv" 2 3 0.2 0.4) } }
JSON
timeout 120 node tests/cli/viewer_browser.mjs "$T/mu.html" "$T/mu.json" "$ART/motor_units.png" || fail=1
exit $fail
