-- The differentiable world step (issue #18): every Jacobian of the
-- generated step against central differences of the whole step with the
-- active-set guard (testing/step_jacobians.lua), on the reference's scenes
-- (a block on the ground with mu = 0, 0.5 (sliding) and 1e7 (stuck), a
-- sphere stack, a cartpole, a 3-link arm pushing a box), in both position
-- update modes; a cube on a slope turned off the tangent axes (isotropic
-- friction: sliding and spinning, starting to slide, sticking); the two-ball elastic collision of nimblephysics #97
-- (gradient (1, 0, 1, 0) through 1 s of steps); no clamping rows (force ->
-- velocity = dt M^-1, M in closed form); no bounce with the parallel
-- update (pos -> pos = I, vel -> pos = dt I); vector-Jacobian products
-- through 100 steps against the product of the per-step Jacobians and
-- against central differences of the whole trajectory; d/d mu against
-- worlds compiled with mu +- h; a kink (a resting box's tie) reported,
-- never averaged.  Tolerance 1e-8 (relative where |reference| > 1).
local dsl = diagc.dsl
local dt = 1e-3

-- the largest error over the reference's columns (NaN columns: kinks, skipped)
local function max_error(J, F)
  local e, at = 0, nil
  for i = 1, #F do
    for j = 1, #F[i] do
      local r = F[i][j]
      if r == r then
        local d = math.abs(J[i][j] - r) / math.max(1, math.abs(r))
        if d > e then e, at = d, i .. "," .. j end
      end
    end
  end
  return e, at
end

local function agrees(c, world, tol)
  local J = c:step_jacobians(world)
  local F = c:step_jacobians(world, { jacobian = "fd" })
  eq(#F.fd_kinks, 0)
  eq(J.status, 0)
  local e, at = max_error(J.T, F.T)
  assert(e <= (tol or 1e-8), string.format("|model - fd| = %.3g at %s (contacts %d, clamped %d, kinks %d)", e,
    tostring(at), J.contacts, J.clamped, J.kinks))
  return J, F
end

local function cube_inertia(m, a) local I = m * a * a / 6; return { I, I, I } end

-- a 0.2 m cube of 1 kg on the ground, level, rocking onto an edge
local function block(mu, update, v, q)
  return diagc.jit(dsl.diagram "block" { dsl.system { "w", dsl.world "blk" {
    time_step = dt, friction = mu, position_update = update,
    dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
    dsl.body { "box", mass = 1, inertia = cube_inertia(1, 0.2),
      joint = { "free", q = q or { 0, 0, 0.1 - 5e-5, 1, 0, 0, 0 }, v = v or { 0.5, 0.0, -0.01, 0.3, 0, 0 } },
      shapes = { { "box", size = { 0.2, 0.2, 0.2 } } } } } } })
end

for _, update in ipairs({ "semi_implicit", "parallel" }) do
  for _, mu in ipairs({ 0, 0.5, 1e7 }) do
    test("world_grad.block_mu_" .. mu .. "_" .. update, function()
      local J = agrees(block(mu, update):context())
      assert(J.contacts == 4 and J.clamped > 0, "the block touches")
    end)
  end
end

-- two spheres stacked on the ground, the top one rolling a little
local function sphere_stack(update)
  return diagc.jit(dsl.diagram "spheres" { dsl.system { "w", dsl.world "pile" {
    time_step = dt, friction = 0.5, position_update = update,
    dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
    dsl.body { "s1", mass = 1, inertia = { 4e-3, 4e-3, 4e-3 },
      joint = { "free", q = { 0, 0, 0.1 - 5e-5, 1, 0, 0, 0 }, v = { 0, 0, -0.01, 0, 0, 0 } },
      shapes = { { "sphere", radius = 0.1 } } },
    dsl.body { "s2", mass = 0.5, inertia = { 2e-3, 2e-3, 2e-3 },
      joint = { "free", q = { 0.01, 0, 0.3 - 1e-4, 1, 0, 0, 0 }, v = { 0.05, 0, -0.02, 0, 0.2, 0 } },
      shapes = { { "sphere", radius = 0.1 } } } } } })
end

-- the cartpole of examples/world/cartpole.lua with its effort fixed
local MC, MP, L = 1.0, 0.1, 0.5
local function cartpole(update)
  return diagc.jit(dsl.diagram "cp" {
    dsl.system { "w", dsl.world "cartpole" { time_step = dt, position_update = update,
      dsl.body { "cart", mass = MC, inertia = { 0.01, 0.01, 0.01 },
        joint = { "prismatic", axis = { 1, 0, 0 }, actuated = true } },
      dsl.body { "pole", mass = MP, com = { 0, 0, -L }, inertia = { 1e-6, 1e-6, 1e-6 },
        joint = { "revolute", parent = "cart", axis = { 0, 1, 0 }, damping = 0.01, q = { 0.3 } } } } },
    dsl.fix_input { "w.effort", value = { 0.5 } } })
end

for _, update in ipairs({ "semi_implicit", "parallel" }) do
  test("world_grad.sphere_stack_" .. update, function()
    local J = agrees(sphere_stack(update):context())
    assert(J.contacts == 2, "both contacts")
  end)
  test("world_grad.cartpole_" .. update, function()
    local c = cartpole(update):context()
    c:set("w.pos", { 0.2, 0.7 })
    c:set("w.vel", { 0.3, -1.2 })
    agrees(c)
  end)
end

-- a 0.2 m cube of 1 kg on a slope of 20 degrees whose downhill direction
-- is 30 degrees from x (off the default tangent axes: the friction frames
-- turn along each corner's sliding velocity), 5e-5 m into it, with linear
-- velocity `speed` downhill and 0.01 m/s into the slope, rocking at 0.3
-- rad/s about an edge's direction (no tie between the corners) and
-- spinning at `spin` rad/s about the slope's normal
local function slope_block(mu, speed, spin)
  local th, yaw, a = math.rad(20), math.rad(30), 0.2
  local n = { math.sin(th) * math.cos(yaw), math.sin(th) * math.sin(yaw), math.cos(th) }
  local d = { math.cos(th) * math.cos(yaw), math.cos(th) * math.sin(yaw), -math.sin(th) }
  local q = require("diagc.testing.world_tangent").qmul({ math.cos(yaw / 2), 0, 0, math.sin(yaw / 2) },
    { math.cos(th / 2), 0, math.sin(th / 2), 0 })
  local c = a / 2 - 5e-5
  return diagc.jit(dsl.diagram "slope" { dsl.system { "w", dsl.world "slope" {
    time_step = dt, friction = mu,
    dsl.body { "slope", joint = { "fixed", rpy = { 0, th, yaw } }, shapes = { { "plane" } } },
    dsl.body { "box", mass = 1, inertia = cube_inertia(1, a),
      joint = { "free", q = { n[1] * c, n[2] * c, n[3] * c, q[1], q[2], q[3], q[4] },
        v = { speed * d[1] - 0.01 * n[1], speed * d[2] - 0.01 * n[2], speed * d[3] - 0.01 * n[3], 0.3, 0, spin } },
      shapes = { { "box", size = { a, a, a } } } } } } })
end

-- sliding and spinning (every corner held to its own frame), starting to
-- slide from rest (frames turned, not held: mu = 0.3 < tan 20), sticking
-- (mu = 0.6: the frames' turn cancels)
for _, case in ipairs({ { "sliding_spinning", 0.3, 0.5, 2.0 }, { "starts_sliding", 0.3, 0, 0 },
  { "sticking", 0.6, 0, 0 } }) do
  test("world_grad.slope_turned_" .. case[1], function()
    local J = agrees(slope_block(case[2], case[3], case[4]):context())
    assert(J.contacts == 4 and J.clamped > 0, "the block touches")
  end)
end

-- the arm of examples/world/arm_push.lua (3 links turning about vertical
-- axes), bent, pressing its last link on the face of a box welded to the
-- ground, under constant torques
local function arm(update)
  local link, r = 0.3, 0.03
  local I = link * link / 12
  local function l(name, parent, x, q)
    return dsl.body { name, mass = 1, com = { link / 2, 0, 0 }, inertia = { 1e-4, I, I },
      joint = { "revolute", parent = parent, axis = { 0, 0, 1 }, xyz = { x, 0, parent and 0 or 0.1 }, actuated = true,
        q = { q }, v = { 0.2 } },
      shapes = { { "capsule", radius = r, length = link, xyz = { link / 2, 0, 0 }, rpy = { 0, math.pi / 2, 0 } } } }
  end
  return diagc.jit(dsl.diagram "arm" {
    dsl.system { "w", dsl.world "arm" { time_step = dt, friction = 0.4, position_update = update,
      l("l1", nil, 0, 0.3), l("l2", "l1", link, -0.3), l("l3", "l2", link, 0),
      -- link 3 spans x 0.587 .. 0.887 at y = 0.3 sin 0.3 = 0.0887
      dsl.body { "box", joint = { "fixed", xyz = { 0.74, 0.3 * math.sin(0.3) + 0.13 - 5e-5, 0.1 }, rpy = { 0, 0, 0.05 } },
        shapes = { { "box", size = { 0.2, 0.2, 0.2 } } } } } },
    dsl.fix_input { "w.effort", value = { 1.0, 0.5, 0.2 } } })
end

for _, update in ipairs({ "semi_implicit", "parallel" }) do
  test("world_grad.arm_touching_box_" .. update, function()
    local J = agrees(arm(update):context())
    assert(J.contacts >= 1 and J.clamped > 0, "the arm presses on the box")
  end)
end

-- no contact rows: force -> velocity = dt M^-1 (closed-form M of the cartpole)
test("world_grad.no_clamping_force_velocity", function()
  local c = cartpole("semi_implicit"):context()
  local th = 0.7
  c:set("w.pos", { 0.2, th })
  c:set("w.vel", { 0.3, -1.2 })
  local J = c:step_jacobians()
  -- pole tip at (x - l sin th, -l cos th): M12 = -mp l cos th
  local M11, M12, M22 = MC + MP, -MP * L * math.cos(th), MP * L * L + 1e-6
  local det = M11 * M22 - M12 * M12
  near(J.force_vel[1][1], dt * M22 / det, { rtol = 1e-12 })
  near(J.force_vel[2][1], -dt * M12 / det, { rtol = 1e-12 })
end)

-- no bounce, parallel update: pos -> pos = I and vel -> pos = dt I
test("world_grad.parallel_update_identity", function()
  local scenes = { cartpole("parallel"):context(), block(0.5, "parallel", { 0.5, 0, -0.01, 0, 0, 0 }):context() }
  for _, c in ipairs(scenes) do
    local J = c:step_jacobians()
    eq(J.bounces, 0)
    for i = 1, J.nv do
      for j = 1, J.nv do
        near(J.pos_pos[i][j], i == j and 1 or 0, { atol = 1e-15 })
        near(J.vel_pos[i][j], i == j and dt or 0, { atol = 1e-15 })
      end
    end
  end
end)

-- nimblephysics #97: two 1 kg balls of radius 0.1 on x, no gravity or
-- friction, fully elastic; x1 = 0 moving at v0 = 1, x2 = 0.52 at rest.
-- x2(T = 1 s) = v0 T + x1 + 2 r: the gradient over (x1, x2, v0, u0) is
-- (1, 0, 1, 0) (Nimble reported (0.75, 0.25, 0.91, 0.08)).
local function two_balls(bounce)
  local function ball(name, x, v)
    return dsl.body { name, mass = 1, inertia = { 4e-3, 4e-3, 4e-3 },
      joint = { "prismatic", axis = { 1, 0, 0 }, q = { x }, v = { v } }, shapes = { { "sphere", radius = 0.1 } } }
  end
  return diagc.jit(dsl.diagram "balls" { dsl.system { "w", dsl.world "pair" {
    time_step = dt, gravity = { 0, 0, 0 }, friction = 0, restitution = 1, position_update = "parallel",
    bounce_gradient = bounce, ball("b1", 0, 1), ball("b2", 0.52, 0) } } })
end

test("world_grad.two_balls_elastic_gradient", function()
  local c = two_balls("approximate"):context()
  local traj = c:rollout({ steps = 1000 })
  near(traj.q[1001][2], 1.2, { atol = 2e-3 })
  local g = traj:vjp({ 0, 1 }, { 0, 0 })
  near({ g.q[1], g.q[2], g.v[1], g.v[2] }, { 1, 0, 1, 0 }, { atol = 1e-9 })
  -- the exact derivative of the discrete steps keeps the collision's step
  -- fixed (the gap of 0.32 m closes at t = 0.32 s): (0, 1, 0.68, 0.32) up to a step
  local e = two_balls("exact"):context():rollout({ steps = 1000 }):vjp({ 0, 1 }, { 0, 0 })
  near({ e.q[1], e.q[2], e.v[1], e.v[2] }, { 0, 1, 0.68, 0.32 }, { atol = 2e-3 })
end)

-- a VJP through 100 steps: the product of the per-step Jacobians, and
-- central differences of the whole trajectory (cartpole under a varying force)
test("world_grad.vjp_100_steps", function()
  local m = cartpole("semi_implicit")
  local force = function(k) return { math.sin(k * 0.05) } end
  local function final(q0, v0)
    local c = m:context()
    c:set("w.pos", q0)
    c:set("w.vel", v0)
    local t = c:rollout({ steps = 100, effort = force })
    return t.q[101], t.v[101], t
  end
  local q0, v0 = { 0.2, 0.7 }, { 0.3, -1.2 }
  local _, _, traj = final(q0, v0)
  local lq, lv = { 0.3, -0.7 }, { 1.1, 0.4 }
  local g = traj:vjp(lq, lv)
  -- the product, right to left, of the per-step [q v] blocks
  local lam = { lq[1], lq[2], lv[1], lv[2] }
  for k = 100, 1, -1 do
    local T, n = traj.T[k], {}
    for j = 1, 4 do
      local s = 0
      for i = 1, 4 do s = s + lam[i] * T[i][j] end
      n[j] = s
    end
    lam = n
  end
  near({ g.q[1], g.q[2], g.v[1], g.v[2] }, lam, { rtol = 1e-12, atol = 1e-14 })
  -- central differences of the 100 steps
  local h = 1e-6
  for j = 1, 4 do
    local qp, vp, qm, vm = { unpack(q0) }, { unpack(v0) }, { unpack(q0) }, { unpack(v0) }
    if j <= 2 then qp[j], qm[j] = qp[j] + h, qm[j] - h else vp[j - 2], vm[j - 2] = vp[j - 2] + h, vm[j - 2] - h end
    local aq, av = final(qp, vp)
    local bq, bv = final(qm, vm)
    local fd = 0
    for i = 1, 2 do fd = fd + (lq[i] * (aq[i] - bq[i]) + lv[i] * (av[i] - bv[i])) / (2 * h) end
    near(j <= 2 and g.q[j] or g.v[j - 2], fd, { rtol = 1e-7, atol = 1e-8 })
  end
  -- the effort gradient of one step against differences of that step's force
  local k = 37
  local function with(delta)
    local c = m:context()
    c:set("w.pos", q0)
    c:set("w.vel", v0)
    local t = c:rollout({ steps = 100, effort = function(i) return { math.sin(i * 0.05) + (i == k and delta or 0) } end })
    return t.q[101], t.v[101]
  end
  local aq, av = with(h)
  local bq, bv = with(-h)
  local fd = 0
  for i = 1, 2 do fd = fd + (lq[i] * (aq[i] - bq[i]) + lv[i] * (av[i] - bv[i])) / (2 * h) end
  near(g.effort[k][1], fd, { rtol = 1e-6, atol = 1e-10 })
end)

-- d v' / d mu of the sliding block against worlds compiled with mu +- h
test("world_grad.friction_coefficient", function()
  local h = 1e-6
  local J = block(0.5, "semi_implicit"):context():step_jacobians()
  local function vnext(mu)
    local c = block(mu, "semi_implicit"):context()
    local t = c:rollout({ steps = 1 })
    return t.v[2]
  end
  local a, b = vnext(0.5 + h), vnext(0.5 - h)
  for i = 1, 6 do near(J.mu_vel[i][1], (a[i] - b[i]) / (2 * h), { rtol = 1e-6, atol = 1e-8 }) end
  assert(math.abs(J.mu_vel[1][1]) > 1e-3, "sliding: friction slows the block")
end)

-- the mu columns of the pairs no longer in contact: a context whose last
-- step touched with the other sphere gives, bit for bit, a fresh context's
-- Jacobians (every field: T, mu_pos, mu_vel, imp), the dead columns 0
test("world_grad.mu_columns_follow_the_contacts", function()
  local function sphere(name, x, z)
    return dsl.body { name, mass = 1, inertia = { 4e-3, 4e-3, 4e-3 },
      joint = { "free", q = { x, 0, z, 1, 0, 0, 0 }, v = { 0.1, 0, -0.01, 0, 0, 0 } },
      shapes = { { "sphere", radius = 0.1 } } }
  end
  local m = diagc.jit(dsl.diagram "two" { dsl.system { "w", dsl.world "two" {
    time_step = dt, friction = 0.5,
    dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
    sphere("s1", 0, 0.1 - 5e-5), sphere("s2", 1, 0.5) } } })
  local SJ = require("diagc.testing.step_jacobians")
  local qB = { 0, 0, 0.5, 1, 0, 0, 0, 1, 0, 0.1 - 5e-5, 1, 0, 0, 0 }
  local fresh = m:context()
  local imp0, info0 = fresh:get("w.imp"), fresh:get("w.info")
  fresh:set("w.pos", qB)
  local used = m:context()
  local leaf = assert(SJ.find_world(m))
  local gA = assert(SJ.grad_of(used, leaf))
  eq(gA.status, 0)
  eq(gA.contacts, 1)
  used:set("w.pos", qB)
  used:set("w.imp", imp0)
  used:set("w.info", info0)
  local g1, G = assert(SJ.grad_of(used, leaf))
  local g2 = assert(SJ.grad_of(fresh, leaf))
  eq(g1.status, 0)
  eq(g1.contacts, 1)
  local nv, np = G.nv, G.np
  eq(np, 3)
  local function same(name, n)
    for i = 0, n - 1 do
      if g1[name][i] ~= g2[name][i] then error(string.format("%s[%d]: %.17g, fresh %.17g", name, i, g1[name][i], g2[name][i]), 0) end
    end
  end
  same("T", 2 * nv * G.ncol)
  same("mu_pos", nv * np)
  same("mu_vel", nv * np)
  same("imp", 4 * G.mc * G.ncol)
  -- the first pair (ground, s1) is out of contact: its columns are 0
  for i = 0, nv - 1 do eq(g1.mu_pos[i * np], 0); eq(g1.mu_vel[i * np], 0) end
  local live = 0
  for i = 0, nv - 1 do if g1.mu_vel[i * np + 1] ~= 0 then live = live + 1 end end
  assert(live > 0, "the second pair's friction moves v'")
end)

-- a level box resting on its four corners without friction: the impulse
-- sits on two diagonal corners, the other two touch with none (a tie);
-- the model reports kinks, the differences flag the columns that cross it
test("world_grad.kink_reported", function()
  local c = block(0, "semi_implicit", { 0, 0, -0.01, 0, 0, 0 }):context()
  local J = c:step_jacobians()
  assert(J.kinks > 0, "the tie is reported")
  local F = c:step_jacobians({ jacobian = "fd" })
  assert(#F.fd_kinks > 0, "a mode change inside the stencil is flagged")
  for _, col in ipairs(F.fd_kinks) do
    for i = 1, 2 * F.nv do assert(F.T[i][col] ~= F.T[i][col], "a flagged column is not averaged") end
  end
end)

-- gradients = false: no derivative code, and the testing API says why
test("world_grad.gradients_false", function()
  local m = diagc.jit(dsl.diagram "d" { dsl.system { "w", dsl.world "b" { gradients = false,
    dsl.body { "ball", mass = 1, inertia = { 1, 1, 1 }, joint = { "free" }, shapes = { { "sphere", radius = 0.1 } } } } } })
  eq(m.cache["w.grad"], nil)
  local ok, err = pcall(function() return m:context():step_jacobians() end)
  assert(not ok and err:find("gradients = false", 1, true), tostring(err))
end)

-- the model's update Jacobian d x+ / d(xd, u) of a diagram with a world
-- (the world's rows from its grad entry, in state coordinates, composed
-- with its controller's by the chain rule): the cartpole of
-- examples/world/cartpole.lua under its PD controller, against central
-- differences of the update; and the linearization of that purely
-- discrete model against finite differences
test("world_grad.diagram_update_jacobian", function()
  local m = diagc.jit(diagc.root .. "/examples/world/cartpole.lua")
  local c = m:context()
  c:set("plant.pos", { 0.2, 0.7 })
  c:set("plant.vel", { 0.3, -1.2 })
  local a = c:update_jacobian({ jacobian = "model" })
  local b = c:update_jacobian({ jacobian = "fd" })
  near(a.J, b.J, { rtol = 1e-7, atol = 1e-9 })
  local la = c:linearize({ mode = "first_order_taylor" })
  local lb = c:linearize({ mode = "first_order_taylor", jacobian = "fd" })
  near(la.A, lb.A, { rtol = 1e-7, atol = 1e-9 })
end)

-- a quaternion's columns: the derivative along the unit sphere (the radial
-- direction has none: J q = 0), and through E(q) the tangent Jacobians of
-- the step; the other columns against central differences of the update
test("world_grad.update_jacobian_quaternion_columns", function()
  -- tilted 0.4 rad about x onto an edge: two contacts, no tie
  local c = block(0.5, "semi_implicit", { 0.5, 0, -0.01, 0.3, 0.1, 0.2 },
    { 0, 0, 0.1 - 5e-5, math.cos(0.2), math.sin(0.2), 0, 0 }):context()
  local J = c:step_jacobians()
  eq(J.kinks, 0)
  local a = c:update_jacobian({ jacobian = "model" })
  local b = c:update_jacobian({ jacobian = "fd" })
  local q = c:get("w.pos")
  local quat = {}
  -- the free joint's quaternion elements by name (world/signals.lua)
  local QUAT = { qw = 1, qx = 2, qy = 3, qz = 4 }
  for j, name in ipairs(a.cols) do
    quat[j] = QUAT[name:match("^w%.box%.(q[wxyz])$") or ""]
  end
  for i = 1, #a.rows do
    local radial = 0
    -- info[0..4]: the last step's statistics (contacts, LCP pivots, ...): jumps, derivative 0 by definition
    local stat = tonumber(a.rows[i]:match("^w%.info%[(%d)%]$") or 9) <= 4
    for j = 1, #a.cols do
      if stat then
      elseif quat[j] then radial = radial + a.J[i][j] * q[quat[j] + 3]
      elseif math.abs(a.J[i][j] - b.J[i][j]) > 1e-8 + 1e-6 * math.abs(b.J[i][j]) then
        error(string.format("%s / %s: model %.10g, differences %.10g", a.rows[i], a.cols[j], a.J[i][j], b.J[i][j]))
      end
    end
    near(radial, 0, { atol = 1e-12 })
  end
  -- rows of v' (after the 7 pos rows) times E(q) = the tangent block vel <- rotation
  local w, x, y, z = q[4], q[5], q[6], q[7]
  local E = { { -x, -y, -z }, { w, -z, y }, { z, w, -x }, { -y, x, w } }
  for i = 1, 6 do
    for d = 1, 3 do
      local s = 0
      for r = 1, 4 do s = s + a.J[7 + i][3 + r] * 0.5 * E[r][d] end
      near(s, J.pos_vel[i][3 + d], { rtol = 1e-10, atol = 1e-12 })
    end
  end
end)

-- the sparsity of T: two boxes that may not touch each other (exclude)
-- move independently; every entry outside the pattern is exactly 0
test("world_grad.sparsity", function()
  local function cube(name, x)
    return dsl.body { name, mass = 1, inertia = cube_inertia(1, 0.2),
      joint = { "free", q = { x, 0, 0.1 - 5e-5, 1, 0, 0, 0 }, v = { 0.5, 0, -0.01, 0.3, 0, 0 } },
      shapes = { { "box", size = { 0.2, 0.2, 0.2 } } } }
  end
  local m = diagc.jit(dsl.diagram "two" { dsl.system { "w", dsl.world "pair" {
    time_step = dt, exclude = { { "a", "b" } },
    dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } }, cube("a", 0), cube("b", 1) } } })
  local J = m:context():step_jacobians()
  local zeros, nz = 0, 0
  for i = 1, 2 * J.nv do
    for j = 1, J.ncol do
      if J.pattern[i][j] then nz = nz + 1
      else
        zeros = zeros + 1
        eq(J.T[i][j], 0)
      end
    end
  end
  -- each box's 12 rows (q', v') against the other's 12 columns (dq, dv)
  -- and its ground pair's friction column
  eq(zeros, 2 * 12 * (12 + 1))
  assert(J.pattern[1][1] and not J.pattern[1][7] and not J.pattern[7][1], "block diagonal")
  assert(nz > 0 and J.contacts == 8, "both boxes touch the ground")
end)
