-- A world's settings as numeric parameters (issue #28, item 5; docs/world.md,
-- "Parameters"): world.friction and world.restitution, the defaults of the
-- shapes that give none, read by the step at run time.  A sweep of the
-- friction of a box on an incline against its acceleration g (sin th - mu
-- cos th) (sliding) or rest (sticking); a ball's first apex against e^2
-- for the restitution e; the parameter Jacobian by central differences against the
-- sliding box's d v+ / d mu = -g cos th dt along the slope; no generated
-- d/dp for a world's parameters (it would be a wrong zero); caching on and
-- off bit for bit; a pair or shape with its own numbers keeps them.
local dsl = diagc.dsl

local TH, G, DT, H = math.rad(20), 9.81, 1e-3, 0.1

-- a box at rest on a slope inclined by TH about y; shapes without their
-- own friction unless `own` (then the box's is own)
local function incline(own, jac)
  local c, s = math.cos(TH / 2), math.sin(TH / 2)
  local items = {
    dsl.system { "world", dsl.world "incline" { time_step = DT, friction = 0.5,
      dsl.body { "slope", joint = { "fixed", rpy = { 0, TH, 0 } }, shapes = { { "plane" } } },
      dsl.body { "box", mass = 2, inertia = { 0.03, 0.03, 0.05 },
        joint = { "free", q = { H * math.sin(TH), 0, H * math.cos(TH), c, 0, s, 0 } },
        shapes = { { "box", size = { 0.4, 0.4, 2 * H }, friction = own } } } } },
    dsl.log { "world.box.pose", period = 0.1 },
  }
  if jac then items[#items + 1] = dsl.parameter_jacobian { "world.friction" } end
  return diagc.jit(dsl.diagram "incline" (items))
end

-- the distance slid down the slope in T s
local function slid(sim, T)
  local p0 = sim.context:get("world.pos")
  sim:advance_to(T)
  local p = sim.context:get("world.pos")
  return (p[1] - p0[1]) * math.cos(TH) - (p[3] - p0[3]) * math.sin(TH)
end

local m = incline()

test("world_params.friction_sweep_on_an_incline", function()
  local T = 0.5
  for _, mu in ipairs({ 0, 0.1, 0.2, 0.3 }) do
    local sim = m:simulator()
    sim.context:set_param("world.friction", mu)
    -- the semi-implicit step: v_n = n dt a, x_n = dt^2 a n (n + 1) / 2
    local a = 2 * slid(sim, T) / (T * (T + DT))
    near(a, G * (math.sin(TH) - mu * math.cos(TH)), { rtol = 1e-6 })
  end
  -- above tan(20 deg) = 0.364 it sticks
  local sim = m:simulator()
  sim.context:set_param("world.friction", 0.4)
  near(slid(sim, T), 0, { atol = 1e-9 })
end)

test("world_params.own_friction_is_kept", function()
  -- the box's own 0.5 is the smaller of the pair's two unless the default is lower
  local mo = incline(0.1)
  local sim = mo:simulator()
  sim.context:set_param("world.friction", 0.3) -- min(0.3, 0.1): 0.1
  near(2 * slid(sim, 0.5) / (0.5 * (0.5 + DT)), G * (math.sin(TH) - 0.1 * math.cos(TH)), { rtol = 1e-6 })
  sim = mo:simulator()
  sim.context:set_param("world.friction", 0.05) -- min(0.05, 0.1): 0.05
  near(2 * slid(sim, 0.5) / (0.5 * (0.5 + DT)), G * (math.sin(TH) - 0.05 * math.cos(TH)), { rtol = 1e-6 })
end)

test("world_params.restitution_apex", function()
  -- a ball dropped from 1 m above its resting height: the first apex after
  -- the bounce is e^2 m (within 1 %, as examples/world/ball_test.lua)
  local r = 0.1
  local mb = diagc.jit(dsl.diagram "drop" {
    dsl.system { "world", dsl.world "drop" { time_step = DT,
      dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
      dsl.body { "ball", mass = 1, inertia = { 0.004, 0.004, 0.004 },
        joint = { "free", q = { 0, 0, 1 + r, 1, 0, 0, 0 } }, shapes = { { "sphere", radius = r } } } } },
    dsl.log { "world.ball.pose", period = 0.1 },
  })
  for _, e in ipairs({ 0.5, 0.8 }) do
    local sim = mb:simulator()
    sim.context:set_param("world.restitution", e)
    local up, apex = false, 0
    for k = 1, 1400 do
      sim:advance_to(k * DT)
      local z, vz = sim.context:get("world.ball.z"), sim.context:get("world.ball.vz")
      if vz > 0 then up = true end
      if up then apex = math.max(apex, z - r) end
      if up and vz < 0 then break end
    end
    near(apex, e * e, { rtol = 0.01 })
  end
end)

test("world_params.parameter_jacobian_by_differences", function()
  local mj = incline(nil, true)
  local c = mj:context()
  c:set_param("world.friction", 0.2)
  -- no generated d/dp: the step's local Jacobian has no parameter columns
  local ok, why = pcall(function() return c:parameter_jacobian() end)
  assert(not ok and tostring(why):find("jacobian = \"fd\"", 1, true), tostring(why))
  local r = c:parameter_jacobian({ jacobian = "fd" })
  eq(r.cols, { "world.friction" })
  local J = {}
  for i, n in ipairs(r.rows) do J[n] = r.J[i][1] end
  -- sliding: the friction impulse mu m g cos th dt against the motion, so
  -- d v+ / d mu = -g cos th dt along the slope (cos th, 0, -sin th), and
  -- the semi-implicit position moves dt times that
  local dv = -G * math.cos(TH) * DT
  near(J["world.box.vx"], dv * math.cos(TH), { rtol = 1e-6 })
  near(J["world.box.vz"], -dv * math.sin(TH), { rtol = 1e-6 })
  near(J["world.box.x"], DT * dv * math.cos(TH), { rtol = 1e-6 })
  near(J["world.box.wy"], 0, { atol = 1e-9 })
  -- where it sticks, friction is not at its bound: no derivative
  c:set_param("world.friction", 0.5)
  r = c:parameter_jacobian({ jacobian = "fd" })
  for i, n in ipairs(r.rows) do
    if n:match("^world%.box%.") then near(r.J[i][1], 0, { atol = 1e-9 }) end
  end
end)

test("world_params.caching_on_off_bit_identical", function()
  local a, b = m:simulator(), m:simulator()
  a.context:set_param("world.friction", 0.15)
  b.context:set_param("world.friction", 0.15)
  b.context:set_caching(false)
  a:advance_to(0.2)
  b:advance_to(0.2)
  local pa, pb = a.context:get("world.pos"), b.context:get("world.pos")
  for i = 1, #pa do assert(pa[i] == pb[i], "pos[" .. (i - 1) .. "] differs with caching off") end
  -- a parameter changed mid-run reaches the next step
  a.context:set_param("world.friction", 0.0)
  local v0 = a.context:get("world.vel")
  a:advance_to(0.2 + DT)
  local v1 = a.context:get("world.vel")
  near((v1[1] - v0[1]) / DT, G * math.sin(TH) * math.cos(TH), { rtol = 1e-6 })
end)

-- The joints' damping as parameters (world.J.damping; one value per moving
-- joint, in body order, the vector world.damping).  A slider (a prismatic
-- joint across gravity) of mass MS with damping d: the step is explicit in
-- the damping force, v+ = v - dt d v / m, so v_n = v0 (1 - d dt / m)^n
-- exactly; a pendulum's damped period against the closed form.
local MS, V0 = 2, 1.5

local function slider(form, jac)
  local items = {
    dsl.system { "world", dsl.world "slider" { time_step = DT, dynamics = form,
      dsl.body { "cart", mass = MS, inertia = { 0.1, 0.1, 0.1 },
        joint = { "prismatic", name = "slide", axis = { 1, 0, 0 }, damping = 0.5, v = { V0 } } } } },
    dsl.log { "world.slide.v", period = 0.1 },
  }
  if jac then items[#items + 1] = dsl.parameter_jacobian { "world.damping" } end
  return diagc.jit(dsl.diagram "slider" (items))
end

test("world_params.damping_of_a_slider", function()
  for _, form in ipairs({ "unrolled", "looped" }) do
    local ms = slider(form)
    for _, d in ipairs({ false, 0, 3, 40 }) do
      local sim = ms:simulator()
      if d then sim.context:set_param("world.slide.damping", d) end
      local dd = d or 0.5 -- the spec's value by default
      eq(sim.context:get("world.slide.damping"), dd)
      local n = 200
      sim:advance_to(n * DT)
      near(sim.context:get("world.slide.v"), V0 * (1 - dd * DT / MS) ^ n, { rtol = 1e-12, atol = 1e-300 })
    end
  end
end)

test("world_params.damped_pendulum_period", function()
  -- a point mass m on a massless rod L (a tiny inertia about its centre)
  -- hanging from a damped hinge: I = m L^2, theta'' + (d/I) theta' +
  -- (g/L) theta = 0 for small angles, period 2 pi / sqrt(g/L - (d/2I)^2),
  -- the amplitude decaying as exp(-d t / 2I)
  local L, mass, dt = 1, 1, 1e-4
  local mp = diagc.jit(dsl.diagram "pend" {
    dsl.system { "world", dsl.world "pend" { time_step = dt,
      dsl.body { "arm", mass = mass, inertia = { 1e-9, 1e-9, 1e-9 }, com = { 0, 0, -L },
        joint = { "revolute", name = "hinge", axis = { 0, 1, 0 }, q = { 0.01 } } } } },
    dsl.log { "world.hinge.q", period = 0.1 },
  })
  for _, d in ipairs({ 0.5, 2 }) do
    local sim = mp:simulator()
    sim.context:set_param("world.hinge.damping", d)
    -- the times of the downward zero crossings (interpolated)
    local prev, ups, t = sim.context:get("world.hinge.q"), {}, 0
    local peak = 0
    for k = 1, 40000 do
      sim:advance_to(k * dt)
      local q = sim.context:get("world.hinge.q")
      if prev > 0 and q <= 0 then ups[#ups + 1] = (k - 1 + prev / (prev - q)) * dt end
      prev = q
      if #ups == 2 then break end
    end
    local I = mass * L * L
    local w = math.sqrt(G / L - (d / (2 * I)) ^ 2)
    near(ups[2] - ups[1], 2 * math.pi / w, { rtol = 2e-3 })
  end
end)

test("world_params.damping_gradients_and_jacobian", function()
  -- the step's Jacobians (docs/world.md §7) with the damping changed
  local ms = slider("unrolled", true)
  local c = ms:context()
  c:set_param("world.slide.damping", 3)
  local J = c:step_jacobians("world")
  -- d v+ / d v = 1 - dt d / m
  local F = c:step_jacobians("world", { jacobian = "fd" })
  for i = 1, #F.T do
    for j = 1, #F.T[i] do near(J.T[i][j], F.T[i][j], { rtol = 1e-7, atol = 1e-9 }) end
  end
  -- d v+ / d damping = -dt v / m, by differences
  local r = c:parameter_jacobian({ jacobian = "fd" })
  eq(r.cols, { "world.damping" })
  -- (the state's rows come first; the logged output world.slide.v, the
  -- state as it is, has a zero row after them)
  local got = {}
  for i, n in ipairs(r.rows) do
    if got[n] == nil then got[n] = r.J[i][1] end
  end
  near(got["world.slide.v"], -DT * V0 / MS, { rtol = 1e-6 })
  near(got["world.slide.q"], -DT * DT * V0 / MS, { rtol = 1e-6 })
end)

test("world_params.damping_caching_on_off_bit_identical", function()
  local ms = slider("unrolled")
  local a, b = ms:simulator(), ms:simulator()
  for _, s in ipairs({ a, b }) do s.context:set_param("world.slide.damping", 1.25) end
  b.context:set_caching(false)
  a:advance_to(0.1)
  b:advance_to(0.1)
  assert(a.context:get("world.slide.v") == b.context:get("world.slide.v"), "v differs with caching off")
  -- changed mid-run, it reaches the next step
  a.context:set_param("world.slide.damping", 0)
  local v0 = a.context:get("world.slide.v")
  a:advance_to(0.1 + 5 * DT)
  eq(a.context:get("world.slide.v"), v0)
end)

-- Body masses as parameters (world.B.mass; one value per body a dof moves,
-- in body order, the vector world.mass).  In zero gravity a constant force
-- F on a free body (the lone body's closed form) and on a slider (the
-- generic recursive algorithms) gives v_n = n dt F / m exactly.
local FB, FC = { 3, -1, 2 }, 5

local function pushed(form, jac)
  local items = {
    dsl.system { "w", dsl.world "pushed" { time_step = DT, gravity = { 0, 0, 0 }, dynamics = form,
      dsl.body { "ball", mass = 1, inertia = { 0.1, 0.1, 0.1 }, joint = { "free", actuated = true } },
      dsl.body { "cart", mass = 2, inertia = { 0.1, 0.1, 0.1 },
        joint = { "prismatic", axis = { 1, 0, 0 }, actuated = true } } } },
    dsl.fix_input { "w.effort", value = { FB[1], FB[2], FB[3], 0, 0, 0, FC } },
  }
  if jac then items[#items + 1] = dsl.parameter_jacobian { "w.mass" } end
  return diagc.jit(dsl.diagram "pushed" (items))
end

test("world_params.mass_of_a_pushed_body", function()
  for _, form in ipairs({ "unrolled", "looped" }) do
    local mp = pushed(form)
    for _, m in ipairs({ false, 0.25, 4 }) do
      local sim = mp:simulator()
      if m then
        sim.context:set_param("w.ball.mass", m)
        sim.context:set_param("w.cart.mass", 2 * m)
      end
      local mb, mc = m or 1, m and 2 * m or 2
      eq(sim.context:get("w.mass"), { mb, mc })
      local n = 100
      sim:advance_to(n * DT)
      local v = sim.context:get("w.vel")
      for a = 1, 3 do near(v[a], n * DT * FB[a] / mb, { rtol = 1e-12 }) end
      near(v[7], n * DT * FC / mc, { rtol = 1e-12 })
      -- no torque: no rotation
      for a = 4, 6 do eq(v[a], 0) end
    end
  end
end)

test("world_params.mass_parameter_jacobian", function()
  -- d v+ / d m = -dt F / m^2 (by differences: no generated d/dp)
  local c = pushed("unrolled", true):context()
  c:set_param("w.ball.mass", 2)
  local r = c:parameter_jacobian({ jacobian = "fd" })
  eq(r.cols, { "w.mass[0]", "w.mass[1]" })
  local got = {}
  for i, n in ipairs(r.rows) do
    if got[n] == nil then got[n] = r.J[i] end
  end
  near(got["w.ball.vx"][1], -DT * FB[1] / 4, { rtol = 1e-6 })
  near(got["w.ball.vx"][2], 0, { atol = 1e-12 })
  near(got["w.cart.v"][2], -DT * FC / 4, { rtol = 1e-6 })
  near(got["w.cart.v"][1], 0, { atol = 1e-12 })
end)

-- a chain and a lone free body, both with offset centres of mass, under
-- gravity: the step's Jacobians with changed masses against differences,
-- and the same steps as a world whose spec has those masses (a peer: the
-- masses folded as literals)
local function offset_world(mb, mp, form)
  return diagc.jit(dsl.diagram "offset" {
    dsl.system { "w", dsl.world "offset" { time_step = DT, dynamics = form,
      dsl.body { "cart", mass = 1.3, inertia = { 0.02, 0.03, 0.04 },
        joint = { "prismatic", axis = { 1, 0, 0 }, v = { 0.2 } } },
      dsl.body { "pole", mass = mp, com = { 0.05, 0, -0.4 }, inertia = { 0.02, 0.03, 0.01, 0.001, 0, 0.002 },
        joint = { "revolute", parent = "cart", axis = { 0, 1, 0 }, q = { 0.3 }, v = { -0.5 } } },
      dsl.body { "box", mass = mb, com = { 0.1, -0.05, 0.02 }, inertia = { 0.05, 0.06, 0.07, 0.01, 0, -0.005 },
        joint = { "free", q = { 0, 2, 1, 1, 0, 0, 0 }, v = { 0.1, 0, 0.2, 0.7, -0.4, 1.1 } } } } },
    dsl.log { "w.box.pose", period = 0.1 },
  })
end

test("world_params.mass_offset_centres", function()
  for _, form in ipairs({ "unrolled", "looped" }) do
    local base = offset_world(2, 0.6, form)
    local peer = offset_world(3.5, 0.9, form)
    local a, b = base:simulator(), peer:simulator()
    a.context:set_param("w.box.mass", 3.5)
    a.context:set_param("w.pole.mass", 0.9)
    local J = a.context:step_jacobians("w")
    local F = a.context:step_jacobians("w", { jacobian = "fd" })
    for i = 1, #F.T do
      for j = 1, #F.T[i] do near(J.T[i][j], F.T[i][j], { rtol = 1e-7, atol = 1e-8 }) end
    end
    a:advance_to(0.05)
    b:advance_to(0.05)
    near(a.context:get("w.pos"), b.context:get("w.pos"), { rtol = 1e-12, atol = 1e-12 })
    near(a.context:get("w.vel"), b.context:get("w.vel"), { rtol = 1e-11, atol = 1e-11 })
    near(a.context:get("w.energy"), b.context:get("w.energy"), { rtol = 1e-12 })
    near(a.context:get("w.gravity_effort"), b.context:get("w.gravity_effort"), { rtol = 1e-12, atol = 1e-12 })
  end
end)

test("world_params.mass_momentum_in_a_collision", function()
  -- two spheres in zero gravity, a moving at V0 onto b at rest: the contact
  -- impulse is internal, so m_a v_a + m_b v_b stays m_a V0; elastic (e = 1)
  -- v_a = (m_a - m_b) V0 / (m_a + m_b), v_b = 2 m_a V0 / (m_a + m_b)
  local r = 0.1
  local mc = diagc.jit(dsl.diagram "hit" {
    dsl.system { "w", dsl.world "hit" { time_step = DT, gravity = { 0, 0, 0 }, restitution = 1,
      dsl.body { "a", mass = 1, inertia = { 0.004, 0.004, 0.004 },
        joint = { "free", q = { 0, 0, 0, 1, 0, 0, 0 }, v = { V0, 0, 0, 0, 0, 0 } },
        shapes = { { "sphere", radius = r } } },
      dsl.body { "b", mass = 1, inertia = { 0.004, 0.004, 0.004 },
        joint = { "free", q = { 0.3, 0, 0, 1, 0, 0, 0 } }, shapes = { { "sphere", radius = r } } } } },
    dsl.log { "w.a.pose", period = 0.1 },
  })
  for _, ms in ipairs({ { 1, 1 }, { 2, 0.5 }, { 0.3, 3 } }) do
    local ma, mb = ms[1], ms[2]
    local sim = mc:simulator()
    sim.context:set_param("w.a.mass", ma)
    sim.context:set_param("w.b.mass", mb)
    sim:advance_to(0.2)
    local va, vb = sim.context:get("w.a.vx"), sim.context:get("w.b.vx")
    near(ma * va + mb * vb, ma * V0, { rtol = 1e-9 })
    near(va, (ma - mb) * V0 / (ma + mb), { rtol = 1e-3, atol = 1e-3 })
    near(vb, 2 * ma * V0 / (ma + mb), { rtol = 1e-3 })
  end
end)

test("world_params.mass_caching_on_off_bit_identical", function()
  local mo = offset_world(2, 0.6, "unrolled")
  local a, b = mo:simulator(), mo:simulator()
  for _, s in ipairs({ a, b }) do s.context:set_param("w.box.mass", 0.7) end
  b.context:set_caching(false)
  a:advance_to(0.05)
  b:advance_to(0.05)
  local pa, pb = a.context:get("w.pos"), b.context:get("w.pos")
  for i = 1, #pa do assert(pa[i] == pb[i], "pos[" .. (i - 1) .. "] differs with caching off") end
end)

-- Friction and restitution per `pairs` entry (world.A.B.friction, the
-- vector world.pair_friction; docs/world.md, "Parameters").  Two boxes on
-- one incline, each with its own entry: each slides at g (sin th - mu_i cos
-- th) with its own mu, and a sweep of one entry's mu leaves the other box
-- the same bits.
local function two_boxes()
  local c, s = math.cos(TH / 2), math.sin(TH / 2)
  local function box(name, y)
    return dsl.body { name, mass = 2, inertia = { 0.03, 0.03, 0.05 },
      joint = { "free", q = { H * math.sin(TH), y, H * math.cos(TH), c, 0, s, 0 } },
      shapes = { { "box", size = { 0.4, 0.4, 2 * H } } } }
  end
  return diagc.jit(dsl.diagram "two" {
    dsl.system { "w", dsl.world "two" { time_step = DT, friction = 0.5,
      pairs = { { "slope", "a", friction = 0.1 }, { "b", "slope", friction = 0.25, restitution = 0.3 } },
      dsl.body { "slope", joint = { "fixed", rpy = { 0, TH, 0 } }, shapes = { { "plane" } } },
      box("a", -1), box("b", 1) } },
    dsl.log { "w.a.pose", period = 0.1 },
  })
end

-- the distances boxes a and b slid down the slope in T s
local function slid2(sim, T)
  local p0 = sim.context:get("w.pos")
  sim:advance_to(T)
  local p = sim.context:get("w.pos")
  local function along(k) return (p[k] - p0[k]) * math.cos(TH) - (p[k + 2] - p0[k + 2]) * math.sin(TH) end
  return along(1), along(8), p
end

test("world_params.pair_friction_two_boxes", function()
  local m2, T = two_boxes(), 0.5
  local acc = function(x) return 2 * x / (T * (T + DT)) end
  local sim = m2:simulator()
  -- the entries' own numbers by default, each a parameter named by the
  -- entry's bodies as written
  eq(sim.context:get("w.pair_friction"), { 0.1, 0.25 })
  eq(sim.context:get("w.slope.a.friction"), 0.1)
  eq(sim.context:get("w.b.slope.friction"), 0.25)
  eq(sim.context:get("w.b.slope.restitution"), 0.3)
  local xa, xb = slid2(sim, T)
  near(acc(xa), G * (math.sin(TH) - 0.1 * math.cos(TH)), { rtol = 1e-6 })
  near(acc(xb), G * (math.sin(TH) - 0.25 * math.cos(TH)), { rtol = 1e-6 })
  -- a sweep of a's mu: a follows it, b keeps its bits
  local ref
  for _, mu in ipairs({ 0, 0.05, 0.2, 0.3 }) do
    sim = m2:simulator()
    sim.context:set_param("w.slope.a.friction", mu)
    local ya, yb, p = slid2(sim, T)
    near(acc(ya), G * (math.sin(TH) - mu * math.cos(TH)), { rtol = 1e-6 })
    near(acc(yb), G * (math.sin(TH) - 0.25 * math.cos(TH)), { rtol = 1e-6 })
    ref = ref or p
    for k = 8, 14 do assert(p[k] == ref[k], "box b's pos[" .. (k - 1) .. "] changed with a's friction") end
  end
  -- the world's default is no longer what either entry takes
  sim = m2:simulator()
  sim.context:set_param("w.friction", 0)
  local za, zb = slid2(sim, T)
  near(acc(za), G * (math.sin(TH) - 0.1 * math.cos(TH)), { rtol = 1e-6 })
  near(acc(zb), G * (math.sin(TH) - 0.25 * math.cos(TH)), { rtol = 1e-6 })
  -- above tan(20 deg) b sticks; a's vector element set through the whole vector
  sim = m2:simulator()
  sim.context:set_param("w.pair_friction", { 0.1, 0.4 })
  local wa, wb = slid2(sim, T)
  near(acc(wa), G * (math.sin(TH) - 0.1 * math.cos(TH)), { rtol = 1e-6 })
  near(wb, 0, { atol = 1e-9 })
end)

test("world_params.pair_restitution_apex", function()
  -- a ball dropped onto a plane whose pair gives its own restitution: the
  -- first apex is e^2 m for the pair's parameter e (as restitution_apex)
  local r = 0.1
  local mb = diagc.jit(dsl.diagram "drop2" {
    dsl.system { "world", dsl.world "drop2" { time_step = DT, pairs = { { "ball", "ground", restitution = 0.9 } },
      dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
      dsl.body { "ball", mass = 1, inertia = { 0.004, 0.004, 0.004 },
        joint = { "free", q = { 0, 0, 1 + r, 1, 0, 0, 0 } }, shapes = { { "sphere", radius = r } } } } },
    dsl.log { "world.ball.pose", period = 0.1 },
  })
  for _, e in ipairs({ 0.5, 0.8 }) do
    local sim = mb:simulator()
    sim.context:set_param("world.ball.ground.restitution", e)
    local up, apex = false, 0
    for k = 1, 1400 do
      sim:advance_to(k * DT)
      local z, vz = sim.context:get("world.ball.z"), sim.context:get("world.ball.vz")
      if vz > 0 then up = true end
      if up then apex = math.max(apex, z - r) end
      if up and vz < 0 then break end
    end
    near(apex, e * e, { rtol = 0.01 })
  end
end)

-- Inertias and centres of mass as parameters (world.B.inertia: ixx, iyy,
-- izz, ixy, ixz, iyz about the centre of mass; world.B.com), in both forms.
-- A constant torque on a free body at rest in zero gravity: about a
-- principal axis its angular velocity grows as n dt tau / I exactly (no
-- gyroscopic term); with products of inertia the first step from rest is
-- dt I^-1 tau (the full inverse: the spec's diagonal inertia gave the lone
-- body's closed form no off-diagonal entries, the parameter's fills them).
local function torqued(form, tau)
  return diagc.jit(dsl.diagram "torqued" {
    dsl.system { "w", dsl.world "torqued" { time_step = DT, gravity = { 0, 0, 0 }, dynamics = form,
      dsl.body { "ball", mass = 1, inertia = { 0.1, 0.1, 0.1 }, joint = { "free", actuated = true } } } },
    dsl.fix_input { "w.effort", value = { 0, 0, 0, tau[1], tau[2], tau[3] } },
  })
end

-- the solution x of A x = b for a symmetric 3x3 A (Cramer's rule)
local function solve3(A, b)
  local function det(M)
    return M[1][1] * (M[2][2] * M[3][3] - M[2][3] * M[3][2]) - M[1][2] * (M[2][1] * M[3][3] - M[2][3] * M[3][1])
      + M[1][3] * (M[2][1] * M[3][2] - M[2][2] * M[3][1])
  end
  local d, x = det(A), {}
  for k = 1, 3 do
    local M = {}
    for r = 1, 3 do
      M[r] = {}
      for c = 1, 3 do M[r][c] = c == k and b[r] or A[r][c] end
    end
    x[k] = det(M) / d
  end
  return x
end

test("world_params.inertia_under_a_constant_torque", function()
  local tau = { 0.3, -0.2, 0.5 }
  for _, form in ipairs({ "unrolled", "looped" }) do
    local mt = torqued(form, tau)
    -- principal: about z alone, w_z = n dt tau_z / izz for every step
    local mz = torqued(form, { 0, 0, tau[3] })
    local sim = mz:simulator()
    sim.context:set_param("w.ball.inertia", { 0.2, 0.3, 0.4, 0, 0, 0 })
    sim:advance_to(100 * DT)
    local v = sim.context:get("w.vel")
    near(v[6], 100 * DT * tau[3] / 0.4, { rtol = 1e-12 })
    eq({ v[4], v[5] }, { 0, 0 })
    -- with products of inertia: the first step is dt I^-1 tau
    local I = { 0.2, 0.3, 0.4, 0.05, -0.03, 0.02 }
    sim = mt:simulator()
    sim.context:set_param("w.ball.inertia", I)
    sim:advance_to(DT)
    v = sim.context:get("w.vel")
    local A = { { I[1], I[4], I[5] }, { I[4], I[2], I[6] }, { I[5], I[6], I[3] } }
    local x = solve3(A, tau)
    for k = 1, 3 do near(v[3 + k], DT * x[k], { rtol = 1e-12 }) end
  end
end)

test("world_params.compound_pendulum_period", function()
  -- a body on a hinge with its centre of mass L below it and inertia Ic
  -- about it: small swings of period 2 pi sqrt((Ic + m L^2) / (m g L)),
  -- for com and inertia set by set_param (the spec's differ)
  local dt, mass = 1e-4, 1.5
  for _, form in ipairs({ "unrolled", "looped" }) do
    local mp = diagc.jit(dsl.diagram "compound" {
      dsl.system { "world", dsl.world "compound" { time_step = dt, dynamics = form,
        dsl.body { "arm", mass = mass, inertia = { 0.01, 0.01, 0.01 }, com = { 0, 0, -0.2 },
          joint = { "revolute", name = "hinge", axis = { 0, 1, 0 }, q = { 0.01 } } } } },
      dsl.log { "world.hinge.q", period = 0.1 },
    })
    for _, case in ipairs({ { 0.5, 0.02 }, { 1.2, 0.3 } }) do
      local L, Ic = case[1], case[2]
      local sim = mp:simulator()
      sim.context:set_param("world.arm.com", { 0, 0, -L })
      sim.context:set_param("world.arm.inertia", { 0.05, Ic, 0.05, 0, 0, 0 })
      local prev, downs = sim.context:get("world.hinge.q"), {}
      for k = 1, 60000 do
        sim:advance_to(k * dt)
        local q = sim.context:get("world.hinge.q")
        if prev > 0 and q <= 0 then downs[#downs + 1] = (k - 1 + prev / (prev - q)) * dt end
        prev = q
        if #downs == 2 then break end
      end
      near(downs[2] - downs[1], 2 * math.pi * math.sqrt((Ic + mass * L * L) / (mass * G * L)), { rtol = 2e-3 })
    end
  end
end)

-- the world of mass_offset_centres with the box's and the pole's com and
-- inertia given (the peer: the same numbers folded as the spec's)
local function offset_world2(cb, Ib, cp, Ip, form)
  return diagc.jit(dsl.diagram "offset2" {
    dsl.system { "w", dsl.world "offset2" { time_step = DT, dynamics = form,
      dsl.body { "cart", mass = 1.3, inertia = { 0.02, 0.03, 0.04 },
        joint = { "prismatic", axis = { 1, 0, 0 }, v = { 0.2 } } },
      dsl.body { "pole", mass = 0.6, com = cp, inertia = Ip,
        joint = { "revolute", parent = "cart", axis = { 0, 1, 0 }, q = { 0.3 }, v = { -0.5 } } },
      dsl.body { "box", mass = 2, com = cb, inertia = Ib,
        joint = { "free", q = { 0, 2, 1, 1, 0, 0, 0 }, v = { 0.1, 0, 0.2, 0.7, -0.4, 1.1 } } } } },
    dsl.log { "w.box.pose", period = 0.1 },
  })
end

test("world_params.com_and_inertia_against_the_spec", function()
  local cb0, Ib0 = { 0.1, -0.05, 0.02 }, { 0.05, 0.06, 0.07, 0.01, 0, -0.005 }
  local cp0, Ip0 = { 0.05, 0, -0.4 }, { 0.02, 0.03, 0.01, 0.001, 0, 0.002 }
  local cb1, Ib1 = { -0.2, 0.07, 0.3 }, { 0.08, 0.05, 0.09, -0.01, 0.02, 0.003 }
  local cp1, Ip1 = { 0, 0.1, -0.7 }, { 0.04, 0.05, 0.02, 0, 0.003, 0 }
  for _, form in ipairs({ "unrolled", "looped" }) do
    local a = offset_world2(cb0, Ib0, cp0, Ip0, form):simulator()
    local b = offset_world2(cb1, Ib1, cp1, Ip1, form):simulator()
    a.context:set_param("w.box.com", cb1)
    a.context:set_param("w.box.inertia", Ib1)
    a.context:set_param("w.pole.com", cp1)
    a.context:set_param("w.pole.inertia", Ip1)
    local J = a.context:step_jacobians("w")
    local F = a.context:step_jacobians("w", { jacobian = "fd" })
    for i = 1, #F.T do
      for j = 1, #F.T[i] do near(J.T[i][j], F.T[i][j], { rtol = 1e-7, atol = 1e-8 }) end
    end
    a:advance_to(0.05)
    b:advance_to(0.05)
    near(a.context:get("w.pos"), b.context:get("w.pos"), { rtol = 1e-12, atol = 1e-12 })
    near(a.context:get("w.vel"), b.context:get("w.vel"), { rtol = 1e-11, atol = 1e-11 })
    near(a.context:get("w.energy"), b.context:get("w.energy"), { rtol = 1e-12 })
    near(a.context:get("w.gravity_effort"), b.context:get("w.gravity_effort"), { rtol = 1e-12, atol = 1e-12 })
    -- caching off: the same bits
    local c = offset_world2(cb0, Ib0, cp0, Ip0, form):simulator()
    c.context:set_caching(false)
    c.context:set_param("w.box.com", cb1)
    c.context:set_param("w.box.inertia", Ib1)
    c.context:set_param("w.pole.com", cp1)
    c.context:set_param("w.pole.inertia", Ip1)
    c:advance_to(0.05)
    local pa, pc = a.context:get("w.pos"), c.context:get("w.pos")
    for i = 1, #pa do assert(pa[i] == pc[i], "pos[" .. (i - 1) .. "] differs with caching off") end
  end
end)

test("world_params.com_of_a_lone_body_at_its_origin_is_no_parameter", function()
  -- a lone free body whose spec puts its centre of mass at its origin has
  -- a closed form without centre-of-mass terms: set_param (as -p) says so
  local c = pushed("unrolled"):context()
  local ok, why = pcall(function() c:set_param("w.ball.com", { 0.1, 0, 0 }) end)
  assert(not ok and tostring(why):find("body 'ball' is a lone free body whose spec puts its centre of mass at its "
    .. "origin", 1, true), tostring(why))
  -- its inertia is one; the cart's com too (not a lone body)
  eq(c:get("w.ball.inertia"), { 0.1, 0.1, 0.1, 0, 0, 0 })
  eq(c:get("w.cart.com"), { 0, 0, 0 })
  -- not positive definite: one line naming the body
  ok, why = pcall(function() c:set_param("w.ball.inertia", { 1, 1, 1, 2, 0, 0 }) end)
  assert(not ok and tostring(why):find("body 'ball': inertia {1, 1, 1, 2, 0, 0} is not positive definite", 1, true),
    tostring(why))
end)
