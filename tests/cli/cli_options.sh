#!/usr/bin/env bash
# The command line: diagc info (text and JSON), --state and --input against
# analytic solutions, --stats' smallest step, --jacobian model|fd, the checked setters and the
# bounded advance_to of diagc test's model API, the JSON encoder.
set -u
DIAGC=${DIAGC:-bin/diagc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; }

# x' = -k x + u, logged every 0.5 s; a discrete group read by an output
cat >"$tmp/decay.lua" <<'LUA'
local Decay = leaf "Decay" {
  continuous_state { z = { "x" }, z0 = { 1.0 } },
  parameter { "k", default = { 1.0 } },
  discrete_state { "n", default = { 0, 0 } },
  input_port { "u", size = 1 },
  derivatives { prerequisites = { "z", "k", "u" }, calc = [[ zdot[0] = -k[0] * z[0] + u[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = [[ y[0] = z[0]; ]] },
  output_port { "nn", size = 2, prerequisites = { "n" }, calc = [[ nn[0] = n[0]; nn[1] = n[1]; ]] },
  periodic_publish { "tick", period = 0.25, offset = 0.125, calc = [[ ]] },
}
return diagram "decay" {
  system { "d", Decay, parameters = { k = { 0.5 } } },
  export_input { "d.u", as = "force" },
  log { "d.y", period = 0.5 },
  log { "d.nn", period = 1 },
}
LUA

# near VALUE EXPECTED TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(a != "" && d <= t && d >= -t) }'; }

# --state and -p: x(t) = x0 e^{-kt}
line=$($DIAGC run "$tmp/decay.lua" --until 2 --state d.z=3 -p d.k=2 --integrator dormand_prince54 \
  --accuracy 1e-10 2>"$tmp/err" | tail -1)
x=$(cut -d, -f2 <<<"$line")
if near "$x" "$(awk 'BEGIN { printf "%.17g", 3 * exp(-4) }')" 1e-8; then ok run.state_decay; else fail run.state_decay "$line $(cat "$tmp/err")"; fi
# --input and an element name: x(t) = u/k + (x0 - u/k) e^{-kt}, k = 0.5 (the spec's override)
line=$($DIAGC run "$tmp/decay.lua" --until 2 --input force=2 --state d.x=1 --integrator dormand_prince54 \
  --accuracy 1e-10 2>"$tmp/err" | tail -1)
x=$(cut -d, -f2 <<<"$line")
if near "$x" "$(awk 'BEGIN { printf "%.17g", 4 + (1 - 4) * exp(-1) }')" 1e-8; then ok run.input_decay; else fail run.input_decay "$line $(cat "$tmp/err")"; fi
# a discrete group and one of its elements
row=$($DIAGC run "$tmp/decay.lua" --until 0 --state d.n=4,5 --state 'd.n[1]=7' 2>"$tmp/err" | sed -n 2p)
if [ "$row" = "0,1,4,7" ]; then ok run.state_discrete; else fail run.state_discrete "'$row' $(cat "$tmp/err")"; fi

# --stats reports the smallest step
$DIAGC run "$tmp/decay.lua" --until 1 --max-step 0.01 --stats >/dev/null 2>"$tmp/err"
if grep -Eq 'smallest step [0-9.e-]+, largest step 0\.01' "$tmp/err"; then ok run.stats_smallest_step
else fail run.stats_smallest_step "$(cat "$tmp/err")"; fi
# a model without continuous state: no integrator step, no step sizes (no "nan")
$DIAGC run examples/discrete_counter.lua --until 0.06 --stats >/dev/null 2>"$tmp/err"
if grep -q '^steps 3, integrator steps 0, rejected 0, derivative evaluations 0, wall ' "$tmp/err" &&
   ! grep -qi 'nan' "$tmp/err"; then ok run.stats_discrete_no_sizes
else fail run.stats_discrete_no_sizes "$(cat "$tmp/err")"; fi

# --jacobian model|fd: the implicit integrators' Jacobian source; both
# give x(2) = e^{-1} (k = 0.5) within the tolerance, --stats names it
for src in model fd; do
  line=$($DIAGC run "$tmp/decay.lua" --until 2 --integrator radau3 --accuracy 1e-8 --jacobian $src \
    --stats 2>"$tmp/err_$src" | tail -1)
  x=$(cut -d, -f2 <<<"$line")
  want="the model's generated Jacobian"; [ $src = fd ] && want="finite differences"
  if near "$x" "$(awk 'BEGIN { printf "%.17g", exp(-1) }')" 1e-6 && grep -qF "($want)" "$tmp/err_$src"; then
    ok run.jacobian_$src
  else fail run.jacobian_$src "$line $(cat "$tmp/err_$src")"; fi
done
$DIAGC run "$tmp/decay.lua" --integrator radau3 --jacobian exact >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
   grep -qF "unknown jacobian source 'exact' (sources: fd, model)" "$tmp/err"; then ok run.jacobian_unknown
else fail run.jacobian_unknown "rc $rc: $(cat "$tmp/err")"; fi

# --jacobian model names the calc whose body has no Jacobian (outside the
# differentiable subset), at its line and column; without the option the
# run falls back to finite differences
cat >"$tmp/nojac.lua" <<'EOF2'
local L = leaf "L" {
  continuous_state { z = 1 },
  derivatives { prerequisites = { "z" }, calc = "double *p = zdot; *p = -z[0];" },
  output_port { "y", size = 1, prerequisites = { "z" }, calc = "y[0] = z[0];" },
}
return diagram "nojac" { system { "l", L }, log { "l.y" } }
EOF2
$DIAGC run "$tmp/nojac.lua" --until 0.1 --integrator radau3 --jacobian model >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
   grep -qF "nojac.lua:3:68: d xcdot / d xc needs the Jacobian of l.xcdot: a pointer dereference" "$tmp/err"; then
  ok run.jacobian_model_needed
else fail run.jacobian_model_needed "rc $rc: $(cat "$tmp/err")"; fi
if $DIAGC run "$tmp/nojac.lua" --until 0.1 --integrator radau3 --stats >"$tmp/out" 2>"$tmp/err" &&
   grep -qF "finite differences" "$tmp/out" "$tmp/err"; then ok run.jacobian_fd_fallback
else fail run.jacobian_fd_fallback "$(cat "$tmp/err")"; fi

# diagc info: text
$DIAGC info "$tmp/decay.lua" >"$tmp/info.txt" 2>"$tmp/err"
if grep -q '^  d  leaf Decay$' "$tmp/info.txt" &&
   grep -Eq '^  d\.u +input +size 1  <- force \(diagram input\)$' "$tmp/info.txt" &&
   grep -Eq '^  d\.z +continuous z size 1  initial 1  \(x\)$' "$tmp/info.txt" &&
   grep -Eq '^  d\.n +discrete +size 2  initial 0, 0$' "$tmp/info.txt" &&
   grep -Eq '^  d\.k +size 1  default 0\.5$' "$tmp/info.txt" &&
   grep -Eq '^  d\.tick +periodic publish  period 0\.25 offset 0\.125$' "$tmp/info.txt" &&
   grep -Eq '^  d\.nn +d\.nn  size 2  period 1$' "$tmp/info.txt"; then
  ok info.text
else
  fail info.text "$(cat "$tmp/info.txt" "$tmp/err")"
fi

# diagc info --json: valid, deterministic, -o writes the same
$DIAGC info "$tmp/decay.lua" --json >"$tmp/a.json" 2>"$tmp/err"
$DIAGC info "$tmp/decay.lua" --json -o "$tmp/b.json" 2>>"$tmp/err"
if cmp -s "$tmp/a.json" "$tmp/b.json" && grep -q '"period": 0.25' "$tmp/a.json"; then ok info.json_deterministic
else fail info.json_deterministic "$(cat "$tmp/err")"; fi
json_valid() {
  if command -v jq >/dev/null; then jq -e . "$1" >/dev/null
  elif command -v python3 >/dev/null; then python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1"
  else return 2; fi
}
json_valid "$tmp/a.json"; rc=$?
if [ $rc = 0 ]; then ok info.json_valid
elif [ $rc = 2 ]; then echo "ok info.json_valid # skipped: neither jq nor python3"
else fail info.json_valid "$(head -5 "$tmp/a.json")"; fi
# a spec path with a quote, a backslash and a tab: escaped in the JSON
odd="$tmp/a\"b\\c	d.lua"
cp "$tmp/decay.lua" "$odd"
$DIAGC info "$odd" --json >"$tmp/odd.json" 2>"$tmp/err"
if grep -qF 'a\"b\\c\td.lua"' "$tmp/odd.json" && { json_valid "$tmp/odd.json"; [ $? != 1 ]; }; then ok info.json_escapes_path
else fail info.json_escapes_path "$(grep spec "$tmp/odd.json") $(cat "$tmp/err")"; fi

# the model API of diagc test: checked setters, bounded advance_to, JSON encoder
cat >"$tmp/api_test.lua" <<LUA
local m = diagc.jit("$tmp/decay.lua")
test("api.set_state_decay", function()
  local s = m:simulator({ integrator = "dormand_prince54", accuracy = 1e-10 })
  s.context:set_state("d.z", 3)
  s.context:set_param("d.k", { 2 })
  s.context:set_input("force", 0)
  s:initialize()
  s:advance_to(2)
  near(s.context:get("d.z"), 3 * math.exp(-4), { atol = 1e-8 })
end)
test("api.setters_check", function()
  local c = m:context()
  expect_error(function() c:set_state("d.k", 1) end, "'d.k' is a numeric parameter, not a state; use set_param")
  expect_error(function() c:set_param("d.kay", 1) end, "did you mean 'k'? (numeric parameters: k)")
  expect_error(function() c:set_param("e.k", 1) end, "no system named 'e'")
  expect_error(function() c:set_state("d.n", { 1 }) end, "it has 2 values, got 1")
  expect_error(function() c:set_input("force", 0 / 0) end, "give finite numbers")
  -- at the caller's line, as every other context method's errors
  local msg = expect_error(function() c:set_param("d.kay", 1) end)
  truthy(msg:match("api_test%.lua:%d+: set_param d%.kay: "), msg)
end)
test("api.advance_to_bounds", function()
  local s = m:simulator()
  s:initialize()
  expect_error(function() s:advance_to(math.huge) end, "is not a finite time")
  expect_error(function() s:advance_to(1e12) end, "more than the limit of 1e+09 steps")
  local rc, why = s:try_advance_to(0 / 0)
  eq(rc, -1)
  truthy(why:find("not a finite time", 1, true), why)
end)
test("api.json_strings", function()
  local json = require("diagc.cli.json")
  eq(json.string('a"b\\\\c'), '"a\\\\"b\\\\\\\\c"')
  eq(json.string("\n\t\1\127"), '"\\\\n\\\\t\\\\u0001\\\\u007f"')
  eq(json.string("\195\169"), '"\195\169"')           -- valid UTF-8 passes
  eq(json.string("\255x\192\128"), '"\\\\ufffdx\\\\ufffd\\\\ufffd"') -- invalid bytes, overlong form
  eq(json.encode({ b = 1, a = { 0.1, 1e300 }, c = json.array() }),
    '{\n  "a": [\n    0.1,\n    1e+300\n  ],\n  "b": 1,\n  "c": []\n}\n')
end)
LUA
out=$($DIAGC test "$tmp/api_test.lua" 2>&1)
echo "$out" | grep -E '^(ok|FAIL) '
echo "$out" | grep -q '^4 passed, 0 failed' || fail api.runner "$out"

# --help names every option each command accepts (its flags table) and
# every integrator `diagc run` accepts (its own "unknown integrator" list)
help=$($DIAGC --help)
missing=""
for cmd in run linearize graph info generate deploy; do
  if [ $cmd = generate ]; then usage=$(awk '/^usage: diagc SPEC/ { on = 1; print; next } on && /^ +\[/ { print; next } { on = 0 }' <<<"$help")
  else usage=$(awk -v c="diagc $cmd " 'index($0, c) { on = 1; print; next } on && /^ +diagc / { on = 0 } on && /^ +\[/ { print } /^$/ { on = 0 }' <<<"$help"); fi
  for flag in $(grep -o '\["-[-a-z]*"\] = ' "generator/diagc/cli/$cmd.lua" | sed 's/\["\(.*\)"\] = /\1/' | sort -u); do
    grep -q -- "[[ |]$flag[] ]" <<<"$usage" || missing+=" $cmd:$flag"
  done
done
for flag in --filter --timeout; do grep -q -- "diagc test .*$flag" <<<"$help" || missing+=" test:$flag"; done
known=$($DIAGC run "$tmp/decay.lua" --integrator none 2>&1 | sed -n 's/.*(integrators: \(.*\))$/\1/p' | tr -d ,)
[ -n "$known" ] || missing+=" (no integrator list in the error)"
for i in $known; do grep -q -- "$i" <<<"$help" || missing+=" integrator:$i"; done
if [ -z "$missing" ]; then ok help.complete; else fail help.complete "--help lacks$missing"; fi

# every command's own --help (or -h): its usage lines and its row of the
# main help, on stdout, status 0, nothing else run (the spec need not
# exist); after --, --help is an argument
bad=""
for cmd in run sweep linearize trim graph info view test deploy; do
  for h in --help -h; do
    o=$($DIAGC $cmd nonexistent.lua $h 2>"$tmp/help.err"); st=$?
    if [ $st -ne 0 ] || [ -s "$tmp/help.err" ] || ! head -1 <<<"$o" | grep -q "^usage: diagc $cmd " \
      || ! grep -q "^  $cmd  " <<<"$o"; then bad+=" $cmd$h(status $st)"; fi
  done
done
$DIAGC run -- --help >/dev/null 2>"$tmp/help.err" && bad+=" run--:status0"
grep -q "^diagc: " "$tmp/help.err" || bad+=" run--:no-error"
if [ -z "$bad" ]; then ok help.per_command; else fail help.per_command "wrong:$bad"; fi
exit 0
