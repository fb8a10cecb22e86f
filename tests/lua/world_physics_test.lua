-- The compiled world's physical checks (issue #17): a box resting on a
-- plane (drift, normal impulse = m g dt per step), redundant contacts
-- (two coincident ground planes: a singular LCP), a box on an incline
-- along a tangent axis (sticks for tan < mu, slides with g (sin - mu cos))
-- and along a diagonal (box friction: up to sqrt 2 mu), a frictionless
-- double pendulum's energy error (first order in dt), and no NaN.  Expected values are analytic.
local dsl = diagc.dsl
local g, dt = 9.81, 1e-3

local function box_inertia(m, a) local I = m * a * a / 6; return { I, I, I } end

-- quaternion product (w, x, y, z)
local qmul = require("diagc.testing.world_tangent").qmul

local function resting_box(grounds)
  local items = { time_step = dt, check_lcp = true }
  local shapes = {}
  for i = 1, grounds do shapes[i] = { "plane" } end
  items[1] = dsl.body { "ground", joint = { "fixed" }, shapes = shapes }
  items[2] = dsl.body { "box", mass = 2.0, inertia = box_inertia(2.0, 0.2),
    joint = { "free", q = { 0.3, -0.2, 0.1, 1, 0, 0, 0 } }, shapes = { { "box", size = { 0.2, 0.2, 0.2 } } } }
  return diagc.jit(dsl.diagram "rest" { dsl.system { "w", dsl.world "arena" (items) } })
end

-- the normal impulses of the warm-start table (entries [1 + slot, n, t1,
-- t2], docs/world.md)
local function normal_sum(imp)
  local s = 0
  for k = 1, #imp, 4 do s = s + imp[k + 1] end
  return s
end

for _, grounds in ipairs({ 1, 2 }) do
  test("world_physics.box_rests_" .. grounds .. "_plane" .. (grounds > 1 and "s_redundant" or ""), function()
    local m = resting_box(grounds)
    local sim = m:simulator()
    local q0 = sim.context:get("w.pos")
    for k = 1, 10000 do
      sim:advance_to((k - 0.5) * dt)
      if k % 500 == 1 then
        near(normal_sum(sim.context:get("w.imp")), 2.0 * g * dt, { rtol = 1e-9 })
        local info = sim.context:get("w.info")
        eq(info[2], 0)
      end
    end
    local q = sim.context:get("w.pos")
    for i = 1, 3 do near(q[i], q0[i], { atol = 1e-6 }) end
    for _, x in ipairs(q) do assert(x == x, "NaN") end
  end)
end

-- a cube on a slope of angle theta whose downhill direction is world x
-- rotated by yaw about z; returns the distances moved down the slope and
-- across it after T
local function slope_slide(theta, yaw, mu, T, method)
  local a = 0.2
  local n = { math.sin(theta) * math.cos(yaw), math.sin(theta) * math.sin(yaw), math.cos(theta) }
  local q = qmul({ math.cos(yaw / 2), 0, 0, math.sin(yaw / 2) }, { math.cos(theta / 2), 0, math.sin(theta / 2), 0 })
  local arena = dsl.world "slope" {
    time_step = dt, friction = mu, check_lcp = true, contact_method = method,
    dsl.body { "slope", joint = { "fixed", rpy = { 0, theta, yaw } }, shapes = { { "plane" } } },
    dsl.body { "box", mass = 1, inertia = box_inertia(1, a),
      joint = { "free", q = { n[1] * a / 2, n[2] * a / 2, n[3] * a / 2, q[1], q[2], q[3], q[4] } },
      shapes = { { "box", size = { a, a, a } } } },
  }
  local m = diagc.jit(dsl.diagram "incline" { dsl.system { "w", arena } })
  local sim = m:simulator()
  local p0 = sim.context:get("w.pos")
  sim:advance_to(T)
  local p = sim.context:get("w.pos")
  -- downhill: the slope's x axis, (cos th cos yaw, cos th sin yaw, -sin th);
  -- across: its y axis, (-sin yaw, cos yaw, 0)
  local d = { math.cos(theta) * math.cos(yaw), math.cos(theta) * math.sin(yaw), -math.sin(theta) }
  local e = { -math.sin(yaw), math.cos(yaw), 0 }
  local s, side = 0, 0
  for i = 1, 3 do
    s = s + (p[i] - p0[i]) * d[i]
    side = side + (p[i] - p0[i]) * e[i]
  end
  return s, side
end

test("world_physics.incline_sticks_below_tan", function()
  local s = slope_slide(math.rad(20), 0, 0.5, 2.0)
  near(s, 0, { atol = 1e-6 })
end)

test("world_physics.incline_slides_with_g_sin_minus_mu_cos", function()
  local th, mu, T = math.rad(20), 0.2, 1.0
  -- the box starts sliding at the first step: s = a T^2 / 2 up to O(dt)
  local s = slope_slide(th, 0, mu, T)
  local a = g * (math.sin(th) - mu * math.cos(th))
  near(2 * s / (T * T), a, { rtol = 0.01 })
end)

-- Coulomb's cone is round: the default tangent frame of a contact (world
-- x projected on the slope) does not matter.  A slope of 20 degrees
-- (tan 20 = 0.364) whose downhill direction is at 0, 22.5, 45 and 67.5
-- degrees to x: with mu = 0.3 the box slides at g (sin - mu cos) within
-- 1 % and straight down (a friction box in the default frame would hold
-- it at 45 degrees, where its diagonal gives sqrt 2 mu, and pull it
-- sideways in between); with mu = 0.45 it sticks (< 1e-4 m in 2 s).  Both
-- contact methods (the dense one is the reference).
for _, deg in ipairs({ 0, 22.5, 45, 67.5 }) do
  for _, method in ipairs({ "sparse", "dense" }) do
    local name = tostring(deg):gsub("%.", "_") .. "_deg_" .. method
    test("world_physics.incline_isotropic_slides_at_" .. name, function()
      local th, mu, T = math.rad(20), 0.3, 1.0
      local s, side = slope_slide(th, math.rad(deg), mu, T, method)
      near(2 * s / (T * T), g * (math.sin(th) - mu * math.cos(th)), { rtol = 0.01 })
      near(side, 0, { atol = 1e-9 })
    end)
    test("world_physics.incline_isotropic_sticks_at_" .. name, function()
      local s, side = slope_slide(math.rad(20), math.rad(deg), 0.45, 2.0, method)
      assert(math.abs(s) < 1e-4 and math.abs(side) < 1e-4, string.format("moved %.3g down, %.3g across", s, side))
    end)
  end
end

-- The same on the sparse path (an island of more than 48 rows): five flat
-- boxes (0.4 x 0.4 x 0.05 m) stacked on a slope of 20 degrees turned 45
-- degrees to x, mu = 0.3 everywhere: they slide together at g (sin - mu
-- cos) within 1 % (the contacts between them stick: nothing needs them),
-- straight down; with mu = 0.45 they stick.
local function slope_stack(mu, T, method)
  local th, yaw, h, w = math.rad(20), math.rad(45), 0.05, 0.4
  local n = { math.sin(th) * math.cos(yaw), math.sin(th) * math.sin(yaw), math.cos(th) }
  local q = qmul({ math.cos(yaw / 2), 0, 0, math.sin(yaw / 2) }, { math.cos(th / 2), 0, math.sin(th / 2), 0 })
  local items = { time_step = dt, friction = mu, check_lcp = true, contact_method = method,
    dsl.body { "slope", joint = { "fixed", rpy = { 0, th, yaw } }, shapes = { { "plane" } } } }
  local Ixy, Iz = (w * w + h * h) / 12, (w * w + w * w) / 12
  for i = 1, 5 do
    local c = (i - 0.5) * h
    items[#items + 1] = dsl.body { "b" .. i, mass = 1, inertia = { Ixy, Ixy, Iz },
      joint = { "free", q = { n[1] * c, n[2] * c, n[3] * c, q[1], q[2], q[3], q[4] } },
      shapes = { { "box", size = { w, w, h } } } }
  end
  local m = diagc.jit(dsl.diagram "stack" { dsl.system { "w", dsl.world "slope" (items) } })
  local sim = m:simulator()
  local p0 = sim.context:get("w.pos")
  sim:advance_to(T)
  local p = sim.context:get("w.pos")
  local d = { math.cos(th) * math.cos(yaw), math.cos(th) * math.sin(yaw), -math.sin(th) }
  local e = { -math.sin(yaw), math.cos(yaw), 0 }
  local down, side = {}, {}
  for b = 0, 4 do
    down[b + 1], side[b + 1] = 0, 0
    for i = 1, 3 do
      down[b + 1] = down[b + 1] + (p[7 * b + i] - p0[7 * b + i]) * d[i]
      side[b + 1] = side[b + 1] + (p[7 * b + i] - p0[7 * b + i]) * e[i]
    end
  end
  return down, side
end

for _, method in ipairs({ "sparse", "dense" }) do
  test("world_physics.incline_stack_isotropic_" .. method, function()
    local th, T = math.rad(20), 0.5
    local down, side = slope_stack(0.3, T, method)
    for b = 1, 5 do
      near(2 * down[b] / (T * T), g * (math.sin(th) - 0.3 * math.cos(th)), { rtol = 0.01 })
      near(side[b], 0, { atol = 1e-9 })
    end
    down, side = slope_stack(0.45, 1.0, method)
    for b = 1, 5 do
      assert(math.abs(down[b]) < 1e-4 and math.abs(side[b]) < 1e-4,
        string.format("box %d moved %.3g down, %.3g across", b, down[b], side[b]))
    end
  end)
end

-- The world's step is semi-implicit Euler (v' from M(q), c(q, v); q' from
-- v'): first order, so the energy error of a frictionless double pendulum
-- over 10 s is O(dt).  Checked: under 1 % of |E| at dt = 1 ms, and halving
-- dt halves it (ratio 2 within 25 %), which a wrong M or c would break.
local function pendulum_energy_drift(step)
  local l, m = 0.5, 1.0
  local I = { 1e-3, 1e-3, 1e-3 }
  local arena = dsl.world "dp" {
    time_step = step,
    dsl.body { "a", mass = m, com = { 0, 0, -l }, inertia = I, joint = { "revolute", axis = { 0, 1, 0 }, q = { 1.0 } } },
    dsl.body { "b", mass = m, com = { 0, 0, -l }, inertia = I,
      joint = { "revolute", parent = "a", axis = { 0, 1, 0 }, xyz = { 0, 0, -l }, q = { -0.5 } } },
  }
  local mdl = diagc.jit(dsl.diagram "dp" { dsl.system { "w", arena } })
  local sim = mdl:simulator()
  local e0 = sim.context:eval("w.energy")
  sim:advance_to(10.0 - step / 2)
  local e = sim.context:eval("w.energy")
  assert(e == e, "NaN")
  return e - e0, e0
end

test("world_physics.double_pendulum_energy_first_order", function()
  local d1, e0 = pendulum_energy_drift(1e-3)
  local d2 = pendulum_energy_drift(5e-4)
  assert(math.abs(d1) < 0.01 * math.abs(e0), string.format("drift %.3g of %.3g", d1, e0))
  near(d1 / d2, 2.0, { rtol = 0.25 })
end)

-- Newton's cradle (e = 1, no gravity, no friction): the first ball hits a
-- row of touching balls.  Momentum is conserved to 1e-9 and energy within
-- 1 %; with the world's sequential impacts (restitution_passes, default
-- 20) the last ball leaves with the first one's velocity and the others
-- stop; with restitution_passes = 0 (DART's simultaneous restitution) the
-- row moves together: (-1/3, 2/3, 2/3) for three balls.
local function cradle(n, passes)
  local r, m = 0.1, 1.0
  local I = 0.4 * m * r * r
  local items = { gravity = { 0, 0, 0 }, restitution = 1.0, friction = 0, check_lcp = true,
    restitution_passes = passes }
  for i = 1, n do
    items[i] = dsl.body { "b" .. i, mass = m, inertia = { I, I, I },
      joint = { "free", q = { i == 1 and -0.05 or (i - 1) * 2 * r, 0, 0, 1, 0, 0, 0 },
        v = { i == 1 and 1 or 0, 0, 0, 0, 0, 0 } },
      shapes = { { "sphere", radius = r } } }
  end
  local mdl = diagc.jit(dsl.diagram "cradle" { dsl.system { "w", dsl.world "cradle" (items) } })

  local sim = mdl:simulator()
  sim:advance_to(0.3)
  local v = sim.context:get("w.vel")
  local p, e, vx = 0, 0, {}
  for i = 0, n - 1 do
    p = p + m * v[6 * i + 1]
    vx[i + 1] = v[6 * i + 1]
    for k = 1, 3 do e = e + 0.5 * m * v[6 * i + k] ^ 2 end
  end
  near(p, 1.0, { rtol = 1e-9 })
  near(e, 0.5, { rtol = 0.01 })
  return vx
end

test("world_physics.newtons_cradle_sequential", function()
  for _, n in ipairs({ 3, 5 }) do
    local vx = cradle(n, nil)
    for i = 1, n - 1 do near(vx[i], 0, { atol = 1e-9 }) end
    near(vx[n], 1.0, { rtol = 1e-9 })
  end
end)

test("world_physics.newtons_cradle_simultaneous", function()
  local vx = cradle(3, 0)
  near(vx[1], -1 / 3, { rtol = 1e-9 })
  near(vx[2], 2 / 3, { rtol = 1e-9 })
  near(vx[3], 2 / 3, { rtol = 1e-9 })
end)
