-- Run with: bin/diagc test examples/robots/a1/a1_test.lua
-- The A1 imported from its unmodified URDF and SRDF (the massless root
-- link merged into the trunk, which carries the free joint): under its PD
-- controller it stands on its four feet (trunk upright, above 0.2 m, at
-- rest after 2 s); pushed sideways at 2.5 m/s it falls over (the trunk
-- rolls past 60 degrees).  Its step Jacobians agree with central
-- differences, in the air and on its feet.
local m = diagc.jit(diagc.root .. "/examples/robots/a1/a1.lua")

-- the trunk's roll from its quaternion (w x y z at q[4..7])
local function tilt(q)
  local w, x, y, z = q[4], q[5], q[6], q[7]
  return math.acos(math.max(-1, math.min(1, 1 - 2 * (x * x + y * y)))) -- angle of the body z from the vertical
end

test("robots_a1.stands", function()
  local sim = m:simulator()
  sim:advance_to(2.0)
  local q, v = sim.context:get("robot.pos"), sim.context:get("robot.vel")
  -- the free joint's position is from where the urdf item placed it, 0.2687 m up
  assert(0.2687 + q[3] > 0.2, "the trunk sank to " .. 0.2687 + q[3])
  assert(tilt(q) < 0.1, "the trunk tilted by " .. tilt(q))
  for i = 1, 6 do assert(math.abs(v[i]) < 0.05, "the trunk still moves: v[" .. i .. "] = " .. v[i]) end
  local info = sim.context:get("robot.info")
  eq(info[6], 0) -- no step over the LCP work budget
end)

test("robots_a1.falls_over_when_pushed", function()
  local sim = m:simulator()
  local v = sim.context:get("robot.vel")
  v[2] = 2.5 -- sideways, in the world
  sim.context:set("robot.vel", v)
  sim:advance_to(2.0)
  local q = sim.context:get("robot.pos")
  assert(tilt(q) > math.rad(60), "it stayed up: tilt " .. math.deg(tilt(q)) .. " degrees")
  for _, x in ipairs(q) do assert(x == x, "NaN") end
end)

-- the largest error of the step's Jacobians against guarded central
-- differences of the diagram's update (the reference's NaN columns, at a
-- mode change, skipped), relative to max(1, |difference|).  The
-- differences run the PD controller too, effort = kp (target - q) - kd v
-- on the twelve joints (tangent dofs 7..18), so the world's q and v columns
-- take its effort columns (37..48) times -kp and -kd first
local function fd_error(c)
  local J = c:step_jacobians("robot")
  local F = c:step_jacobians("robot", { jacobian = "fd" })
  local kp, kd = c:get("pd.kp"), c:get("pd.kd")
  kp, kd = type(kp) == "table" and kp[1] or kp, type(kd) == "table" and kd[1] or kd
  eq(J.status, 0)
  for r = 1, #J.T do
    for i = 0, 11 do
      J.T[r][7 + i] = J.T[r][7 + i] - kp * J.T[r][37 + i]
      J.T[r][25 + i] = J.T[r][25 + i] - kd * J.T[r][37 + i]
    end
  end
  local e, n = 0, 0
  for i = 1, #F.T do
    for j = 1, #F.T[i] do
      local r = F.T[i][j]
      if r == r then e, n = math.max(e, math.abs(J.T[i][j] - r) / math.max(1, math.abs(r))), n + 1 end
    end
  end
  return e, n, J.contacts
end

-- tumbling in the air, 0.3 m up, the trunk spinning and sliding, the legs
-- swinging (no contact: the smooth step, whose trunk rotation columns are
-- world/tangent_looped.lua's closed form): 1e-8.  Standing on its four
-- feet, and sliding sideways on them just after a push: 2e-7, the
-- reference's own error with the stiff contact rows (its 1e-6 stencil
-- made ten times larger or smaller moves it between 3e-9 and 6e-7 here;
-- in the air 8e-11 to 4e-9)
test("robots_a1.step_jacobians_fd", function()
  local v0 = { 0.4, -0.3, 0.2, 1.5, -2.0, 0.8, 1, -2, 3, -1, 2, 1, 0.5, -0.5, 2, -3, 1, -1 }
  for _, case in ipairs({ { "in the air", 0.3, v0, 0.02, 0, 1e-8 }, { "standing", 0, nil, 0.1, 4, 2e-7 },
                          { "pushed", 0, { 0, 1.0 }, 0.02, 4, 2e-7 } }) do
    local label, lift, vel, t, contacts, tol = unpack(case)
    local sim = m:simulator()
    local q, v = sim.context:get("robot.pos"), sim.context:get("robot.vel")
    q[3] = q[3] + lift
    for i, x in ipairs(vel or {}) do v[i] = x end
    sim.context:set("robot.pos", q)
    sim.context:set("robot.vel", v)
    sim:advance_to(t)
    local e, n, nc = fd_error(sim.context)
    eq(nc, contacts)
    eq(n, 36 * 36) -- every q and v column smooth (the efforts: the controller's output, not differenced)
    assert(e <= tol, string.format("%s: |model - fd| = %.3g", label, e))
  end
end)
