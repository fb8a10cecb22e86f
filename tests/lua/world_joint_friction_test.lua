-- Coulomb joint friction (issue #27, item 2; docs/world.md, "Joint
-- friction and mimic joints"): a bilateral row of the step's LCP, |x| <=
-- F dt, target zero joint velocity.  A rod held by a gravity torque below
-- F stays stuck (velocity and angle exactly 0 within rounding, no creep
-- over 5 s), its impulse the gravity torque times dt; above F it turns
-- at (tau - F) / I; a spinning joint stops after I v0 / F and stays
-- stopped; a prismatic joint the same with forces; URDF <dynamics
-- friction> becomes the same row; the rows' step Jacobians against
-- guarded central differences (1e-8), stuck, sliding, with a contact; a
-- negative friction or one on a ball joint is refused.
local dsl = diagc.dsl
local dt = 1e-3

-- a state or output of the simulator's context as a list
local support = dofile("tests/lua/world_support.lua")
local function get(sim, name) return support.values(sim.context, name) end

-- the 1 kg rod of world_limits_test.lua: along x from a revolute joint
-- about -y (gravity drives q down); its inertia about the joint 0.26 kg m^2
-- and gravity torque at q: m g l cos(q) = 9.81 * 0.5 cos(q)
local I_ROD = 0.01 + 0.25
local TAU_G = 9.81 * 0.5
local function rod(o)
  local items = { time_step = dt, gravity = o.gravity or { 0, 0, -9.81 }, gradients = o.gradients or false,
    position_update = o.update,
    dsl.body { "rod", mass = 1, com = { 0.5, 0, 0 }, inertia = { 0.01, 0.01, 0.01 },
      joint = { "revolute", axis = { 0, -1, 0 }, friction = o.friction, q = { o.q or 0 }, v = { o.v or 0 },
        actuated = o.effort ~= nil, limit = o.limit } } }
  for _, b in ipairs(o.more or {}) do items[#items + 1] = b end
  local d = { dsl.system { "w", dsl.world "rod" (items) } }
  if o.effort then d[#d + 1] = dsl.fix_input { "w.effort", value = { o.effort } } end
  return diagc.jit(dsl.diagram "jf" (d))
end

test("world_joint_friction.stuck_below_F", function()
  local sim = rod({ friction = TAU_G + 0.1 }):simulator()
  for k = 1, 5 do
    sim:advance_to(k)
    local q, v = get(sim, "w.pos")[1], get(sim, "w.vel")[1]
    assert(math.abs(q) <= 1e-13 and math.abs(v) <= 1e-13, string.format("creeps: q %.3g v %.3g at %d s", q, v, k))
  end
  -- the friction impulse holds the gravity torque over a step (below its bound F dt)
  near(math.abs(get(sim, "w.imp")[2]), TAU_G * dt, { rtol = 1e-9 })
  eq(get(sim, "w.info")[1], 1) -- one row
end)

-- above F: the rod turns at (tau - F) / I from rest (tau = m g l at q = 0,
-- so over 20 steps, q ~ -1e-4, cos q = 1 to 5e-9)
test("world_joint_friction.slides_above_F", function()
  local F = TAU_G - 1.3
  local sim = rod({ friction = F }):simulator()
  sim:advance_to(20 * dt)
  near(get(sim, "w.vel")[1], -(TAU_G - F) / I_ROD * 20 * dt, { rtol = 1e-6 })
  -- no gravity, a constant effort 5 N m against F = 4: v(t) = (5 - 4) t / I exactly
  sim = rod({ gravity = { 0, 0, 0 }, friction = 4, effort = 5 }):simulator()
  sim:advance_to(0.5)
  near(get(sim, "w.vel")[1], 0.5 / I_ROD, { rtol = 1e-12 })
  -- and one of 3.9 N m stays stuck
  sim = rod({ gravity = { 0, 0, 0 }, friction = 4, effort = 3.9 }):simulator()
  sim:advance_to(0.5)
  near(get(sim, "w.vel")[1], 0, { atol = 1e-14 })
end)

-- spinning at 1 rad/s with F = 0.5 N m, no gravity: v = 1 - F t / I until
-- t* = I / F = 0.52 s, then 0 for good (the last step's impulse is below F dt)
test("world_joint_friction.spins_down_and_stops", function()
  local sim = rod({ gravity = { 0, 0, 0 }, friction = 0.5, v = 1 }):simulator()
  sim:advance_to(0.3)
  near(get(sim, "w.vel")[1], 1 - 0.5 * 0.3 / I_ROD, { rtol = 1e-12 })
  sim:advance_to(0.6)
  near(get(sim, "w.vel")[1], 0, { atol = 1e-14 })
  local q = get(sim, "w.pos")[1]
  sim:advance_to(1.0)
  near(get(sim, "w.pos")[1], q, { atol = 1e-14 })
  -- the angle travelled: the sum of the steps' velocities times dt (semi-implicit)
  local a, n, s = 0.5 * dt / I_ROD, math.floor(I_ROD / (0.5 * dt)), 0
  for k = 1, n do s = s + (1 - k * a) * dt end
  near(q, s, { rtol = 1e-9 })
end)

-- a 2 kg slider along z (gravity 19.62 N along its axis): F = 25 N holds
-- it, F = 10 N lets it fall at (19.62 - 10) / 2 m/s^2
test("world_joint_friction.prismatic", function()
  local function slider(F)
    return diagc.jit(dsl.diagram "slider" { dsl.system { "w", dsl.world "slider" { time_step = dt,
      dsl.body { "s", mass = 2, inertia = { 0.01, 0.01, 0.01 },
        joint = { "prismatic", axis = { 0, 0, 1 }, friction = F } } } } }):simulator()
  end
  local sim = slider(25)
  sim:advance_to(1.0)
  near(get(sim, "w.pos")[1], 0, { atol = 1e-14 })
  sim = slider(10)
  sim:advance_to(0.5)
  near(get(sim, "w.vel")[1], -(2 * 9.81 - 10) / 2 * 0.5, { rtol = 1e-12 })
end)

-- URDF <dynamics friction="F">: the same row (the rod's link as a URDF)
test("world_joint_friction.urdf", function()
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p " .. dir)
  local function write(name, text)
    local f = assert(io.open(dir .. "/" .. name, "w"))
    f:write(text)
    f:close()
  end
  write("rod.urdf", [[
<robot name="rod">
  <link name="world"/>
  <link name="rod">
    <inertial><origin xyz="0.5 0 0"/><mass value="1"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="hinge" type="continuous">
    <parent link="world"/><child link="rod"/><axis xyz="0 -1 0"/>
    <dynamics damping="0" friction="4.8"/>
  </joint>
</robot>
]])
  write("rod.lua", [[
local W = world "rod" { urdf { "rod.urdf" } }
return diagram "rod" { system { "w", W } }
]])
  local sim = diagc.jit(dir .. "/rod.lua"):simulator()
  sim:advance_to(20 * dt)
  near(get(sim, "w.vel")[1], -(TAU_G - 4.8) / I_ROD * 20 * dt, { rtol = 1e-6 })
  os.execute("rm -rf " .. dir)
end)

-- the step Jacobians of friction rows against guarded central differences
local agrees = support.grad_agrees

for _, update in ipairs({ "semi_implicit", "parallel" }) do
  -- stuck: the row clamps (w = 0), so v' does not depend on v
  test("world_joint_friction.grad_stuck_" .. update, function()
    local J = agrees(rod({ gradients = true, friction = 6, q = 0.2, v = 1e-4, effort = 0.3, update = update }):context())
    assert(J.contacts == 1 and J.clamped == 1, "the friction holds: " .. J.contacts .. " " .. J.clamped)
    near(J.vel_vel[1][1], 0, { atol = 1e-15 })
  end)
  -- sliding: the row stays at its bound (x = -F dt), dv'/dv = 1
  test("world_joint_friction.grad_sliding_" .. update, function()
    local J = agrees(rod({ gradients = true, friction = 2, q = 0.2, v = -0.5, effort = 0.3, update = update }):context())
    assert(J.contacts == 1 and J.clamped == 0, "the friction slides: " .. J.contacts .. " " .. J.clamped)
    near(J.vel_vel[1][1], 1, { rtol = 1e-12 })
  end)
end

-- with a contact in the same tree: an arm whose elbow has friction and
-- whose tip sphere rests on the ground
test("world_joint_friction.grad_with_contact", function()
  local c = diagc.jit(dsl.diagram "arm2" { dsl.system { "w", dsl.world "arm2" { time_step = dt, friction = 0.5,
    dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
    dsl.body { "l1", mass = 1, com = { 0.25, 0, 0 }, inertia = { 0.01, 0.01, 0.01 },
      joint = { "revolute", axis = { 0, 1, 0 }, xyz = { 0, 0, 0.5 }, q = { 0.6 }, v = { 0.02 }, friction = 0.05 } },
    dsl.body { "l2", mass = 1, com = { 0.25, 0, 0 }, inertia = { 0.01, 0.01, 0.01 },
      joint = { "revolute", parent = "l1", axis = { 0, 1, 0 }, xyz = { 0.5, 0, 0 }, friction = 3, q = { 0.4 },
        v = { 0.01 } },
      shapes = { { "sphere", radius = 0.05, xyz = { 0.5, 0, 0 } } } } } } }):context()
  local q2 = 0.4
  local f = function(q1) return 0.5 - 0.5 * math.sin(q1) - 0.5 * math.sin(q1 + q2) - (0.05 - 5e-5) end
  local lo, hi = 0.0, 1.0
  for _ = 1, 200 do
    local m = (lo + hi) / 2
    if f(m) > 0 then lo = m else hi = m end
  end
  c:set("w.pos", { (lo + hi) / 2, q2 })
  local J = agrees(c)
  assert(J.contacts == 3, "the ground and two friction rows: " .. J.contacts)
end)

test("world_joint_friction.refused", function()
  local ok, err = pcall(function() return rod({ friction = -1 }) end)
  assert(not ok and tostring(err):find("friction"), tostring(err))
  ok, err = pcall(function()
    return diagc.jit(dsl.diagram "b" { dsl.system { "w", dsl.world "b" {
      dsl.body { "s", mass = 1, inertia = { 1, 1, 1 }, joint = { "ball", friction = 1 } } } } })
  end)
  assert(not ok and tostring(err):find("a ball joint has no friction"), tostring(err))
end)

-- a tree whose step holds more than 48 rows, solved by the sparse method
-- (the default): a free base on three sphere feet (9 rows) carrying 40
-- legs with friction, some stuck and some sliding (40 rows); the steps
-- agree with the dense method's (every step solved), and the stuck legs
-- hold their angle exactly.  To 1e-8, not round-off: when a sliding foot
-- stops within a step its friction sits on the boundary of sliding and
-- sticking, and the two methods may take it on either side (both LCP
-- solutions to 1e-13; a held contact entering the sparse pivoting
-- sliding); the base's spin then differs by 4e-10 rad/s a step from
-- step 96, 1.6e-9 at step 100
test("world_joint_friction.large_island", function()
  local function centipede(method)
    local feet = {}
    for k, p in ipairs({ { -1, -0.3 }, { -1, 0.3 }, { 1, 0 } }) do
      feet[k] = { "sphere", radius = 0.05, xyz = { p[1], p[2], -0.05 } }
    end
    local items = { time_step = dt, gradients = false, contact_method = method,
      dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
      dsl.body { "base", mass = 5, inertia = { 0.5, 0.5, 0.5 }, shapes = feet,
        joint = { "free", q = { 0, 0, 0.1, 1, 0, 0, 0 }, v = { 0.2, 0, 0, 0, 0, 0.1 } } } }
    for i = 1, 40 do
      items[#items + 1] = dsl.body { "leg" .. i, mass = 0.05, com = { 0, i % 2 == 0 and 0.2 or -0.2, 0 },
        inertia = { 1e-4, 1e-4, 1e-4 },
        joint = { "revolute", parent = "base", xyz = { -1 + i * 0.05, 0, 0.1 }, axis = { 1, 0, 0 },
          friction = 0.2 + 0.05 * (i % 3), q = { 0.3 }, v = { i % 4 == 0 and 0 or (i % 5) - 2 } } }
    end
    return diagc.jit(dsl.diagram "centipede" { dsl.system { "w", dsl.world "centipede" (items) } }):simulator()
  end
  local a, b = centipede(nil), centipede("dense")
  for k = 1, 100 do
    a:advance_to(k * dt)
    b:advance_to(k * dt)
    local info = get(a, "w.info")
    eq(info[1], 43) -- 3 feet, 40 friction rows: 49 LCP rows
    eq(info[#info], 0) -- no step left inexact
    near(get(a, "w.vel"), get(b, "w.vel"), { atol = 1e-8 })
  end
  -- leg 4 started at rest: held by its friction (0.25 N m against 0.05 * 9.81 * 0.2 cos 0.3)
  near(get(a, "w.pos")[7 + 4], 0.3, { atol = 1e-12 })
end)
