-- A world's signals by name (issue #28, item 4; docs/world.md, "Signals
-- by name"): each moving body's pose and velocity and each joint's
-- coordinates and rates as output ports (in the model once a diagram
-- refers to them), the state's element names, and --state's names for
-- them.  Expected values are the world's own flat
-- state (exact where the output copies it) or the closed forms of a free
-- body's and a two-link chain's kinematics; the looped dynamics give the
-- unrolled ones' values.
local dsl = diagc.dsl

local support = dofile("tests/lua/world_support.lua")
local get = support.values

-- R (row-major, world <- body) of the unit quaternion w, x, y, z
local function rot(q)
  local w, x, y, z = q[1], q[2], q[3], q[4]
  return { 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) }
end

local function mat_vec(R, v)
  return { R[1] * v[1] + R[2] * v[2] + R[3] * v[3], R[4] * v[1] + R[5] * v[2] + R[6] * v[3],
    R[7] * v[1] + R[8] * v[2] + R[9] * v[3] }
end

local function close(a, b, tol, what)
  assert(#a == #b, string.format("%s: %d values, expected %d", what, #a, #b))
  for i = 1, #a do
    assert(math.abs(a[i] - b[i]) <= tol, string.format("%s[%d] = %.17g, expected %.17g", what, i - 1, a[i], b[i]))
  end
end

-- a free body tumbling in gravity, and two links on revolute joints about y
-- (the second at x = L on the first, named "elbow")
local L = 0.7
local function model(o)
  o = o or {}
  local q = { 0.2, -0.1, 1.5, 0.5, 0.5, 0.5, 0.5 }
  return diagc.jit(dsl.diagram "sig" {
    dsl.system { "w", dsl.world "sig" { time_step = 1e-3, pose = o.pose, dynamics = o.dynamics,
      dsl.body { "ball", mass = 2, inertia = { 0.01, 0.02, 0.03 },
        joint = { "free", q = q, v = { 0.3, -0.2, 0.1, 1.0, 2.0, -0.5 } } },
      dsl.body { "upper", mass = 1, com = { 0.3, 0, 0 }, inertia = { 0.01, 0.05, 0.05 },
        joint = { "revolute", axis = { 0, 1, 0 }, xyz = { 0, 0, 2 }, q = { 0.4 }, v = { 0.5 } } },
      dsl.body { "lower", mass = 1, com = { 0.3, 0, 0 }, inertia = { 0.01, 0.05, 0.05 },
        joint = { "revolute", name = "elbow", parent = "upper", axis = { 0, 1, 0 }, xyz = { L, 0, 0 },
          q = { -0.3 }, v = { 1.5 } } },
    } },
    -- a world's ports by name are in the model once referred to
    dsl.log { "w.ball.pose", period = 1e-3 },
    dsl.log { "w.elbow.q", period = 1e-3 },
    dsl.log { "w.elbow.v", period = 1e-3 },
    dsl.log { "w.ball.q" }, dsl.log { "w.ball.v" }, dsl.log { "w.ball.velocity" },
    dsl.log { "w.upper.pose" }, dsl.log { "w.upper.velocity" }, dsl.log { "w.upper.q" }, dsl.log { "w.upper.v" },
    dsl.log { "w.lower.pose" }, dsl.log { "w.lower.velocity" },
  })
end

local m = model()

test("world_signals.free_body_pose_is_its_state", function()
  local sim = m:simulator()
  sim:advance_to(0.05)
  local c = sim.context
  local pos, vel = get(c, "w.pos"), get(c, "w.vel")
  -- the pose copies the free joint's coordinates: exact
  local pose = get(c, "w.ball.pose")
  for i = 1, 7 do assert(pose[i] == pos[i], "pose[" .. (i - 1) .. "] differs from the state") end
  local jq, jv = get(c, "w.ball.q"), get(c, "w.ball.v")
  for i = 1, 7 do assert(jq[i] == pos[i]) end
  for i = 1, 6 do assert(jv[i] == vel[i]) end
  -- velocity: the origin's linear velocity (the joint's, world axes) and
  -- the angular velocity in world axes (R times the joint's body-axis one)
  local V = get(c, "w.ball.velocity")
  close({ V[1], V[2], V[3] }, { vel[1], vel[2], vel[3] }, 1e-12, "ball linear velocity")
  close({ V[4], V[5], V[6] }, mat_vec(rot({ pos[4], pos[5], pos[6], pos[7] }), { vel[4], vel[5], vel[6] }), 1e-12,
    "ball angular velocity")
end)

-- the chain's closed forms: link 1 rotates by q1 about y at (0, 0, 2), link
-- 2 by q1 + q2 about y at (0, 0, 2) + Ry(q1) (L, 0, 0)
local function chain(q1, q2, v1, v2)
  local o2 = { L * math.cos(q1), 0, 2 - L * math.sin(q1) }
  local a = q1 + q2
  return {
    upper = { 0, 0, 2, math.cos(q1 / 2), 0, math.sin(q1 / 2), 0 },
    lower = { o2[1], o2[2], o2[3], math.cos(a / 2), 0, math.sin(a / 2), 0 },
    -- d/dt of o2 = (-L sin q1, 0, -L cos q1) v1
    lower_v = { -L * math.sin(q1) * v1, 0, -L * math.cos(q1) * v1, 0, v1 + v2, 0 },
    upper_v = { 0, 0, 0, 0, v1, 0 },
    rpy = { o2[1], o2[2], o2[3], 0, a, 0 },
  }
end

test("world_signals.chain_pose_and_velocity", function()
  local c = m:context()
  local k = chain(0.4, -0.3, 0.5, 1.5)
  close(get(c, "w.upper.pose"), k.upper, 1e-15, "upper pose")
  close(get(c, "w.lower.pose"), k.lower, 1e-15, "lower pose")
  close(get(c, "w.upper.velocity"), k.upper_v, 1e-15, "upper velocity")
  close(get(c, "w.lower.velocity"), k.lower_v, 1e-15, "lower velocity")
  -- the joint's own coordinates, by its name
  assert(c:get("w.elbow.q") == -0.3 and c:get("w.elbow.v") == 1.5)
  assert(c:get("w.upper.q") == 0.4 and c:get("w.upper.v") == 0.5)
end)

test("world_signals.state_by_name", function()
  local c = m:context()
  -- one element, a joint's coordinates as a whole, a rate
  c:set_state("w.ball.z", 3.25)
  c:set_state("w.elbow", 0.125)
  c:set_state("w.upper.v", -2)
  c:set_state("w.ball", { 1, 2, 3, 0, 1, 0, 0 })
  c:set_state("w.ball.x", 5)
  local pos, vel = get(c, "w.pos"), get(c, "w.vel")
  close(pos, { 5, 2, 3, 0, 1, 0, 0, 0.4, 0.125 }, 0, "pos")
  assert(vel[7] == -2)
  assert(c:get("w.elbow") == 0.125 and c:get("w.ball.x") == 5)
  -- the outputs see the new state
  local k = chain(0.4, 0.125, -2, 1.5)
  close(get(c, "w.lower.pose"), k.lower, 1e-15, "lower pose after set_state")
  -- a quaternion about x by pi: the pose's sign rule keeps it
  close(get(c, "w.ball.pose"), { 5, 2, 3, 0, 1, 0, 0 }, 0, "ball pose after set_state")
end)

test("world_signals.rpy_option", function()
  local c = model({ pose = "rpy" }):context()
  local k = chain(0.4, -0.3, 0.5, 1.5)
  close(get(c, "w.lower.pose"), k.rpy, 1e-15, "lower pose (rpy)")
  -- the free body's rpy from its quaternion {0.5, 0.5, 0.5, 0.5}: R maps
  -- x -> y, y -> z, z -> x, which is roll 90 degrees then yaw 90 degrees
  close(get(c, "w.ball.pose"), { 0.2, -0.1, 1.5, math.pi / 2, 0, math.pi / 2 }, 1e-15, "ball pose (rpy)")
end)

test("world_signals.looped_equals_unrolled", function()
  local a = m:simulator()
  local b = model({ dynamics = "looped" }):simulator()
  a:advance_to(0.02)
  b:advance_to(0.02)
  for _, n in ipairs({ "w.ball.velocity", "w.lower.velocity", "w.upper.velocity", "w.lower.pose" }) do
    close(get(b.context, n), get(a.context, n), 1e-12, n .. " (looped)")
  end
end)

test("world_signals.names_in_the_descriptor", function()
  local d = m.desc
  local names = {}
  for i = 0, d.nxd - 1 do names[#names + 1] = require("ffi").string(d.xd_names[i]) end
  local want = { "w.ball.x", "w.ball.y", "w.ball.z", "w.ball.qw", "w.ball.qx", "w.ball.qy", "w.ball.qz", "w.upper.q",
    "w.elbow.q", "w.ball.vx", "w.ball.vy", "w.ball.vz", "w.ball.wx", "w.ball.wy", "w.ball.wz", "w.upper.v", "w.elbow.v" }
  for i, n in ipairs(want) do assert(names[i] == n, string.format("xd_names[%d] = %s, expected %s", i - 1, names[i], n)) end
  -- caching on and off give the same bits
  local c = m:context()
  local on = get(c, "w.lower.velocity")
  c:set_caching(false)
  local off = get(c, "w.lower.velocity")
  for i = 1, 6 do assert(on[i] == off[i]) end
end)

test("world_signals.only_the_ports_referred_to", function()
  local mm = diagc.jit(dsl.diagram "few" {
    dsl.system { "w", dsl.world "few" {
      dsl.body { "a", mass = 1, inertia = { 1, 1, 1 }, joint = { "revolute", q = { 0.5 } } },
      dsl.body { "b", mass = 1, inertia = { 1, 1, 1 }, joint = { "revolute", parent = "a", xyz = { 1, 0, 0 } } } } },
    dsl.system { "gain", dsl.leaf "Double" {
      dsl.input_port { "u", size = 7 },
      dsl.output_port { "y", size = 1, prerequisites = { "u" }, calc = [[ y[0] = 2.0 * u[6]; ]] } } },
    dsl.connect { "w.b.pose", "gain.u" },
  })
  local c = mm:context()
  -- about z by 0.5: qz = sin(0.25)
  near(c:get("gain.y"), 2 * math.sin(0.25), { rtol = 1e-15 })
  assert(mm.outputs["w.b.pose"] and not mm.outputs["w.a.pose"] and not mm.outputs["w.b.velocity"],
    "only w.b.pose is in the model")
end)

-- world.contacts (docs/world.md, "Signals by name"): a ball resting on the
-- ground touches it at one point below its centre, the normal from the
-- ball (the pair's second shape) to the plane is -z, and the step's normal
-- impulse holds its weight over one step, m g dt
test("world_signals.contacts_of_a_resting_ball", function()
  local m, g, dt, r = 2.0, 9.81, 1e-3, 0.1
  local mm = diagc.jit(dsl.diagram "rest" {
    dsl.system { "w", dsl.world "rest" { time_step = dt,
      dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
      dsl.body { "ball", mass = m, inertia = { 0.008, 0.008, 0.008 },
        joint = { "free", q = { 0.3, -0.2, r, 1, 0, 0, 0 } }, shapes = { { "sphere", radius = r } } } } },
    dsl.log { "w.contacts" },
  })
  local c = mm:context()
  local v = get(c, "w.contacts")
  eq(#v, 1 + 8) -- one candidate pair of a sphere and a plane: one slot
  eq(v[1], 1)
  close({ v[2], v[3], v[4] }, { 0.3, -0.2, 0 }, 1e-12, "point")
  close({ v[5], v[6], v[7] }, { 0, 0, -1 }, 1e-15, "normal")
  close({ v[8] }, { 0 }, 1e-12, "depth")
  near(v[9], m * g * dt, { rtol = 1e-9 })
end)
