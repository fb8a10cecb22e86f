-- Joint limits (issue #27, item 2; docs/world.md, "Joint limits"): a rod
-- falling onto its lower limit stops there (no penetration beyond the
-- allowance, at rest within 1e-6 rad of the limit); a limit with
-- restitution e returns the joint at e times its approach speed; a
-- prismatic slider rests on its lower limit; effort and velocity limits
-- clamp the effort input (closed-form velocities, step_info's counts);
-- the limit rows' step Jacobians against guarded central differences
-- (1e-8), alone and with contacts; lower > upper is refused.
local dsl = diagc.dsl
local dt = 1e-3

-- a state or output of the simulator's context as a list
local support = dofile("tests/lua/world_support.lua")
local function get(sim, name) return support.values(sim.context, name) end

-- a 1 kg rod along x from a revolute joint about `axis` (its inertia about
-- the joint: 0.01 + 1 * 0.5^2 = 0.26 kg m^2)
local I_ROD = 0.01 + 0.25
local function rod(o)
  local items = { time_step = dt, gravity = o.gravity or { 0, 0, -9.81 }, gradients = o.gradients or false,
    dsl.body { "rod", mass = 1, com = { 0.5, 0, 0 }, inertia = { 0.01, 0.01, 0.01 },
      joint = { "revolute", axis = o.axis or { 0, -1, 0 }, limit = o.limit, q = { o.q or 0 }, v = { o.v or 0 },
        actuated = o.effort ~= nil } } }
  for _, b in ipairs(o.more or {}) do items[#items + 1] = b end
  local d = { dsl.system { "w", dsl.world "rod" (items) } }
  if o.effort then d[#d + 1] = dsl.fix_input { "w.effort", value = { o.effort } } end
  return diagc.jit(dsl.diagram "limits" (d))
end

-- the rod turns about -y, so gravity drives q down onto the lower limit
test("world_limits.falls_onto_lower_limit", function()
  local sim = rod({ limit = { -0.5, 1.0 } }):simulator()
  local lowest = 0
  for k = 1, 2000 do
    sim:advance_to(k * dt)
    lowest = math.min(lowest, get(sim, "w.pos")[1])
  end
  assert(lowest >= -0.5 - 1e-4, "penetration beyond the allowance: " .. lowest)
  local q, v = get(sim, "w.pos")[1], get(sim, "w.vel")[1]
  assert(math.abs(q + 0.5) <= 1e-6, "rests at its limit: " .. q)
  assert(math.abs(v) <= 1e-9, "at rest: " .. v)
  -- held by the limit's impulse: the gravity torque m g l cos(q) over a step
  local info = get(sim, "w.info")
  eq(info[1], 1)
  near(get(sim, "w.imp")[2], 9.81 * 0.5 * math.cos(0.5) * dt, { rtol = 1e-9 })
end)

-- no gravity, the joint approaching its lower limit at 2 rad/s: it leaves
-- at e * 2 rad/s
for _, e in ipairs({ 0.5, 1.0 }) do
  test("world_limits.restitution_" .. e, function()
    local sim = rod({ gravity = { 0, 0, 0 }, limit = { -0.3, 1.0, restitution = e }, v = -2 }):simulator()
    sim:advance_to(0.3)
    near(get(sim, "w.vel")[1], 2 * e, { rtol = 1e-12 })
    assert(get(sim, "w.pos")[1] > -0.3 - 1e-12, "never beyond the limit")
  end)
end

-- a 2 kg slider along z falling 0.2 m onto its lower limit, and one pushed
-- up into its upper limit by a constant force
test("world_limits.prismatic", function()
  local function slider(effort, q)
    return diagc.jit(dsl.diagram "slider" {
      dsl.system { "w", dsl.world "slider" { time_step = dt,
        dsl.body { "s", mass = 2, inertia = { 0.01, 0.01, 0.01 },
          joint = { "prismatic", axis = { 0, 0, 1 }, limit = { -0.2, 0.1 }, actuated = true, q = { q } } } } },
      dsl.fix_input { "w.effort", value = { effort } } })
  end
  local sim = slider(0, 0):simulator()
  local lowest = 0
  for k = 1, 1000 do
    sim:advance_to(k * dt)
    lowest = math.min(lowest, get(sim, "w.pos")[1])
  end
  assert(lowest >= -0.2 - 1e-4, "penetration beyond the allowance: " .. lowest)
  near(get(sim, "w.pos")[1], -0.2, { atol = 1e-6 })
  near(get(sim, "w.vel")[1], 0, { atol = 1e-9 })
  near(get(sim, "w.imp")[2], 2 * 9.81 * dt, { rtol = 1e-9 })
  sim = slider(50, 0):simulator()
  sim:advance_to(1.0)
  near(get(sim, "w.pos")[1], 0.1, { atol = 1e-6 })
  near(get(sim, "w.imp")[2], (50 - 2 * 9.81) * dt, { rtol = 1e-9 })
end)

-- effort limit 1 N m on an input of 5 N m, no gravity: v(t) = t / I_ROD;
-- every step counted
test("world_limits.effort_clamped", function()
  local sim = rod({ gravity = { 0, 0, 0 }, limit = { effort = 1 }, effort = 5 }):simulator()
  sim:advance_to(0.1)
  near(get(sim, "w.vel")[1], 0.1 / I_ROD, { rtol = 1e-9 })
  local info = get(sim, "w.info")
  eq(#info, 11)
  eq(info[9], 1)
  eq(info[10], 100)
  eq(info[11], 0) -- no step left its LCP inexact
end)

-- velocity limit 0.4999 rad/s: the effort (1 N m, a = 1 / I_ROD per s) stops
-- driving once v >= 0.4999; the joint coasts at the first step's velocity at
-- or above it
test("world_limits.velocity_cuts_effort", function()
  local sim = rod({ gravity = { 0, 0, 0 }, limit = { velocity = 0.4999 }, effort = 1 }):simulator()
  sim:advance_to(0.5)
  local a = dt / I_ROD
  near(get(sim, "w.vel")[1], math.ceil(0.4999 / a) * a, { rtol = 1e-9 })
  local info = get(sim, "w.info")
  eq(info[10], 500 - math.ceil(0.4999 / a))
end)

-- the step Jacobians of limit rows against guarded central differences
local agrees = support.grad_agrees

for _, update in ipairs({ "semi_implicit", "parallel" }) do
  test("world_limits.grad_resting_" .. update, function()
    local J = agrees(rod({ gradients = true, limit = { -0.5, 1.0 }, q = -0.5 + 1e-5, v = -0.01, effort = 0.3 })
      :context())
    assert(J.contacts == 1 and J.clamped == 1, "the limit holds: " .. J.contacts .. " " .. J.clamped)
  end)
  test("world_limits.grad_bounce_" .. update, function()
    local J = agrees(rod({ gradients = true, gravity = { 0, 0, 0 }, limit = { -0.3, 1.0, restitution = 0.5 },
      q = -0.3 + 1e-4, v = -2 }):context())
    assert(J.contacts == 1 and J.bounces == 1, "the limit bounces: " .. J.contacts .. " " .. J.bounces)
    near(J.vel_vel[1][1], -0.5, { rtol = 1e-9 })
  end)
  -- a limit and a contact in one tree: a two-link arm whose elbow rests
  -- on its limit and whose tip sphere rests on the ground
  test("world_limits.grad_with_contact_" .. update, function()
    local c = diagc.jit(dsl.diagram "arm2" { dsl.system { "w", dsl.world "arm2" { time_step = dt, friction = 0.5,
      position_update = update,
      dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
      dsl.body { "l1", mass = 1, com = { 0.25, 0, 0 }, inertia = { 0.01, 0.01, 0.01 },
        joint = { "revolute", axis = { 0, 1, 0 }, xyz = { 0, 0, 0.5 }, q = { 0.6 }, v = { 0.02 } } },
      dsl.body { "l2", mass = 1, com = { 0.25, 0, 0 }, inertia = { 0.01, 0.01, 0.01 },
        joint = { "revolute", parent = "l1", axis = { 0, 1, 0 }, xyz = { 0.5, 0, 0 }, limit = { -0.5, 0.5 },
          q = { 0.5 - 2e-6 }, v = { 0.3 } },
        shapes = { { "sphere", radius = 0.05, xyz = { 0.5, 0, 0 } } } } } } }):context()
    -- place the tip 5e-5 m into the ground: its height 0.5 - 0.5 sin(q1) - 0.5 sin(q1 + q2) = 0.05 - 5e-5
    local q2 = 0.5 - 2e-6
    local f = function(q1) return 0.5 - 0.5 * math.sin(q1) - 0.5 * math.sin(q1 + q2) - (0.05 - 5e-5) end
    local lo, hi = 0.0, 1.0
    for _ = 1, 200 do
      local m = (lo + hi) / 2
      if f(m) > 0 then lo = m else hi = m end
    end
    c:set("w.pos", { (lo + hi) / 2, q2 })
    local J = agrees(c)
    assert(J.contacts == 2 and J.clamped >= 2, "the limit and the ground hold: " .. J.contacts .. " " .. J.clamped)
  end)
end

test("world_limits.lower_above_upper", function()
  local ok, err = pcall(function() return rod({ limit = { 0.5, -0.5 } }) end)
  assert(not ok and tostring(err):find("lower 0.5 is above upper %-0.5"), tostring(err))
end)

-- the effort column of a clamped effort is 0 (the step does not see it);
-- of an unclamped one dt / I_ROD (no gravity, no contact)
test("world_limits.grad_effort_clamped", function()
  for _, case in ipairs({ { 5, 0 }, { 0.5, dt / I_ROD } }) do
    local c = rod({ gradients = true, gravity = { 0, 0, 0 }, limit = { effort = 1 }, effort = case[1] }):context()
    local J = c:step_jacobians("w")
    near(J.force_vel[1][1], case[2], { rtol = 1e-12, atol = 1e-15 })
    local F = c:step_jacobians("w", { jacobian = "fd" })
    near(F.force_vel[1][1], case[2], { rtol = 1e-6, atol = 1e-12 })
  end
end)

-- examples/urdf/arm3.urdf: its <limit>s as read (shoulder +-3.14, 50 N m,
-- 5 rad/s; elbow +-2.5, 30 N m, 5 rad/s; the continuous wrist none), and
-- its elbow driven by the PD towards -3 rad rests on its limit at -2.5
-- rad, never beyond it (the PD's 20 * 0.5 = 10 N m is within its effort
-- limit)
test("world_limits.urdf_arm3", function()
  local load, check = require("diagc.spec.load"), require("diagc.world.check")
  local C = check.check(load.load(diagc.root .. "/examples/urdf/arm3.lua").root.items[1].args[2])
  local lim = {}
  for _, b in ipairs(C.bodies) do lim[b.name] = b.joint.limit or false end
  eq({ lim.upper.lower, lim.upper.upper, lim.upper.effort, lim.upper.velocity }, { -3.14, 3.14, 50, 5 })
  eq({ lim.fore.lower, lim.fore.upper, lim.fore.effort, lim.fore.velocity }, { -2.5, 2.5, 30, 5 })
  eq(lim.hand, false)
  local sim = diagc.jit(diagc.root .. "/examples/urdf/arm3.lua"):simulator()
  sim.context:set("pd.target", { 0.0, -3.0, 0.0 })
  local lowest = 0
  for k = 1, 300 do
    sim:advance_to(k * 0.01)
    lowest = math.min(lowest, get(sim, "arm.pos")[2])
  end
  assert(lowest >= -2.5 - 1e-4, "beyond the limit: " .. lowest)
  near(get(sim, "arm.pos")[2], -2.5, { atol = 1e-6 })
  near(get(sim, "arm.vel")[2], 0, { atol = 1e-9 })
end)

-- two rods on two trees: each limit couples only its own tree (its own
-- island), so one bounces at e = 0.5 while the other is stopped
-- inelastically, each as it would alone
test("world_limits.two_trees", function()
  local function r(name, lim, v)
    return dsl.body { name, mass = 1, com = { 0.5, 0, 0 }, inertia = { 0.01, 0.01, 0.01 },
      joint = { "revolute", axis = { 0, -1, 0 }, limit = lim, v = { v } } }
  end
  local sim = diagc.jit(dsl.diagram "two" { dsl.system { "w", dsl.world "two" { time_step = dt,
    gravity = { 0, 0, 0 }, gradients = false,
    r("a", { -0.3, 1.0, restitution = 0.5 }, -2), r("b", { -0.2, 1.0 }, -1) } } }):simulator()
  sim:advance_to(0.3)
  near(get(sim, "w.vel"), { 1.0, 0.0 }, { atol = 1e-12 })
  near(get(sim, "w.pos")[2], -0.2, { atol = 1e-12 })
end)

-- the model's update Jacobian (state coordinates: pos, vel, imp, the
-- running counts of info) against central differences of the update, for
-- a world with a contact and limits (an effort clamped) and one whose only
-- rows are limits
test("world_limits.update_jacobian", function()
  local arm = dsl.world "arm" { time_step = dt, friction = 0.5,
    dsl.body { "ground", joint = { "fixed" }, shapes = { { "plane" } } },
    dsl.body { "l1", mass = 1, com = { 0.25, 0, 0 }, inertia = { 0.01, 0.01, 0.01 },
      joint = { "revolute", axis = { 0, 1, 0 }, xyz = { 0, 0, 0.5 }, actuated = true,
        limit = { -1, 0.8, effort = 3, velocity = 2, restitution = 0.3 } } },
    dsl.body { "l2", mass = 1, com = { 0.25, 0, 0 }, inertia = { 0.01, 0.01, 0.01 },
      joint = { "prismatic", parent = "l1", axis = { 1, 0, 0 }, xyz = { 0.5, 0, 0 }, limit = { -0.1, 0.05 },
        actuated = true },
      shapes = { { "sphere", radius = 0.05, xyz = { 0.5, 0, 0 } } } } }
  local cases = {
    { diagc.jit(dsl.diagram "ua" { dsl.system { "w", arm }, dsl.fix_input { "w.effort", value = { 5, 1 } } }),
      { 0.8 - 1e-5, 0.01 }, { 0.5, 0.2 } },
    { rod({ gradients = true, limit = { -0.5, 1.0 }, effort = 0.3 }), { -0.5 + 1e-5 }, { -0.01 } },
  }
  for _, case in ipairs(cases) do
    local c = case[1]:context()
    c:set("w.pos", case[2])
    c:set("w.vel", case[3])
    local a = c:update_jacobian({ jacobian = "model" })
    local b = c:update_jacobian({ jacobian = "fd" })
    near(a.J, b.J, { rtol = 1e-7, atol = 1e-9 })
  end
end)

-- a limited joint after a free joint, whose q has 7 entries and v 6 (the
-- limit reads the joint's own q, not the entry at its v index): in zero
-- gravity the rod, turning at -2 rad/s relative to a free base, stops at
-- its lower limit (inelastic, e = 0) and stays there, the two bodies then
-- turning together
test("world_limits.after_a_free_joint", function()
  local items = { time_step = dt, gravity = { 0, 0, 0 },
    dsl.body { "base", mass = 2, inertia = { 0.02, 0.02, 0.02 }, joint = { "free" } },
    dsl.body { "rod", mass = 1, com = { 0.5, 0, 0 }, inertia = { 0.01, 0.01, 0.01 },
      joint = { "revolute", parent = "base", axis = { 0, -1, 0 }, limit = { -0.3, 0.3 }, v = { -2 } } } }
  local sim = diagc.jit(dsl.diagram "free_limit" { dsl.system { "w", dsl.world "free_limit" (items) } }):simulator()
  local lowest = 0
  for k = 1, 500 do
    sim:advance_to(k * dt)
    lowest = math.min(lowest, get(sim, "w.pos")[8])
  end
  assert(lowest >= -0.3 - 1e-4, "through the limit: " .. lowest)
  near(get(sim, "w.pos")[8], -0.3, { atol = 1e-6 })
  near(get(sim, "w.vel")[7], 0, { atol = 1e-9 })
end)
