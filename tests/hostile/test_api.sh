# tests/hostile/test_api.sh: misuse of diagc test's APIs in a test file
# (docs/testing.md, "Misuse") fails that test with one line naming the
# test file's line and the reason, never a line inside diagc or a Lua
# internal error, and the runner goes on with the next test, in bounded
# time.  Silent wrong numbers first: a cotangent of the wrong size, a NaN
# state or effort.

# hapi NAME BODY: t_test.lua with a two-dof world (x and y sliders, the
# first actuated, effort fixed) on line 2, BODY inside test "misuse" on
# line 3, then a test "after" that passes; run with --timeout 20
hapi() {
  hcase "test_api.$1"
  cat >"$T/t_test.lua" <<EOF
local dsl = diagc.dsl
local m = diagc.jit(dsl.diagram "two" { dsl.system { "w", dsl.world "pair" { time_step = 0.01, gravity = { 0, 0, 0 }, dsl.body { "a", mass = 2, inertia = { 1, 1, 1 }, joint = { "prismatic", axis = { 1, 0, 0 }, actuated = true } }, dsl.body { "b", mass = 2, inertia = { 1, 1, 1 }, joint = { "prismatic", axis = { 0, 1, 0 } } } } }, dsl.fix_input { "w.effort", value = { 0 } } })
test("misuse", function() $2 end)
test("after", function() end)
EOF
  hrun --timeout 60 -- "$DIAGC" test "$T/t_test.lua" --timeout 20
}

# expect_misuse ERE: the misuse test failed at line 3 with ERE, and only then
expect_misuse() {
  expect_exit 1
  expect_stdout_match "^FAIL misuse: [^ ]*t_test\.lua:3: $1"
  expect_stdout_match '^ok after '
  expect_stdout_match '^1 passed, 1 failed$'
  check "a line inside diagc or a Lua internal error: $out" \
    sh -c '! printf "%s" "$1" | grep -qE "generator/diagc|attempt to (index|call|concatenate|compare|perform)"' _ "$out"
  check "the FAIL line spans more than one line" [ "$(printf '%s\n' "$out" | grep -c '^FAIL')" = 1 ]
  expect_within 30
}

hapi vjp_short_cotangent 'm:context():rollout { steps = 5 }:vjp({ 1 }, { 1 })'
expect_misuse 'vjp: lq has 1 value, expected 2; the cotangent of the final q has nv = 2 numbers'
hdone

hapi vjp_long_cotangent 'm:context():rollout { steps = 5 }:vjp({ 1, 0 }, { 1, 0, 0 })'
expect_misuse 'vjp: lv has 3 values, expected 2'
hdone

hapi vjp_nil 'm:context():rollout { steps = 5 }:vjp(nil)'
expect_misuse 'vjp: lq must be a list of 2 numbers, got nil'
hdone

hapi step_jacobians_nan_state 'local c = m:context(); c:set("w.vel", { 0, 0 / 0 }); c:step_jacobians()'
expect_misuse 'step_jacobians: w\.vel\[1\] is NaN; the step needs a finite state and effort'
hdone

hapi rollout_nan_effort 'm:context():rollout { steps = 3, effort = { { 1 }, { 0 / 0 }, { 1 } } }'
expect_misuse 'rollout: effort\[2\]\[1\] is NaN'
hdone

hapi rollout_short_effort_list 'm:context():rollout { steps = 3, effort = { { 1 } } }'
expect_misuse 'rollout: effort has 1 entry for steps = 3; give one effort vector per step'
hdone

hapi rollout_effort_returns_nil 'm:context():rollout { steps = 3, effort = function() return nil end }'
expect_misuse 'rollout: effort\(1, q, v\) must be a list of 1 number, got nil'
hdone

# bounded: refused before any step (it ran until the test timeout)
hapi rollout_steps_huge 'm:context():rollout { steps = math.huge }'
expect_misuse 'rollout: invalid steps inf: expected a whole number in \[1, 500000\] \(world w keeps 20 Jacobian entries per step'
expect_within 10
hdone

hapi linearize_negative_tolerance 'm:context():linearize { tolerance = -1 }'
expect_misuse 'linearize: invalid tolerance -1: expected a finite decimal number >= 0$'
hdone

hapi linearize_nan_tolerance 'm:context():linearize { tolerance = 0 / 0 }'
expect_misuse 'linearize: invalid tolerance nan: expected a finite decimal number >= 0$'
hdone

hapi linearize_unknown_key 'm:context():linearize { mdoe = "first_order_taylor" }'
expect_misuse "linearize: unknown option 'mdoe'; did you mean 'mode'\\?"
hdone

hapi simulator_nan_accuracy 'm:simulator { accuracy = 0 / 0 }'
expect_misuse 'simulator: invalid accuracy nan: expected a finite decimal number >= 1e-14 and <= 1$'
hdone

hapi set_param_unknown 'm:context():set_param("w.nope", 1)'
expect_misuse "set_param w\.nope: "
hdone

# the runner's own functions: a misused test() fails at its line, the
# file's other tests still run
hcase test_api.test_without_name
cat >"$T/t_test.lua" <<'EOF'
test("first", function() end)
test(nil, function() end)
group("g", 5)
test("after", function() end)
EOF
hrun --timeout 60 -- "$DIAGC" test "$T/t_test.lua"
expect_exit 1
expect_stdout_match '^FAIL [^ ]*t_test\.lua:2: test\(name, fn\): the name must be a non-empty string, got nil$'
expect_stdout_match "^FAIL [^ ]*t_test\.lua:3: group\(name, fn\): 'g': the second argument must be a function, got 5$"
expect_stdout_match '^ok first '
expect_stdout_match '^ok after '
expect_stdout_match '^2 passed, 2 failed$'
check "runner.lua in the output: $out" sh -c '! printf "%s" "$1" | grep -q "runner.lua"' _ "$out"
hdone

hcase test_api.test_inside_test
cat >"$T/t_test.lua" <<'EOF'
test("outer", function()
  test("inner", function() end)
end)
EOF
hrun --timeout 60 -- "$DIAGC" test "$T/t_test.lua"
expect_exit 1
expect_stdout_match "^FAIL outer: [^ ]*t_test\.lua:2: test\('inner', fn\) inside a running test; declare tests at the file's top level$"
hdone
