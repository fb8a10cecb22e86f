-- Run with: bin/diagc test examples/spring_mass_test.lua
-- Checks examples/spring_mass.lua against x(t) = cos(t) (k = m = 1).
local m = diagc.jit(diagc.root .. "/examples/spring_mass.lua")

local function worst_error(sim, omega)
  local log = sim:log("spring.x")
  local worst = 0
  for i, t in ipairs(log.t) do
    local d = math.abs(log.v[i] - math.cos(omega * t))
    if d > worst then worst = d end
  end
  return worst, #log.t
end

test("spring_mass.cos_t", function()
  local sim = m:simulator { accuracy = 1e-9 }
  sim:initialize()
  sim:advance_to(10)
  local worst, n = worst_error(sim, 1)
  eq(n, 1001)
  truthy(worst < 1e-7, "worst error " .. worst)
end)

-- every integrator follows cos(t) with the error of its order: at h = 0.01
-- over [0, 2] the errors are about 4e-3 (order 1), 3e-5 (2), 3.4e-8 (3),
-- 1.5e-10 (4) and 2e-14 (5); each bound is about 3x its order's error and
-- below the error of a method one order lower, so a method that lost an
-- order fails here (the C tests in test_simulator_integrators.c measure
-- the orders themselves).
local FIXED = { explicit_euler = 1e-2, semi_explicit_euler = 1e-2, implicit_euler = 1e-2,
  runge_kutta2 = 1e-4, runge_kutta3 = 1e-7, bogacki_shampine3 = 1e-7,
  runge_kutta4 = 5e-10, dormand_prince54 = 1e-12 }
for name, tol in pairs(FIXED) do
  test("spring_mass.fixed_step." .. name, function()
    local sim = m:simulator { integrator = name, error_control = 0, max_step = 0.01 }
    sim:initialize()
    sim:advance_to(2)
    local worst = worst_error(sim, 1)
    truthy(worst < tol, name .. " worst error " .. worst .. " (bound " .. tol .. ")")
  end)
end

test("spring_mass.parameters_set_frequency", function()
  local sim = m:simulator { integrator = "dormand_prince54", accuracy = 1e-10 }
  sim.context:set("spring.stiffness", 4)   -- omega = sqrt(k/m) = 2
  sim:initialize()
  sim:advance_to(5)
  local worst = worst_error(sim, 2)
  truthy(worst < 1e-7, "worst error " .. worst)
end)

test("spring_mass.semi_explicit_euler_bounded_energy", function()
  -- symplectic Euler keeps the energy bounded over many periods, explicit
  -- Euler lets it grow by (1 + h^2) per step (h = 0.01, the log period)
  local function final_energy(integ)
    local sim = m:simulator { integrator = integ, max_step = 0.01 }
    sim:initialize()
    sim:advance_to(100)
    return sim.context:eval("spring.energy")
  end
  local e_semi, e_expl = final_energy("semi_explicit_euler"), final_energy("explicit_euler")
  near(e_semi, 0.5, { rtol = 0.01 })
  near(e_expl, 0.5 * (1 + 0.01 ^ 2) ^ 10000, { rtol = 1e-6 })
end)
