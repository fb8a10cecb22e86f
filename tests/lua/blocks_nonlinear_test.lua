-- The library's relay, quantizer, rate limiter, 2-D lookup and demux
-- (generator/diagc/lib/blocks/nonlinear.lua, lookup.lua, math.lua) against
-- closed forms: the relay's switching times on a sine (the integral of
-- its output), the quantizer's rounding, the rate limiter's staircase,
-- bilinear interpolation (exact on a bilinear function) and its slopes.
local dsl = diagc.dsl
local blocks, system, connect, fix_input, log = dsl.blocks, dsl.system, dsl.connect, dsl.fix_input, dsl.log

local relay = diagc.jit(dsl.diagram "blocks_relay" {
  system { "s", blocks.sine { amplitude = 2 } },
  system { "r", blocks.relay { on = 1, off = -1, on_value = 5, off_value = -5 } },
  system { "i", blocks.integrator {} },
  connect { "s.y", "r.u" }, connect { "r.y", "i.u" },
  log { "r.y", period = 0.1 }, log { "i.y", period = 0.1 },
})

test("blocks.relay_switching_times", function()
  -- 2 sin t reaches 1 at pi/6 (+ 2 pi k): on; falls to -1 at 7 pi/6: off
  local on, off = math.pi / 6, 7 * math.pi / 6
  local function state(t)
    local f = t % (2 * math.pi)
    return t >= on and (f >= on and f < off) -- off before the first switch
  end
  local function integral(t)
    local total, a, s = 0, 0, false
    local k = 0
    while true do
      local b = (s and off or on) + 2 * math.pi * k
      if not s and k == 0 and b < a then b = on end
      if b >= t then return total + (s and 5 or -5) * (t - a) end
      total = total + (s and 5 or -5) * (b - a)
      a, s = b, not s
      if not s then k = k + 1 end
    end
  end
  local sim = relay:simulator { accuracy = 1e-11 }
  sim:initialize()
  sim:advance_to(14)
  local r, i = sim:log("r.y"), sim:log("i.y")
  for k, t in ipairs(r.t) do
    eq(r.v[k], state(t) and 5 or -5)
    near(i.v[k], integral(t), { atol = 1e-9 })
  end
end)

test("blocks.relay_starts_from_its_input", function()
  -- above on at the start: on at once; inside the band: the initial state
  local m = diagc.jit(dsl.diagram "blocks_relay_start" {
    system { "a", blocks.relay { on = 1, off = -1 } },
    system { "b", blocks.relay { on = 1, off = -1, initial = "on" } },
    fix_input { "a.u", value = { 2 } }, fix_input { "b.u", value = { 0 } },
    log { "a.y", period = 1 },
  })
  local sim = m:simulator {}
  sim:initialize()
  eq(sim.context:get("a.y"), 1)
  eq(sim.context:get("b.y"), 1)
end)

local misc = diagc.jit(dsl.diagram "blocks_nonlinear_misc" {
  system { "q", blocks.quantizer { interval = 0.5, size = 5 } },
  system { "st", blocks.step { time = 1.23, initial = 1, final = -1 } },
  system { "rl", blocks.rate_limiter { rising = 2, falling = 4, period = 0.1, offset = 0.05 } },
  system { "dm", blocks.demux { sizes = { 2, 1 } } },
  fix_input { "q.u", value = { 0.74, 0.75, -0.25, -0.26, 3.1 } }, fix_input { "dm.u", value = { 7, 8, 9 } },
  connect { "st.y", "rl.u" },
  log { "rl.y", period = 0.1 },
})

test("blocks.quantizer_demux", function()
  local c = misc:context()
  eq(c:get("q.y"), { 0.5, 1, 0, -0.5, 3 })
  eq(c:get("dm.y1"), { 7, 8 })
  eq(c:get("dm.y2"), 9)
end)

test("blocks.rate_limiter", function()
  local sim = misc:simulator {}
  sim:initialize()
  sim:advance_to(2)
  local rl = sim:log("rl.y")
  for k, t in ipairs(rl.t) do
    local y = 0
    for j = 0, 100 do
      local ts = 0.05 + 0.1 * j
      if ts > t then break end
      local u = ts < 1.23 and 1 or -1
      y = y + math.max(-0.4, math.min(0.2, u - y))
    end
    near(rl.v[k], y, { atol = 1e-12 })
  end
end)

-- z = 1 + 2 x + 3 y + 4 x y on uneven breakpoints: bilinear interpolation
-- is exact inside; clamped outside, or extrapolated (exact again)
local function z(x, y) return 1 + 2 * x + 3 * y + 4 * x * y end
local bx, by = { -1, 0, 0.5, 2 }, { 0, 1, 3 }
local tab = {}
for i, x in ipairs(bx) do
  tab[i] = {}
  for j, y in ipairs(by) do tab[i][j] = z(x, y) end
end
local l2 = diagc.jit(dsl.diagram "blocks_lookup2d" {
  system { "c", blocks.lookup2d { x = bx, y = by, table = tab } },
  system { "e", blocks.lookup2d { x = bx, y = by, table = tab, extrapolate = true } },
  system { "i", blocks.integrator { x0 = 0.25 } },
  connect { "i.y", "c.u1" }, connect { "c.y", "i.u" },
  fix_input { "c.u2", value = { 2 } }, fix_input { "e.u1", value = { 0 } }, fix_input { "e.u2", value = { 0 } },
  log { "i.y", period = 1 },
})

test("blocks.lookup2d", function()
  local c = l2:context()
  for _, p in ipairs({ { -1, 0 }, { 0.3, 2.5 }, { 1.7, 0.2 }, { 2, 3 }, { -0.5, 1 } }) do
    c:set_state("i.z", p[1])
    c:set_input("c.u2", p[2])
    near(c:get("c.y"), z(p[1], p[2]), { atol = 1e-13 })
  end
  -- clamped: (3, -1) reads (2, 0); extrapolated: the bilinear function
  c:set_state("i.z", 3)
  c:set_input("c.u2", -1)
  near(c:get("c.y"), z(2, 0), { atol = 1e-13 })
  c:set_input("e.u1", 3)
  c:set_input("e.u2", -1)
  near(c:get("e.y"), z(3, -1), { atol = 1e-12 })
  c:set_input("e.u1", -2)
  c:set_input("e.u2", 4)
  near(c:get("e.y"), z(-2, 4), { atol = 1e-12 })
  -- the slope dz/dx = 2 + 4 y in x' = z(x, y)
  c:set_state("i.z", 0.25)
  c:set_input("c.u2", 2)
  near(c:linearize { mode = "first_order_taylor" }.A[1][1], 2 + 4 * 2, { atol = 1e-12 })
end)

test("blocks.discontinuous_jacobians", function()
  -- the quantizer is piecewise constant: x' = -q(x) linearizes to A = 0;
  -- the rate limiter's update x+ = x + clamp(u - x): d x+/d u is 1 inside
  -- the rate limits and 0 at them
  local m = diagc.jit(dsl.diagram "blocks_jac_kinks" {
    system { "i", blocks.integrator { x0 = 0.3 } },
    system { "q", blocks.quantizer { interval = 0.25 } },
    system { "g", blocks.gain { k = -1 } },
    connect { "i.y", "q.u" }, connect { "q.y", "g.u" }, connect { "g.y", "i.u" },
    log { "i.y", period = 1 },
  })
  eq(m:context():linearize { mode = "first_order_taylor" }.A[1][1], 0)
  local r = diagc.jit(dsl.diagram "blocks_jac_rate" {
    system { "rl", blocks.rate_limiter { rising = 1, period = 0.1 } },
    dsl.export_input { "rl.u", as = "u" },
    log { "rl.y", period = 0.1 },
  })
  local c = r:context()
  c:set_input("u", 0.05)
  local J = c:update_jacobian {} -- x+ = u: d/dx 0, d/du 1
  eq(J.J[1], { 0, 1 })
  c:set_input("u", 0.5)
  J = c:update_jacobian {} -- x+ = x + 0.1
  eq(J.J[1], { 1, 0 })
end)
