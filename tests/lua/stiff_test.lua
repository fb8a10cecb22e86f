-- The stiff integrators through `diagc test`'s simulator: radau5, radau3
-- and implicit_euler on Robertson's kinetics (bench/stiff/specs/robertson.lua)
-- conserve y1 + y2 + y3, agree with each other, and report their
-- Jacobians, LU factorizations and Newton iterations in the statistics;
-- with the generated Jacobian (the default) and with finite differences
-- (jacobian = "fd") they agree within the tolerance, and the generated one
-- takes fewer derivative evaluations; radau5 gives the same bits with the
-- model's caching on and off.
local function here()
  local src = debug.getinfo(1, "S").source:gsub("^@", "")
  if src:sub(1, 1) ~= "/" then src = (os.getenv("PWD") or ".") .. "/" .. src end
  return src:match("^(.*)/[^/]*$")
end
local spec = here() .. "/../../bench/stiff/specs/robertson.lua"

local function run(integ, acc, t_end, jacobian, caching)
  local sim = diagc.jit(spec):simulator({ integrator = integ, accuracy = acc, max_step = 10, jacobian = jacobian })
  if caching == false then sim.context:set_caching(false) end
  sim:advance_to(t_end or 40)
  local c = sim.context
  return { c:get("rob.y1"), c:get("rob.y2"), c:get("rob.y3") }, sim:stats()
end

test("stiff.robertson.radau3_stats", function()
  local y, st = run("radau3", 1e-9)
  assert(math.abs(y[1] + y[2] + y[3] - 1) < 1e-10, "mass not conserved")
  assert(st.jacobian_evals > 0 and st.lu_factorizations > 0, "no Jacobian or LU counted")
  assert(st.newton_iterations >= st.integrator_steps, "fewer Newton iterations than steps")
  assert(st.jacobian_evals * 4 < st.integrator_steps, "the Jacobian was not reused")
end)

test("stiff.robertson.radau3_vs_implicit_euler", function()
  local a = run("radau3", 1e-10)
  local b = run("implicit_euler", 1e-7)
  for i = 1, 3 do
    assert(math.abs(a[i] - b[i]) <= 2e-3 * math.max(math.abs(a[i]), 1e-9),
      string.format("y%d: radau3 %.10g, implicit_euler %.10g", i, a[i], b[i]))
  end
end)

test("stiff.runge_kutta3_counts_no_jacobian", function()
  local _, st = run("runge_kutta3", 1e-4, 0.01)
  eq(tonumber(st.jacobian_evals), 0); eq(tonumber(st.newton_iterations), 0)
end)

local source_name = require("diagc.testing.model").jacobian_source_name

-- model (default) against fd: same answer within 10 x the accuracy (an
-- absolute tolerance), the sources reported, fewer derivative evaluations
-- with the generated Jacobian, each FD Jacobian costing nxc = 3 of them
for _, case in ipairs({ { "radau5", 1e-9 }, { "radau3", 1e-9 }, { "implicit_euler", 1e-7 } }) do
  test("stiff.robertson.model_vs_fd_jacobian." .. case[1], function()
    local a, sa = run(case[1], case[2])
    local b, sb = run(case[1], case[2], nil, "fd")
    eq(source_name(sa.jacobian_source), "model")
    eq(source_name(sb.jacobian_source), "fd")
    for i = 1, 3 do
      assert(math.abs(a[i] - b[i]) <= 10 * case[2],
        string.format("y%d: model %.12g, fd %.12g", i, a[i], b[i]))
    end
    assert(sa.jacobian_evals > 0, "no Jacobian formed")
    assert(sa.derivative_evals < sb.derivative_evals, string.format(
      "derivative evaluations: model %d, fd %d", tonumber(sa.derivative_evals), tonumber(sb.derivative_evals)))
    assert(sb.derivative_evals >= 3 * sb.jacobian_evals, "fd Jacobians did not evaluate the derivatives")
  end)
end

for _, integ in ipairs({ "radau3", "radau5" }) do
  test("stiff.vanderpol.model_vs_fd_jacobian." .. integ, function()
    local vdp = here() .. "/../../bench/stiff/specs/vanderpol.lua"
    local m = diagc.jit(vdp)
    local function go(jacobian)
      local sim = m:simulator({ integrator = integ, accuracy = 1e-6, max_step = 100, jacobian = jacobian })
      sim:advance_to(100)
      return sim.context:get("vdp.x"), sim:stats()
    end
    local xa, sa = go("model")
    local xb, sb = go("fd")
    assert(math.abs(xa - xb) <= 1e-5, string.format("x(100): model %.12g, fd %.12g", xa, xb))
    assert(sa.derivative_evals < sb.derivative_evals, "the generated Jacobian saved no evaluations")
  end)
end

-- radau5 with the generated Jacobian (a cache entry of the model) and
-- caching off: bit-identical states and identical statistics
test("stiff.robertson.radau5_caching_on_off", function()
  local a, sa = run("radau5", 1e-9, 1e3)
  local b, sb = run("radau5", 1e-9, 1e3, nil, false)
  for i = 1, 3 do eq(a[i], b[i]) end
  eq(tonumber(sa.integrator_steps), tonumber(sb.integrator_steps))
  eq(tonumber(sa.derivative_evals), tonumber(sb.derivative_evals))
  eq(tonumber(sa.jacobian_evals), tonumber(sb.jacobian_evals))
  assert(sa.jacobian_evals > 0 and sa.newton_iterations >= sa.integrator_steps, "no Newton work counted")
end)

test("stiff.robertson.radau5_vs_radau3", function()
  local a = run("radau5", 1e-11, 1e5)
  local b = run("radau3", 1e-11, 1e5)
  for i = 1, 3 do
    assert(math.abs(a[i] - b[i]) <= 1e-6 * math.max(math.abs(b[i]), 1e-9),
      string.format("y%d: radau5 %.12g, radau3 %.12g", i, a[i], b[i]))
  end
end)

test("stiff.jacobian_option_bad_value", function()
  local ok, err = pcall(function() diagc.jit(spec):simulator({ integrator = "radau3", jacobian = "exact" }) end)
  assert(not ok and tostring(err):find("unknown jacobian source 'exact' (sources: fd, model)", 1, true), tostring(err))
end)
