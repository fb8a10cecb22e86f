-- The argument checks of diagc test's APIs (docs/testing.md, "Misuse"):
-- silent wrong numbers first (a cotangent of the wrong size, a NaN state
-- or effort), then the option tables (unknown keys, types, the commands'
-- ranges).  Expected numbers are analytic: two free bodies on prismatic
-- joints (x and y), no gravity, mass m, time step h, parallel update:
-- q' = q + h v, v' = v + h u / m, so after N steps dq_N/dq_0 = 1,
-- dq_N/dv_0 = N h, dv_N/dv_0 = 1, dq_N/du_k = h^2 (N - k) / m,
-- dv_N/du_k = h / m.
local dsl = diagc.dsl
local h, N, mass = 0.01, 5, 2.0

local function slider(name, axis, actuated)
  return dsl.body { name, mass = mass, inertia = { 1, 1, 1 },
    joint = { "prismatic", axis = axis, actuated = actuated } }
end
local two = diagc.jit(dsl.diagram "two" {
  dsl.system { "w", dsl.world "pair" { time_step = h, gravity = { 0, 0, 0 }, position_update = "parallel",
    slider("a", { 1, 0, 0 }, true), slider("b", { 0, 1, 0 }, false) } },
  dsl.fix_input { "w.effort", value = { 0 } } })

local function traj(opts) return two:context():rollout(opts or { steps = N }) end

group("vjp", function()
  test("analytic_gradient", function()
    local g = traj():vjp({ 1, 1 }, { 1, 1 })
    near(g.q, { 1, 1 }, { atol = 1e-15 })
    near(g.v, { 1 + N * h, 1 + N * h }, { rtol = 1e-14 })
    for k = 1, N do near(g.effort[k][1], h * h * (N - k) / mass + h / mass, { rtol = 1e-12 }) end
  end)
  test("short_cotangent_is_an_error", function()
    local t = traj()
    -- read as {1, 0}, {1, 0} this gave 1 + N h in v[1] and 0 in v[2]: wrong numbers
    expect_error(function() t:vjp({ 1 }, { 1 }) end, "vjp: lq has 1 value, expected 2; the cotangent of the final q "
      .. "has nv = 2 numbers (tangent coordinates)")
    expect_error(function() t:vjp({ 1, 1 }, { 1 }) end, "vjp: lv has 1 value, expected 2")
  end)
  test("long_cotangent_is_an_error", function()
    expect_error(function() traj():vjp({ 1, 0, 0 }, { 1, 0 }) end, "vjp: lq has 3 values, expected 2")
  end)
  test("non_numbers_and_nan", function()
    local t = traj()
    expect_error(function() t:vjp(nil) end, "vjp: lq must be a list of 2 numbers, got nil")
    expect_error(function() t:vjp({ 1, 0 }) end, "vjp: lv must be a list of 2 numbers, got nil")
    expect_error(function() t:vjp({ 1, 0 / 0 }, { 0, 0 }) end, "vjp: lq[2] is NaN")
    expect_error(function() t:vjp({ 1, 0 }, { "x", 0 }) end, "vjp: lv[1] is 'x', not a number")
    expect_error(function() t:vjp({ 1, 0 }, { 0, -math.huge }) end, "vjp: lv[2] is -inf")
  end)
  test("nq_differs_from_nv", function()
    -- a free body: q has 7 numbers (position, quaternion), the cotangent nv = 6
    local m = diagc.jit(dsl.diagram "free" { dsl.system { "w", dsl.world "f" { time_step = h,
      gravity = { 0, 0, 0 }, dsl.body { "b", mass = 1, inertia = { 1, 1, 1 }, joint = { "free" } } } } })
    local t = m:context():rollout { steps = 2 }
    expect_error(function() t:vjp({ 1, 0, 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0, 0 }) end,
      "vjp: lq has 7 values, expected 6; the cotangent of the final q has nv = 6 numbers (tangent "
      .. "coordinates; q itself has 7)")
    near(t:vjp({ 1, 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0, 0 }).v[1], 2 * h, { rtol = 1e-12 })
  end)
end)

group("nonfinite", function()
  test("step_jacobians_nan_state", function()
    local c = two:context()
    c:set("w.vel", { 0, 0 / 0 })
    expect_error(function() c:step_jacobians() end,
      "step_jacobians: w.vel[1] is NaN; the step needs a finite state and effort")
    expect_error(function() c:step_jacobians { jacobian = "fd" } end, "step_jacobians: w.vel[1] is NaN")
    c:set("w.vel", { 0, 0 })
    c:set("w.pos", { math.huge, 0 })
    expect_error(function() c:step_jacobians() end, "step_jacobians: w.pos[0] is inf")
  end)
  test("step_jacobians_nan_effort", function()
    local c = two:context()
    c:set("w.effort", 0 / 0)
    expect_error(function() c:step_jacobians() end, "step_jacobians: w.effort[0] is NaN")
  end)
  test("step_jacobians_effort_from_an_output", function()
    local m = diagc.jit(dsl.diagram "driven" {
      dsl.system { "w", dsl.world "one" { time_step = h, gravity = { 0, 0, 0 }, slider("a", { 1, 0, 0 }, true) } },
      dsl.system { "k", dsl.leaf "K" { dsl.parameter { "g", default = { 1 } },
        dsl.output_port { "f", size = 1, prerequisites = { "g" }, calc = [[ f[0] = g[0]; ]] } } },
      dsl.connect { "k.f", "w.effort" } })
    local c = m:context()
    c:set("k.g", 0 / 0)
    expect_error(function() c:step_jacobians() end, "step_jacobians: w.effort[0] (from k.f) is NaN")
  end)
  test("rollout_nan_state", function()
    local c = two:context()
    c:set("w.vel", { 0 / 0, 0 })
    expect_error(function() c:rollout { steps = 3 } end, "rollout: at step 1, w.vel[0] is NaN")
  end)
  test("rollout_nan_effort", function()
    local eff = {}
    for k = 1, N do eff[k] = { k == 3 and 0 / 0 or 1 } end
    expect_error(function() traj { steps = N, effort = eff } end, "rollout: effort[3][1] is NaN")
    expect_error(function() traj { steps = N, effort = function(k) return k == 4 and math.huge or 1 end } end,
      "rollout: effort(4, q, v)[1] is inf")
  end)
  test("rollout_effort_sizes", function()
    expect_error(function() traj { steps = N, effort = { { 1 }, { 1 } } } end,
      "rollout: effort has 2 entries for steps = 5; give one effort vector per step, or a function(k, q, v)")
    expect_error(function() traj { steps = 2, effort = { { 1 }, { 1, 2 } } } end,
      "rollout: effort[2] has 2 values, expected 1; the world's effort input w.effort has 1 element")
    expect_error(function() traj { steps = 2, effort = function() return nil end } end,
      "rollout: effort(1, q, v) must be a list of 1 number, got nil")
    expect_error(function() traj { steps = 2, effort = 3 } end,
      "rollout: effort must be a list of effort vectors (one per step) or a function(k, q, v), got 3")
  end)
  test("rollout_effort_function_numbers", function()
    -- u = 1 on every step: v_N = N h / m, q_N = h^2 (N (N - 1) / 2) / m (parallel update)
    local t = traj { steps = N, effort = function() return 1 end }
    near(t.v[N + 1][1], N * h / mass, { rtol = 1e-14 })
    near(t.q[N + 1][1], h * h * N * (N - 1) / 2 / mass, { rtol = 1e-14 })
  end)
end)

group("options", function()
  test("rollout_steps", function()
    expect_error(function() traj { steps = math.huge } end,
      "rollout: invalid steps inf: expected a whole number in [1, 500000] (world w keeps 20 Jacobian entries per "
      .. "step, at most 10000000 in all; split the trajectory into several rollouts)")
    expect_error(function() traj { steps = 0 } end, "rollout: invalid steps 0: expected a whole number in [1, 500000]")
    expect_error(function() traj { steps = 2.5 } end, "invalid steps 2.5")
    expect_error(function() traj {} end, "rollout: give steps = N (a whole number from 1 to 500000)")
    expect_error(function() two:context():rollout() end, "rollout expects {steps = N[, effort = ...]}")
    expect_error(function() traj { steps = 2, stpes = 3 } end, "rollout: unknown option 'stpes'; did you mean 'steps'?")
    expect_error(function() two:context():rollout(5, { steps = 2 }) end,
      "rollout: the world must be named by its path (a string), got 5")
  end)
  test("step_jacobians_options", function()
    expect_error(function() two:context():step_jacobians { jacobian = "exact" } end,
      "step_jacobians: jacobian: unknown value 'exact' (values: fd, model)")
    expect_error(function() two:context():step_jacobians { jacobain = "fd" } end,
      "step_jacobians: unknown option 'jacobain'; did you mean 'jacobian'?")
  end)
  -- the reasons `diagc linearize` gives for --tolerance -1 / nan (tests/hostile/linearize.sh)
  test("linearize_options", function()
    local c = diagc.jit(diagc.root .. "/examples/pendulum.lua"):context()
    c:set("pend.theta", 0)
    expect_error(function() c:linearize { tolerance = -1 } end,
      "linearize: invalid tolerance -1: expected a finite decimal number >= 0")
    expect_error(function() c:linearize { tolerance = 0 / 0 } end, "linearize: invalid tolerance nan")
    expect_error(function() c:linearize { mdoe = "linearize" } end,
      "linearize: unknown option 'mdoe'; did you mean 'mode'? (options: eig, input, jacobian, mode, output, tolerance)")
    expect_error(function() c:linearize { mode = "lin" } end, "linearize: mode: unknown value 'lin'")
    expect_error(function() c:linearize { tolerance = "1e-3" } end, "linearize: tolerance must be a number")
    near(c:linearize { tolerance = 0 }.A, { { 0, 1 }, { -9.81, -0.1 } })
  end)
  test("simulator_options", function()
    local m = diagc.jit(diagc.root .. "/examples/pendulum.lua")
    expect_error(function() m:simulator { accuracy = 0 / 0 } end,
      "simulator: invalid accuracy nan: expected a finite decimal number >= 1e-14 and <= 1")
    expect_error(function() m:simulator { accuracy = 2 } end, "simulator: invalid accuracy 2")
    expect_error(function() m:simulator { max_step = 0 } end, "simulator: invalid max_step 0: expected a finite "
      .. "decimal number > 0")
    expect_error(function() m:simulator { min_step = -math.huge } end, "simulator: invalid min_step -inf")
    expect_error(function() m:simulator { error_control = 2 } end,
      "simulator: error_control must be 0, 1, false or true, got 2")
    expect_error(function() m:simulator { max_stpe = 1 } end,
      "simulator: unknown option 'max_stpe'; did you mean 'max_step'?")
    expect_error(function() m:simulator { jacobian = "exact" } end,
      "simulator: unknown jacobian source 'exact' (sources: fd, model)")
    -- flags take false/true as 0/1: fixed steps of 0.25 s without error control
    local decay = diagc.jit(dsl.diagram "decay" { dsl.system { "d", dsl.leaf "D" {
      dsl.continuous_state { z = { "x" }, z0 = { 1 } },
      dsl.derivatives { prerequisites = { "z" }, calc = [[ zdot[0] = -z[0]; ]] } } } })
    local s = decay:simulator { error_control = false, fixed_step = 0.25, integrator = "runge_kutta4" }
    s:advance_to(1)
    eq(tonumber(s:stats().integrator_steps), 4)
  end)
  test("update_jacobian_options", function()
    local c = diagc.jit(diagc.root .. "/examples/discrete_counter.lua"):context()
    expect_error(function() c:update_jacobian { perod = 0.02 } end,
      "update_jacobian: unknown option 'perod'; did you mean 'period'?")
    expect_error(function() c:update_jacobian { period = -1 } end, "update_jacobian: invalid period -1")
    eq(c:update_jacobian { period = 1 / 50 }.J, { { 1 } })
  end)
  test("jit_options", function()
    expect_error(function() diagc.jit(diagc.root .. "/examples/pendulum.lua", { prefx = "p" }) end,
      "diagc.jit: unknown option 'prefx'; did you mean 'prefix'? (options: defines, prefix)")
    expect_error(function() diagc.jit(nil) end,
      "diagc.jit expects a spec file's path or a diagram built with diagc.dsl, got nil")
  end)
  test("setters_check_types", function()
    expect_error(function() two:context():set("w.vel", { "a", 1 }) end, "w.vel: value 1 is 'a', not a number")
  end)
  test("assertions", function()
    expect_error(function() near(1, 1, { rtol = -1 }) end, "near: invalid rtol -1: expected a finite decimal number >= 0")
    expect_error(function() near(1, 1, { rtoll = 1 }) end, "near: unknown option 'rtoll'; did you mean 'rtol'?")
    expect_error(function() expect_error(nil) end, "expect_error(fn, text): fn must be a function, got nil")
    expect_error(function() expect_error(function() error("x") end, 5) end, "text must be a string, got 5")
  end)
end)

-- every misuse above is raised at this file's line, not inside diagc
test("misuse_is_reported_at_the_test_line", function()
  local line = debug.getinfo(1, "l").currentline + 1
  local ok, e = pcall(function() traj():vjp({ 1 }, { 1 }) end)
  eq(ok, false)
  truthy(e:find("test_api_misuse_test.lua:" .. line .. ": vjp:", 1, true), e)
  local ok2, e2 = pcall(function() two:context():rollout { steps = 2, effort = { { 1 } } } end)
  eq(ok2, false)
  truthy(e2:find("test_api_misuse_test.lua:" .. (line + 3) .. ": rollout:", 1, true), e2)
end)
