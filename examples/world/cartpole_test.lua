-- Run with: bin/diagc test examples/world/cartpole_test.lua
-- The generated cartpole dynamics against the closed forms of its mass
-- matrix and bias terms (through one step without contact:
-- v' = v + dt M^-1 (tau - c)), and the PD controller bringing the cart to
-- its target while the damped pole settles below it.
local m = diagc.jit(diagc.root .. "/examples/world/cartpole.lua")
local mc, mp, l, g, dt, b = 1.0, 0.1, 0.5, 9.81, 1e-3, 0.01
local point = 1e-6

-- M and c of a cart (x) with a pendulum (theta about y, mass at -l z)
local function closed_form(x, th, xd, thd)
  -- pole tip at (x - l sin th, -l cos th) in the xz plane, for a rotation
  -- about +y by th of the vector (0, 0, -l): (-l sin th, 0, -l cos th)
  local M11 = mc + mp
  local M12 = -mp * l * math.cos(th)
  local M22 = mp * l * l + point
  local c1 = mp * l * math.sin(th) * thd * thd
  local c2 = mp * g * l * math.sin(th) + b * thd
  return M11, M12, M22, c1, c2
end

test("world_cartpole.one_step_matches_closed_form", function()
  for _, s in ipairs({ { 0, 0.3, 0, 0 }, { 0.2, -1.1, 0.5, 2.0 }, { -1, 2.5, -0.3, -1.5 } }) do
    local c = m:context()
    c:set("plant.pos", { s[1], s[2] })
    c:set("plant.vel", { s[3], s[4] })
    c:set("pd.target", { s[1] }) -- zero force when the cart is at rest at target
    local f = 20.0 * 0 - 9.0 * s[3]
    local M11, M12, M22, c1, c2 = closed_form(s[1], s[2], s[3], s[4])
    local det = M11 * M22 - M12 * M12
    local r1, r2 = f - c1, -c2
    local a1 = (M22 * r1 - M12 * r2) / det
    local a2 = (M11 * r2 - M12 * r1) / det
    local sim = m:simulator()
    sim.context:set("plant.pos", { s[1], s[2] })
    sim.context:set("plant.vel", { s[3], s[4] })
    sim.context:set("pd.target", { s[1] })
    sim:advance_to(0.5 * dt) -- the update at t = 0 only
    local v = sim.context:get("plant.vel")
    near(v[1], s[3] + dt * a1, { rtol = 1e-12, atol = 1e-14 })
    near(v[2], s[4] + dt * a2, { rtol = 1e-12, atol = 1e-14 })
  end
end)

test("world_cartpole.pd_reaches_target", function()
  local sim = m:simulator()
  sim:advance_to(20.0)
  local q = sim.context:get("plant.pos")
  near(q[1], 1.0, { atol = 1e-2 })
end)
