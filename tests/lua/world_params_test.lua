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
