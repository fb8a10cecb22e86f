-- Run with: bin/diagc test examples/world/ball_test.lua
-- A ball dropped with restitution e = 0.8: the apex heights above the
-- resting height scale by e^2 (within 1 %), the step never produces NaN,
-- and caching on or off gives the same trajectory bit for bit.
local m = diagc.jit(diagc.root .. "/examples/world/ball.lua")
local r, e = 0.1, 0.8

-- the maxima of z(t) - r after each bounce (the first one is the drop height)
local function apexes(zs)
  local out = {}
  for i = 2, #zs - 1 do
    if zs[i] > zs[i - 1] and zs[i] >= zs[i + 1] and zs[i] - r > 1e-3 then out[#out + 1] = zs[i] - r end
  end
  return out
end

test("world_ball.apex_ratio_is_e_squared", function()
  local sim = m:simulator()
  sim.context:set_caching(true)
  sim:advance_to(2.5)
  local log = sim:log("world.position")
  local zs = { 1.0 + r }
  for i = 1, #log.t do zs[#zs + 1] = log.v[i][3] end
  local h = apexes(zs)
  assert(#h >= 3, "expected at least three bounces, found " .. #h)
  near(h[1], 1.0 * e * e, { rtol = 0.01 })
  for i = 2, #h do near(h[i] / h[i - 1], e * e, { rtol = 0.01 }) end
  for _, z in ipairs(zs) do assert(z == z, "NaN in the trajectory") end
end)

test("world_ball.caching_on_off_bit_identical", function()
  local a, b = m:simulator(), m:simulator()
  b.context:set_caching(false)
  a:advance_to(0.6)
  b:advance_to(0.6)
  eq(a.context:get("world.pos"), b.context:get("world.pos"))
  eq(a.context:get("world.vel"), b.context:get("world.vel"))
end)
