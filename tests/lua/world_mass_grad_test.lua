-- The step's Jacobians with respect to the bodies' masses (issue #28,
-- item 5; docs/world.md, "Gradients": the grad_mass entry's Tm, mass_pos and mass_vel of
-- c:step_jacobians) against central differences of the step in the
-- parameter world.B.mass, to 1e-7 relative: a lone free body (its closed
-- form, an offset centre of mass, spinning under gravity), a chain (the
-- recursive algorithms, both forms, a welded child), a box resting on a
-- plane and one sliding down an incline (the contact step's second pass).
local dsl = diagc.dsl
local tangent = require("diagc.testing.world_tangent")
local sj = require("diagc.testing.step_jacobians")

local DT = 1e-3

local function unit(q)
  local n = math.sqrt(q[1] ^ 2 + q[2] ^ 2 + q[3] ^ 2 + q[4] ^ 2)
  return { q[1] / n, q[2] / n, q[3] / n, q[4] / n }
end

local function world_leaf(c, path)
  for _, l in ipairs(c.model.gen.flat.leaves) do
    if l.path == path then return l end
  end
end

-- one step's (q', v') from the context's state with mass j (0-based) set to m
local function step_with(c, leaf, names, j, m)
  local keep = c:get("w." .. names[j + 1])
  c:set_param("w." .. names[j + 1], m)
  local s = sj.next_state(c, leaf)
  c:set_param("w." .. names[j + 1], keep)
  return s.q, s.v
end

-- d(q', v')/d m_j by central differences, against the model's mass_pos, mass_vel
local function check(c, what)
  local leaf = world_leaf(c, "w")
  local C = leaf.type.world
  local names = require("diagc.world.step").params(C).mass_names
  local J = assert(c:step_jacobians("w"))
  eq(J.nm, #names)
  local nv, worst = C.nv, 0
  for j = 0, #names - 1 do
    local m = c:get("w." .. names[j + 1])
    local h = 1e-6 * m
    local qp, vp = step_with(c, leaf, names, j, m + h)
    local qm, vm = step_with(c, leaf, names, j, m - h)
    local dq = tangent.difference(C, qp, qm, 2 * h)
    local scale = 0
    for i = 1, nv do scale = math.max(scale, math.abs(dq[i]), math.abs((vp[i] - vm[i]) / (2 * h))) end
    for i = 1, nv do
      local fv = (vp[i] - vm[i]) / (2 * h)
      near(J.mass_vel[i][j + 1], fv, { rtol = 1e-7, atol = 1e-7 * scale + 1e-10 })
      near(J.mass_pos[i][j + 1], dq[i], { rtol = 1e-7, atol = 1e-7 * scale + 1e-10 })
      worst = math.max(worst, math.abs(J.mass_vel[i][j + 1] - fv) / (scale + 1e-300))
    end
    truthy(scale > 0, what .. ": mass " .. names[j + 1] .. " moves the step")
  end
  return worst
end

test("world_mass_grad.lone_free_body", function()
  local m = diagc.jit(dsl.diagram "lone" {
    dsl.system { "w", dsl.world "lone" { time_step = DT,
      dsl.body { "box", mass = 2, com = { 0.1, -0.05, 0.02 }, inertia = { 0.05, 0.06, 0.07, 0.01, 0, -0.005 },
        joint = { "free", q = { 0, 2, 1, unpack(unit({ 0.9, 0.1, -0.3, 0.2 })) }, v = { 0.1, 0, 0.2, 3.7, -2.4, 1.1 } } },
      dsl.body { "ball", mass = 0.5, inertia = { 0.01, 0.01, 0.01 },
        joint = { "free", q = { 1, 0, 0, 1, 0, 0, 0 }, v = { 0, 0.3, 0, 1, 2, 3 }, actuated = true } } } },
    dsl.fix_input { "w.effort", value = { 1, -2, 3, 0.1, 0.2, -0.3 } },
  })
  local c = m:context()
  c:set_param("w.box.mass", 3.5)
  check(c, "lone")
end)

test("world_mass_grad.chain_both_forms", function()
  for _, form in ipairs({ "unrolled", "looped" }) do
    local m = diagc.jit(dsl.diagram "chain" {
      dsl.system { "w", dsl.world "chain" { time_step = DT, dynamics = form,
        dsl.body { "cart", mass = 1.3, inertia = { 0.02, 0.03, 0.04 },
          joint = { "prismatic", axis = { 1, 0, 0 }, v = { 0.2 }, actuated = true } },
        dsl.body { "pole", mass = 0.6, com = { 0.05, 0, -0.4 }, inertia = { 0.02, 0.03, 0.01, 0.001, 0, 0.002 },
          joint = { "revolute", parent = "cart", axis = { 0, 1, 0 }, q = { 0.3 }, v = { -0.5 } } },
        dsl.body { "tip", mass = 0.2, com = { 0, 0.1, 0 }, inertia = { 0.001, 0.001, 0.001 },
          joint = { "fixed", parent = "pole", xyz = { 0, 0, -0.8 } } },
        dsl.body { "arm", mass = 0.4, com = { 0.2, 0, 0 }, inertia = { 0.003, 0.01, 0.01 },
          joint = { "ball", parent = "pole", xyz = { 0, 0, -0.8 }, q = unit({ 0.9, 0.3, 0.1, -0.2 }), v = { 1, -0.5, 2 } } } } },
      dsl.fix_input { "w.effort", value = { 2.5 } },
    })
    check(m:context(), form)
  end
end)

-- a box on a plane inclined by TH, pushed by a force and a torque (so its
-- mass matters: gravity alone moves every mass alike): friction 0.8 holds
-- it, 0.1 lets it slide
local TH, H = math.rad(20), 0.1
local function incline(mu, v0)
  local c, s = math.cos(TH / 2), math.sin(TH / 2)
  return diagc.jit(dsl.diagram "incline" {
    dsl.system { "w", dsl.world "incline" { time_step = DT, friction = mu,
      dsl.body { "slope", joint = { "fixed", rpy = { 0, TH, 0 } }, shapes = { { "plane" } } },
      dsl.body { "box", mass = 2, inertia = { 0.03, 0.03, 0.05 },
        joint = { "free", q = { H * math.sin(TH), 0, H * math.cos(TH) - 1e-4, c, 0, s, 0 },
          v = { v0 * math.cos(TH), 0, -v0 * math.sin(TH), 0, 0, 0 }, actuated = true },
        shapes = { { "box", size = { 0.4, 0.4, 2 * H } } } } } },
    dsl.fix_input { "w.effort", value = { 1.5, 0.4, -3, 0.05, -0.02, 0.03 } },
  })
end

test("world_mass_grad.box_on_a_plane", function()
  -- resting (sticking), then sliding: 4 contacts, the friction rows inside
  -- their cone or at its bound
  for _, case in ipairs({ { 0.8, 0 }, { 0.1, 0.5 } }) do
    local c = incline(case[1], case[2]):context()
    c:set_param("w.box.mass", 3)
    local J = assert(c:step_jacobians("w"))
    truthy(J.contacts > 0, "the box touches the plane")
    check(c, "box mu " .. case[1])
  end
end)

test("world_mass_grad.pendulum_closed_form", function()
  -- a point mass m on a massless rod L from a hinge, at rest at angle th,
  -- an effort tau: v+ = dt (tau - m g L sin th) / (m L^2), so d v+/d m =
  -- -dt tau / (m^2 L^2) (gravity alone moves every mass alike)
  local L, th, tau = 0.7, 0.4, 1.5
  local m = diagc.jit(dsl.diagram "pend" {
    dsl.system { "w", dsl.world "pend" { time_step = DT,
      dsl.body { "bob", mass = 1, com = { 0, 0, -L }, inertia = { 1e-9, 1e-9, 1e-9 },
        joint = { "revolute", axis = { 0, 1, 0 }, q = { th }, actuated = true } } } },
    dsl.fix_input { "w.effort", value = { tau } },
  })
  local c = m:context()
  for _, mass in ipairs({ 0.5, 2 }) do
    c:set_param("w.bob.mass", mass)
    local J = assert(c:step_jacobians("w"))
    -- v+ = dt (tau - m g L sin th) / I, I = m L^2 + 1e-9 (the tiny inertia about the centre)
    local I, gl = mass * L * L + 1e-9, 9.81 * L * math.sin(th)
    local want = DT * (-gl * I - (tau - mass * gl) * L * L) / (I * I)
    near(J.mass_vel[1][1], want, { rtol = 1e-6 })
  end
end)

test("world_mass_grad.parameter_jacobian_of_the_masses", function()
  -- the model's parameter Jacobian of world.mass (no "fd": the step's
  -- mass columns in the chain rule) against its central differences, for
  -- the pushed box on the incline (contact) and the chain
  local function pj(items, extra)
    items[#items + 1] = dsl.parameter_jacobian(extra)
    return diagc.jit(dsl.diagram "pj" (items))
  end
  local c, s = math.cos(TH / 2), math.sin(TH / 2)
  local m = pj({
    dsl.system { "w", dsl.world "inc" { time_step = DT, friction = 0.1,
      dsl.body { "slope", joint = { "fixed", rpy = { 0, TH, 0 } }, shapes = { { "plane" } } },
      dsl.body { "box", mass = 2, inertia = { 0.03, 0.03, 0.05 },
        joint = { "free", q = { H * math.sin(TH), 0, H * math.cos(TH) - 1e-4, c, 0, s, 0 },
          v = { 0.5 * math.cos(TH), 0, -0.5 * math.sin(TH), 0, 0, 0 }, actuated = true },
        shapes = { { "box", size = { 0.4, 0.4, 2 * H } } } },
      dsl.body { "arm", mass = 0.7, com = { 0.2, 0, 0 }, inertia = { 0.003, 0.01, 0.01 },
        joint = { "revolute", axis = { 0, 1, 0 }, xyz = { 0, 3, 1 }, q = { 0.4 }, actuated = true } } } },
    dsl.fix_input { "w.effort", value = { 1.5, 0.4, -3, 0.05, -0.02, 0.03, 0.7 } },
  }, { "w.mass" })
  local ctx = m:context()
  ctx:set_param("w.box.mass", 3)
  local r = assert(ctx:parameter_jacobian())
  local f = assert(ctx:parameter_jacobian({ jacobian = "fd" }))
  eq(r.cols, f.cols)
  eq(r.rows, f.rows)
  local nz = 0
  for i = 1, #r.rows do
    for j = 1, #r.cols do
      near(r.J[i][j], f.J[i][j], { rtol = 1e-6, atol = 1e-9 })
      if r.J[i][j] ~= 0 then nz = nz + 1 end
    end
  end
  truthy(nz > 0, "some entry depends on the masses")
  -- a world's parameter without step derivatives: no generated d/dp
  local m2 = pj({
    dsl.system { "w", dsl.world "inc2" { time_step = DT,
      dsl.body { "arm", mass = 0.7, com = { 0.2, 0, 0 }, inertia = { 0.003, 0.01, 0.01 },
        joint = { "revolute", axis = { 0, 1, 0 }, q = { 0.4 } } } } },
  }, { "w.mass", "w.damping" })
  local ok, why = pcall(function() return m2:context():parameter_jacobian() end)
  assert(not ok and tostring(why):find("a world's parameter other than mass", 1, true), tostring(why))
end)
