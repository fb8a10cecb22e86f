-- Mimic joints (issue #27, item 2; docs/world.md, "Joint friction and
-- mimic joints"): q_f = m q_l + offset held by an equality row of the
-- step's LCP.  Two equal pendulums, one started at rest, share the
-- other's momentum in the first step and swing as one body of twice the
-- inertia; two of different lengths coupled with multiplier 1 swing as
-- one rigid body (its period from the summed inertia and
-- gravity moment, not either pendulum's own), with multiplier -1 as its
-- mirror image; an error in the coupling decays by (1 - erp) per step;
-- a mimic in one tree and across two trees: step Jacobians against
-- guarded central differences (1e-8), the update Jacobian against
-- differences of the update; a loop of mimics, a leader that
-- does not move or does not exist are refused.
local dsl = diagc.dsl

local support = dofile("tests/lua/world_support.lua")
local get = support.values

-- a point-like pendulum bob of mass 1 at length l below a hinge about y
local function bob(name, l, x0, joint)
  joint.xyz, joint.axis = { x0, 0, 0 }, { 0, 1, 0 }
  return dsl.body { name, mass = 1, com = { 0, 0, -l }, inertia = { 1e-6, 1e-6, 1e-6 }, joint = joint }
end

local L1, L2, G = 1.0, 0.5, 9.81
local function pair(o)
  return diagc.jit(dsl.diagram "pair" { dsl.system { "w", dsl.world "pair" { time_step = o.dt or 1e-4,
    gravity = o.gravity or { 0, 0, -G }, gradients = o.gradients or false, position_update = o.update,
    bob("a", L1, 0, { "revolute", q = { o.qa }, v = { o.va or 0 } }),
    bob("b", L2, 1, { "revolute", q = { o.qb }, v = { o.vb or 0 },
      mimic = { "a", multiplier = o.m, offset = o.off } }) } } })
end

-- the small-angle period of the coupled pair (one rigid body: inertia and
-- gravity moment summed), with the amplitude's first correction
-- (1 + theta0^2 / 16)
local function period(theta0)
  local I = L1 * L1 + L2 * L2 + 2e-6
  return 2 * math.pi * math.sqrt(I / (G * (L1 + L2))) * (1 + theta0 * theta0 / 16)
end

for _, m in ipairs({ 1, -1 }) do
  test("world_mimic.pendulums_multiplier_" .. m, function()
    local th = 0.02
    local sim = pair({ qa = th, qb = m * th, m = m }):simulator()
    local dt, t, prev, ups, worst = 1e-4, 0, th, {}, 0
    -- the times q_a crosses 0 upwards (linear interpolation between steps)
    for k = 1, 42000 do
      sim:advance_to(k * dt)
      local q = get(sim.context, "w.pos")
      worst = math.max(worst, math.abs(q[2] - m * q[1]))
      if prev < 0 and q[1] >= 0 then ups[#ups + 1] = (k - 1) * dt + dt * (-prev) / (q[1] - prev) end
      prev = q[1]
    end
    assert(worst <= 1e-12, "the follower leaves its leader by " .. worst)
    assert(#ups >= 2, "two upward crossings: " .. #ups)
    -- independent pendulums would swing at 2.006 s and 1.419 s
    near(ups[2] - ups[1], period(th), { rtol = 1e-5 })
  end)
end

-- two equal pendulums (length 1), one started swinging at 0.04 rad/s and
-- the other at rest: the first step's coupling impulse shares the
-- momentum (each then turns at 0.02 rad/s, mirrored with multiplier -1),
-- and they swing as one body of twice the inertia and twice the gravity
-- moment: the single pendulum's period, amplitude 0.02 / omega
for _, m in ipairs({ 1, -1 }) do
  test("world_mimic.equal_pendulums_share_momentum_" .. m, function()
    local c = diagc.jit(dsl.diagram "eq" { dsl.system { "w", dsl.world "eq" { time_step = 1e-4, gradients = false,
      bob("a", 1, 0, { "revolute", v = { 0.04 } }),
      bob("b", 1, 1, { "revolute", mimic = { "a", multiplier = m } }) } } })
    local sim = c:simulator()
    sim:advance_to(1e-4)
    near(get(sim.context, "w.vel"), { 0.02, m * 0.02 }, { rtol = 1e-12 })
    local I = 1 + 1e-6
    local omega = math.sqrt(G / I)
    local top, prev, ups = 0, 0, {}
    for k = 2, 42000 do
      sim:advance_to(k * 1e-4)
      local q = get(sim.context, "w.pos")
      top = math.max(top, q[1])
      if prev < 0 and q[1] >= 0 then ups[#ups + 1] = (k - 1) * 1e-4 + 1e-4 * (-prev) / (q[1] - prev) end
      prev = q[1]
    end
    near(top, 0.02 / omega, { rtol = 1e-4 })
    near(ups[2] - ups[1], 2 * math.pi / omega, { rtol = 1e-5 })
  end)
end

-- an error in the coupling (q_b off m q_a + offset by 0.004, below the
-- correction speed cap: erp e / dt = 0.8 rad/s) decays by (1 - erp) = 0.8
-- per step, without gravity
test("world_mimic.error_decays_by_erp", function()
  local sim = pair({ dt = 1e-3, gravity = { 0, 0, 0 }, qa = 0, qb = 0.1 - 0.004, m = 2, off = 0.1 }):simulator()
  for n = 1, 10 do
    sim:advance_to(n * 1e-3)
    local q = get(sim.context, "w.pos")
    near(2 * q[1] + 0.1 - q[2], 0.004 * 0.8 ^ n, { rtol = 1e-9 })
  end
end)

-- the step Jacobians of mimic rows against guarded central differences
local agrees = support.grad_agrees

for _, update in ipairs({ "semi_implicit", "parallel" }) do
  -- two trees: the row spans both
  test("world_mimic.grad_two_trees_" .. update, function()
    local J = agrees(pair({ dt = 1e-3, gradients = true, qa = 0.3, va = 0.5, qb = -0.55, vb = 0.1, m = -2,
      off = 0.1, update = update }):context())
    assert(J.contacts == 1 and J.clamped == 1, "the mimic row holds: " .. J.contacts .. " " .. J.clamped)
  end)
end

-- one tree: a follower link on its leader (the fingers' pattern), joint
-- friction on the leader, and a third, free link whose tip rests on the
-- ground (a tip on the coupled pair alone would make its contact rows
-- dependent: one dof)
test("world_mimic.grad_one_tree", function()
  local c = diagc.jit(dsl.diagram "arm3" { dsl.system { "w", dsl.world "arm3" { time_step = 1e-3, friction = 0.5,
    dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
    dsl.body { "l1", mass = 1, com = { 0.25, 0, 0 }, inertia = { 0.01, 0.01, 0.01 },
      joint = { "revolute", axis = { 0, 1, 0 }, xyz = { 0, 0, 0.5 }, v = { 0.02 }, friction = 0.05 } },
    dsl.body { "l2", mass = 1, com = { 0.25, 0, 0 }, inertia = { 0.01, 0.01, 0.01 },
      joint = { "revolute", parent = "l1", axis = { 0, 1, 0 }, xyz = { 0.5, 0, 0 }, v = { 0.01 },
        mimic = { "l1", multiplier = 0.5 } } },
    dsl.body { "l3", mass = 1, com = { 0.25, 0, 0 }, inertia = { 0.01, 0.01, 0.01 },
      joint = { "revolute", parent = "l2", axis = { 0, 1, 0 }, xyz = { 0.5, 0, 0 }, v = { -0.01 } },
      shapes = { { "sphere", radius = 0.05, xyz = { 0.5, 0, 0 } } } } } } }):context()
  -- q1 = 0.3, q2 = 0.15, and the tip 5e-5 m into the ground:
  -- 0.5 - 0.5 (sin q1 + sin(q1 + q2) + sin(q1 + q2 + q3)) = 0.05 - 5e-5
  local f = function(q3)
    return 0.5 - 0.5 * (math.sin(0.3) + math.sin(0.45) + math.sin(0.45 + q3)) - (0.05 - 5e-5)
  end
  local lo, hi = -0.45, 0.0
  for _ = 1, 200 do
    local m = (lo + hi) / 2
    if f(m) > 0 then lo = m else hi = m end
  end
  c:set("w.pos", { 0.3, 0.15, (lo + hi) / 2 })
  local J = agrees(c)
  assert(J.contacts == 3 and J.clamped >= 2, "contact, friction and mimic rows: " .. J.contacts .. " " .. J.clamped)
end)

test("world_mimic.refused", function()
  local function world(b_joint, more)
    return function()
      local items = { bob("a", 1, 0, { "revolute" }), bob("b", 1, 1, b_joint) }
      for _, x in ipairs(more or {}) do items[#items + 1] = x end
      return diagc.jit(dsl.diagram "m" { dsl.system { "w", dsl.world "m" (items) } })
    end
  end
  local cases = {
    { world({ "revolute", mimic = { "c" } }), "its joint mimics 'c', which is not a body of this world" },
    { world({ "revolute", mimic = { "b" } }), "its joint is in a loop of mimic joints" },
    { world({ "revolute", mimic = { "f" } }, { dsl.body { "f", mass = 1, inertia = { 1, 1, 1 },
      joint = { "fixed", parent = "a" } } }), "whose joint is fixed; a leader must be a revolute or prismatic joint" },
    { function()
      return diagc.jit(dsl.diagram "m" { dsl.system { "w", dsl.world "m" { bob("a", 1, 0, { "revolute" }),
        dsl.body { "b", mass = 1, inertia = { 1, 1, 1 }, joint = { "ball", mimic = { "a" } } } } } })
    end, "a ball joint cannot mimic another" },
    { world({ "revolute", mimic = { "a", gain = 2 } }), "mimic has no field 'gain'" },
  }
  for _, case in ipairs(cases) do
    local ok, err = pcall(case[1])
    assert(not ok and tostring(err):find(case[2], 1, true), tostring(err))
  end
end)

-- the model's update Jacobian (pos, vel, imp, the info counts) against
-- central differences of the update, for a world with a mimic row and a
-- friction row (the leader's, sliding)
test("world_mimic.update_jacobian", function()
  local c = diagc.jit(dsl.diagram "uj" { dsl.system { "w", dsl.world "uj" { time_step = 1e-3,
    bob("a", L1, 0, { "revolute", q = { 0.3 }, v = { 0.5 }, friction = 0.1 }),
    bob("b", L2, 1, { "revolute", q = { -0.5 }, v = { 0.1 }, mimic = { "a", multiplier = -2, offset = 0.1 } }) } } })
    :context()
  local a = c:update_jacobian({ jacobian = "model" })
  local b = c:update_jacobian({ jacobian = "fd" })
  near(a.J, b.J, { rtol = 1e-7, atol = 1e-9 })
end)
