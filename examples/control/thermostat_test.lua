-- examples/control/thermostat.lua: the limit cycle's switching times
-- against the exponentials.  Heating, T approaches Th = Ta + q tau = 25;
-- off, it approaches Ta = 5.  From T0 = 5 the heater is on until T = 20.5
-- at t1 = tau ln((Th - T0) / (Th - 20.5)); then off for tau ln((20.5 - Ta)
-- / (19.5 - Ta)), on for tau ln((Th - 19.5) / (Th - 20.5)), and so on.
local m = diagc.jit("thermostat.lua")

local tau, Ta, Th, lo, hi = 2, 5, 25, 19.5, 20.5
local t_on = tau * math.log((Th - lo) / (Th - hi))
local t_off = tau * math.log((hi - Ta) / (lo - Ta))
local t1 = tau * math.log((Th - Ta) / (Th - hi))

-- T(t) and the heater, from the switching times
local function room(t)
  if t <= t1 then return Th + (Ta - Th) * math.exp(-t / tau), 1 end
  local s = (t - t1) % (t_off + t_on)
  if s <= t_off then return Ta + (hi - Ta) * math.exp(-s / tau), 0 end
  return Th + (lo - Th) * math.exp(-(s - t_off) / tau), 1
end

test("thermostat.limit_cycle", function()
  local sim = m:simulator { accuracy = 1e-11 }
  sim:initialize()
  sim:advance_to(8)
  local T, h = sim:log("room.y"), sim:log("relay.y")
  local switches = 0
  for i, t in ipairs(T.t) do
    local want, on = room(t)
    near(T.v[i], want, { atol = 1e-8 })
    -- (away from a switch, where the logger reads the state before it)
    if math.abs((t - t1) % (t_off + t_on)) > 1e-6 and math.abs((t - t1 - t_off) % (t_off + t_on)) > 1e-6 then
      eq(h.v[i], on)
    end
    if i > 1 and h.v[i] ~= h.v[i - 1] then switches = switches + 1 end
  end
  -- the cycle: 0.401 h on, 0.133 h off: 2 switches per 0.535 h after t1 = 2.98 h
  eq(switches, 1 + 2 * math.floor((8 - t1) / (t_on + t_off)) + ((8 - t1) % (t_on + t_off) > t_off and 1 or 0))
end)
