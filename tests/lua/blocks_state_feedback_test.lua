-- The library's LQR, Kalman and observer blocks (generator/diagc/lib/
-- blocks/state_feedback.lua) against closed forms: the double integrator's
-- LQR loop, a scalar LQR with references, a scalar discrete LQR, scalar
-- Kalman filters (continuous and discrete) whose error decays at the
-- rate the Riccati solution gives, and observer gains placed by hand.
local dsl = diagc.dsl
local blocks, system, connect, fix_input, log = dsl.blocks, dsl.system, dsl.connect, dsl.fix_input, dsl.log

test("blocks.lqr_double_integrator", function()
  local A, B = { { 0, 1 }, { 0, 0 } }, { { 0 }, { 1 } }
  local m = diagc.jit(dsl.diagram "blocks_lqr" {
    system { "plant", blocks.state_space { A = A, B = B, C = { { 1, 0 }, { 0, 1 } }, x0 = { 1, 0 } } },
    system { "k", blocks.lqr { A = A, B = B, Q = { { 1, 0 }, { 0, 1 } }, R = { { 1 } } } },
    connect { "plant.y", "k.x" }, connect { "k.u", "plant.u" },
    log { "plant.y", period = 0.1 },
  })
  local c = m:context()
  local K = c:get("k.K")
  near(K[1], 1, { atol = 1e-12 })
  near(K[2], math.sqrt(3), { atol = 1e-12 })
  local sim = m:simulator { accuracy = 1e-11 }
  sim:initialize()
  sim:advance_to(6)
  local l, s = sim:log("plant.y"), math.sqrt(3)
  for k, t in ipairs(l.t) do
    near(l.v[k][1], math.exp(-s * t / 2) * (math.cos(t / 2) + s * math.sin(t / 2)), { atol = 1e-8 })
  end
end)

test("blocks.lqr_reference_and_discrete", function()
  -- x' = x + u, q = r = 1: K = 1 + sqrt 2; x_ref = 2, u_ref = -2 (the
  -- equilibrium): x' = -sqrt 2 (x - 2)
  -- x[k+1] = 1.2 x + u, q = r = 1: X^2 - 1.44 X - 1 = 0, K = 1.2 X / (1 + X)
  local X = (1.44 + math.sqrt(1.44 ^ 2 + 4)) / 2
  local Kd = 1.2 * X / (1 + X)
  local m = diagc.jit(dsl.diagram "blocks_lqr_ref" {
    system { "p", blocks.integrator { x0 = 0.5 } },
    system { "fb", blocks.sum { signs = "++" } },
    system { "k", blocks.lqr { A = { { 1 } }, B = { { 1 } }, Q = { { 1 } }, R = { { 1 } }, reference = true } },
    fix_input { "k.x_ref", value = { 2 } }, fix_input { "k.u_ref", value = { -2 } },
    connect { "p.y", "k.x" }, connect { "p.y", "fb.u1" }, connect { "k.u", "fb.u2" }, connect { "fb.y", "p.u" },
    system { "dp", blocks.discrete_state_space { A = { { 1.2 } }, B = { { 1 } }, C = { { 1 } }, x0 = { 1 }, period = 0.1, offset = 0.05 } },
    system { "dk", blocks.lqr { A = { { 1.2 } }, B = { { 1 } }, Q = { { 1 } }, R = { { 1 } }, period = 0.1 } },
    connect { "dp.y", "dk.x" }, connect { "dk.u", "dp.u" },
    log { "p.y", period = 0.1 }, log { "dp.y", period = 0.1 },
  })
  near(m:context():get("k.K"), 1 + math.sqrt(2), { atol = 1e-12 })
  near(m:context():get("dk.K"), Kd, { atol = 1e-12 })
  local sim = m:simulator { accuracy = 1e-11 }
  sim:initialize()
  sim:advance_to(2)
  local p, dp = sim:log("p.y"), sim:log("dp.y")
  for k, t in ipairs(p.t) do
    near(p.v[k], 2 - 1.5 * math.exp(-math.sqrt(2) * t), { atol = 1e-8 })
    -- the controller samples at 0.1 j, the plant at 0.1 j + 0.05: after
    -- n plant updates x = (1.2 - K)^n
    local n = math.floor((t - 0.05) / 0.1 + 1e-9) + 1
    near(dp.v[k], (1.2 - Kd) ^ n, { atol = 1e-12 })
  end
end)

test("blocks.kalman", function()
  -- x' = -x + u, y = x, W = V = 1: P = sqrt 2 - 1 = L, e' = -sqrt 2 e
  -- x[k+1] = 0.9 x + u, W = 1, V = 2: P^2 + P (2 - 1.62 - 1) - 2 = 0,
  -- L = P / (P + 2), e[k+1] = 0.9 (1 - L) e[k]
  local P = (0.62 + math.sqrt(0.62 ^ 2 + 8)) / 2
  local Ld = P / (P + 2)
  local m = diagc.jit(dsl.diagram "blocks_kalman" {
    system { "u", blocks.sine { amplitude = 0.7, frequency = 2 } },
    system { "p", blocks.state_space { A = { { -1 } }, B = { { 1 } }, C = { { 1 } }, x0 = { 1 } } },
    system { "kf", blocks.kalman { A = { { -1 } }, B = { { 1 } }, C = { { 1 } }, W = { { 1 } }, V = { { 1 } } } },
    connect { "u.y", "p.u" }, connect { "u.y", "kf.u" }, connect { "p.y", "kf.y" },
    system { "c", blocks.constant { value = 0.3 } },
    system { "dp", blocks.discrete_state_space { A = { { 0.9 } }, B = { { 1 } }, C = { { 1 } }, x0 = { 2 }, period = 0.1, offset = 0.05 } },
    system { "dk", blocks.kalman { A = { { 0.9 } }, B = { { 1 } }, C = { { 1 } }, W = { { 1 } }, V = { { 2 } }, period = 0.1, offset = 0.05 } },
    connect { "c.y", "dp.u" }, connect { "c.y", "dk.u" }, connect { "dp.y", "dk.y" },
    log { "p.y", period = 0.1 }, log { "kf.x", period = 0.1 }, log { "dp.y", period = 0.1 }, log { "dk.x", period = 0.1 },
  })
  local c = m:context()
  near(c:get("kf.L"), math.sqrt(2) - 1, { atol = 1e-12 })
  near(c:get("dk.L"), Ld, { atol = 1e-12 })
  local sim = m:simulator { accuracy = 1e-11 }
  sim:initialize()
  sim:advance_to(3)
  local p, kf, dp, dk = sim:log("p.y"), sim:log("kf.x"), sim:log("dp.y"), sim:log("dk.x")
  for k, t in ipairs(p.t) do
    near(p.v[k] - kf.v[k], math.exp(-math.sqrt(2) * t), { atol = 1e-8 })
    local n = math.floor((t - 0.05) / 0.1 + 1e-9) + 1
    near(dp.v[k] - dk.v[k], 2 * (0.9 * (1 - Ld)) ^ n, { atol = 1e-12 })
  end
end)

test("blocks.observer", function()
  local A, B, C = { { 0, 1 }, { 0, 0 } }, { { 0 }, { 1 } }, { { 1, 0 } }
  -- A - L C = [[-l1, 1], [-l2, 0]]: s^2 + l1 s + l2
  local m = diagc.jit(dsl.diagram "blocks_observer" {
    system { "a", blocks.observer { A = A, B = B, C = C, poles = { -2, -3 } } },
    system { "b", blocks.observer { A = A, B = B, C = C, poles = { { -1, 2 } } } },
    system { "d", blocks.observer { A = { { 1, 0.1 }, { 0, 1 } }, B = { { 0.005 }, { 0.1 } }, C = C,
      L = { { 0.5 }, { 2 } }, period = 0.1, offset = 0.05 } },
    system { "p", blocks.discrete_state_space { A = { { 1, 0.1 }, { 0, 1 } }, B = { { 0.005 }, { 0.1 } },
      C = { { 1, 0 } }, x0 = { 1, -1 }, period = 0.1, offset = 0.05 } },
    system { "u", blocks.constant { value = 1 } },
    connect { "u.y", "p.u" }, connect { "u.y", "d.u" }, connect { "p.y", "d.y" },
    fix_input { "a.u", value = { 0 } }, fix_input { "a.y", value = { 0 } },
    fix_input { "b.u", value = { 0 } }, fix_input { "b.y", value = { 0 } },
    log { "d.x", period = 0.1 },
  })
  local c = m:context()
  eq(c:get("a.L"), { 5, 6 })
  eq(c:get("b.L"), { 2, 5 })
  -- discrete: e[k+1] = (A - L C) e[k] = [[0.5, 0.1], [-2, 1]] e, e0 = (1, -1)
  local sim = m:simulator {}
  sim:initialize()
  sim:advance_to(1.5)
  local d = sim:log("d.x")
  local e = { 1, -1 }
  local x = { 1, -1 }
  local n = 0
  for k, t in ipairs(d.t) do
    while n < math.floor((t - 0.05) / 0.1 + 1e-9) + 1 do
      e = { 0.5 * e[1] + 0.1 * e[2], -2 * e[1] + e[2] }
      x = { x[1] + 0.1 * x[2] + 0.005, x[2] + 0.1 }
      n = n + 1
    end
    near(d.v[k][1], x[1] - e[1], { atol = 1e-12 })
    near(d.v[k][2], x[2] - e[2], { atol = 1e-12 })
  end
end)
