-- The library's hybrid blocks (generator/diagc/lib/blocks/hybrid.lua,
-- edges.lua) against closed forms: a sampled edge detector on a sine, a
-- sample-and-hold of a ramp triggered by a sine's zero crossings (found by
-- a witness), a counter of a pulse's rises (jumps at events) and of a
-- sine's crossings.
local dsl = diagc.dsl
local blocks, system, connect, log = dsl.blocks, dsl.system, dsl.connect, dsl.log

local m = diagc.jit(dsl.diagram "blocks_hybrid" {
  system { "s", blocks.sine { frequency = 2 * math.pi } },
  system { "r", blocks.ramp {} },
  system { "p", blocks.pulse { period = 1, duty = 0.5, phase = 0.25, bias = -1, amplitude = 2 } },
  system { "up", blocks.edge_detector { period = 0.1, offset = 0.05 } },
  system { "down", blocks.edge_detector { period = 0.1, offset = 0.05, edge = "falling" } },
  system { "any", blocks.edge_detector { period = 0.1, offset = 0.05, edge = "either", threshold = 0.5 } },
  system { "sh", blocks.sample_hold { x0 = -7 } },
  system { "shf", blocks.sample_hold { edge = "falling" } },
  system { "cp", blocks.counter {} },
  system { "cs", blocks.counter { edge = "either", initial = 10 } },
  connect { "s.y", "up.u" }, connect { "s.y", "down.u" }, connect { "s.y", "any.u" },
  connect { "r.y", "sh.u" }, connect { "s.y", "sh.trigger" }, connect { "r.y", "shf.u" }, connect { "s.y", "shf.trigger" },
  connect { "p.y", "cp.trigger" }, connect { "s.y", "cs.trigger" },
  log { "up.y", period = 0.1 }, log { "down.y", period = 0.1 }, log { "any.y", period = 0.1 },
  log { "sh.y", period = 0.1 }, log { "shf.y", period = 0.1 }, log { "cp.y", period = 0.1 }, log { "cs.y", period = 0.1 },
})

test("blocks.hybrid", function()
  local sim = m:simulator { accuracy = 1e-11 }
  sim:initialize()
  sim:advance_to(3.3)
  local function s(t) return math.sin(2 * math.pi * t) end
  local logs = {}
  for _, n in ipairs({ "up", "down", "any", "sh", "shf", "cp", "cs" }) do logs[n] = sim:log(n .. ".y") end
  for k, t in ipairs(logs.up.t) do
    -- the last sample j at t_j = 0.05 + 0.1 j <= t, compared with the one before
    local j = math.floor((t - 0.05) / 0.1 + 1e-9)
    local a, b = j >= 1 and s(0.05 + 0.1 * (j - 1)) or nil, j >= 0 and s(0.05 + 0.1 * j) or nil
    eq(logs.up.v[k], (a and a < 0 and b >= 0) and 1 or 0)
    eq(logs.down.v[k], (a and a >= 0 and b < 0) and 1 or 0)
    eq(logs.any.v[k], (a and (a < 0.5) ~= (b < 0.5)) and 1 or 0)
    -- rises of the sine at 1, 2, 3 (the start, 0, is not an edge); falls at 0.5, 1.5, ...
    local rise, fall = math.floor(t - 1e-9), math.floor(t + 0.5 - 1e-9) - 0.5
    near(logs.sh.v[k], rise >= 1 and rise or -7, { atol = 1e-9 })
    near(logs.shf.v[k], fall >= 0.5 and fall or 0, { atol = 1e-9 })
    -- the pulse rises at 0.25 + k (counted 1e-10 max(1, t) later); the sine
    -- crosses 0 every 0.5 from 0.5 on
    eq(logs.cp.v[k], t > 0.25 and math.floor(t - 0.25 - 1e-9) + 1 or 0)
    eq(logs.cs.v[k], 10 + math.max(0, math.floor(2 * t - 1e-9)))
  end
end)
