-- The stiff integrators through `diagc test`'s simulator: radau3 and
-- implicit_euler on Robertson's kinetics (bench/stiff/specs/robertson.lua)
-- conserve y1 + y2 + y3, agree with each other, and report their
-- Jacobians, LU factorizations and Newton iterations in the statistics.
local function here()
  local src = debug.getinfo(1, "S").source:gsub("^@", "")
  if src:sub(1, 1) ~= "/" then src = (os.getenv("PWD") or ".") .. "/" .. src end
  return src:match("^(.*)/[^/]*$")
end
local spec = here() .. "/../../bench/stiff/specs/robertson.lua"

local function run(integ, acc, t_end)
  local sim = diagc.jit(spec):simulator({ integrator = integ, accuracy = acc, max_step = 10 })
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
