-- Run with: bin/diagc test examples/world/incline_test.lua
-- The box on a 20 degree incline: with mu = 0.5 > tan(20 deg) it sticks
-- (drifts less than 1e-6 m in 2 s); with the pair's friction lowered to
-- 0.2 it slides with acceleration g (sin - mu cos) within 1 %.
local dsl = diagc.dsl
local th, g = math.rad(20), 9.81

local function slid(spec, T)
  local m = diagc.jit(spec)
  local sim = m:simulator()
  local p0 = sim.context:get("world.pos")
  sim:advance_to(T)
  local p = sim.context:get("world.pos")
  local d = { math.cos(th), 0, -math.sin(th) }
  local s = 0
  for i = 1, 3 do s = s + (p[i] - p0[i]) * d[i] end
  return s
end

test("world_incline.sticks", function()
  near(slid(diagc.root .. "/examples/world/incline.lua", 2.0), 0, { atol = 1e-6 })
end)

test("world_incline.slides_when_mu_is_lowered", function()
  -- the same world with the slope/box pair's friction set to 0.2
  local src = io.open(diagc.root .. "/examples/world/incline.lua"):read("*a")
  local path = os.tmpname() .. ".lua"
  local f = io.open(path, "w")
  f:write((src:gsub("time_step = 1e%-3,", "time_step = 1e-3, pairs = { { \"slope\", \"box\", friction = 0.2 } },", 1)))
  f:close()
  local T = 1.0
  local s = slid(path, T)
  os.remove(path)
  near(2 * s / (T * T), g * (math.sin(th) - 0.2 * math.cos(th)), { rtol = 0.01 })
end)
