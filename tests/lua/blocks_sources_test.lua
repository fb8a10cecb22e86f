-- The library's sources (generator/diagc/lib/blocks/sources.lua, noise.lua,
-- time_table.lua) against closed forms: a pulse and a square wave (their
-- values between switches and the exact integral of a pulse, which needs
-- the simulator to land on every switch), a chirp's formula, the noise
-- generator's first integers against L'Ecuyer's MRG32k3a as published
-- (the Rosetta Code task's values for seed 1234567), the same bits from
-- the same seed, sane statistics, and a CSV table, linear and held.
local dsl = diagc.dsl
local blocks, system, connect, log = dsl.blocks, dsl.system, dsl.connect, dsl.log

-- the fraction of [0, T] during which a pulse (phase, period, duty) is on
local function on_time(T, phase, period, duty)
  local total = 0
  for k = math.floor(-phase / period) - 1, math.floor((T - phase) / period) + 1 do
    local a, b = phase + k * period, phase + k * period + duty * period
    total = total + math.max(0, math.min(b, T) - math.max(a, 0))
  end
  return total
end
local function is_on(t, phase, period, duty)
  local f = (t - phase) / period
  return f - math.floor(f) < duty
end

local waves = diagc.jit(dsl.diagram "blocks_waves" {
  system { "p", blocks.pulse { period = 1, duty = 0.25, phase = 0.33, amplitude = 2, bias = 1 } },
  system { "sq", blocks.square { period = 0.4, amplitude = 1.5, bias = 0.5, phase = -0.03 } },
  system { "ch", blocks.chirp { amplitude = 2, f0 = 0.5, f1 = 2, duration = 3, phase = 0.25, bias = -1 } },
  system { "i", blocks.integrator {} },
  connect { "p.y", "i.u" },
  log { "p.y", period = 0.1 }, log { "sq.y", period = 0.1 }, log { "ch.y", period = 0.1 }, log { "i.y", period = 0.1 },
})

test("blocks.pulse_square_chirp", function()
  local sim = waves:simulator { accuracy = 1e-11 }
  sim:initialize()
  sim:advance_to(4.55)
  local p, sq, ch, i = sim:log("p.y"), sim:log("sq.y"), sim:log("ch.y"), sim:log("i.y")
  for k, t in ipairs(p.t) do
    eq(p.v[k], is_on(t, 0.33, 1, 0.25) and 3 or 1)
    eq(sq.v[k], is_on(t, -0.03, 0.4, 0.5) and 2 or -1)
    -- the integral of 1 + 2 (on): exact because the simulator lands on every switch
    near(i.v[k], t + 2 * on_time(t, 0.33, 1, 0.25), { atol = 1e-9 })
    local tt = math.min(t, 3)
    local cycles = 0.5 * tt + 1.5 * tt * tt / 6 + 2 * (t - tt)
    near(ch.v[k], 2 * math.sin(2 * math.pi * cycles + 0.25) - 1, { atol = 1e-12 })
  end
  near(sim.context:get("i.y"), 4.55 + 2 * on_time(4.55, 0.33, 1, 0.25), { atol = 1e-9 })
end)

-- the noise: draws at 0.05 + 0.1 k, logged at 0.1 k (no ties)
local function noise_model(seed, name)
  return diagc.jit(dsl.diagram(name) {
    system { "u", blocks.noise { seed = seed, period = 0.1, offset = 0.05, lower = 0, upper = 1 } },
    system { "g", blocks.noise { seed = seed, period = 0.1, offset = 0.05, distribution = "gaussian", mean = 2, sd = 3, size = 2 } },
    log { "u.y", period = 0.1 }, log { "g.y", period = 0.1 },
  })
end

test("blocks.noise_generator", function()
  -- MRG32k3a from (0, 0, 1234567) in both recurrences: z + 1 = the
  -- published integers; u = (z + 1) / (m1 + 1)
  local expect = { 1459213977, 2827710106, 4245671317, 3877608661, 2595287583 }
  local sim = noise_model(1234567, "blocks_noise_a"):simulator {}
  sim:initialize()
  sim:advance_to(0.5)
  local u = sim:log("u.y")
  for k = 1, 5 do eq(u.v[k + 1], expect[k] / 4294967088) end
  eq(u.v[1], 0) -- before the first draw
  local s = sim.context:get("u.s")
  local z = s[3] - s[6]
  if z < 0 then z = z + 4294967087 end
  eq(z + 1, expect[5])
end)

test("blocks.noise_reproducible", function()
  local function run(seed, name)
    local sim = noise_model(seed, name):simulator {}
    sim:initialize()
    sim:advance_to(3)
    return sim:log("g.y").v, sim:log("u.y").v
  end
  local g1, u1 = run(7, "blocks_noise_b")
  local g2, u2 = run(7, "blocks_noise_c")
  local g3 = run(8, "blocks_noise_d")
  eq(#g1, 31)
  local same, differ = true, 0
  for k = 1, #g1 do
    same = same and g1[k][1] == g2[k][1] and g1[k][2] == g2[k][2] and u1[k] == u2[k]
    if g1[k][1] ~= g3[k][1] then differ = differ + 1 end
  end
  truthy(same, "the same seed gives the same bits")
  eq(differ, 30) -- all but the value before the first draw
end)

test("blocks.noise_statistics", function()
  local m = diagc.jit(dsl.diagram "blocks_noise_stats" {
    system { "u", blocks.noise { seed = 12345, period = 0.01, offset = 0.005, lower = -1, upper = 3, size = 10 } },
    system { "g", blocks.noise { seed = 54321, period = 0.01, offset = 0.005, distribution = "gaussian", mean = 1, sd = 2, size = 10 } },
    log { "u.y", period = 0.01 }, log { "g.y", period = 0.01 },
  })
  local sim = m:simulator {}
  sim:initialize()
  sim:advance_to(20)
  local function moments(name, lo, hi)
    local v = sim:log(name).v
    local n, s1, s2 = 0, 0, 0
    for k = 2, #v do
      for j = 1, 10 do
        local x = v[k][j]
        n, s1, s2 = n + 1, s1 + x, s2 + x * x
        if lo then truthy(x > lo and x < hi, "in range") end
      end
    end
    local mean = s1 / n
    return mean, s2 / n - mean * mean, n
  end
  -- 20000 values: the mean within 4 standard errors, the variance within 10 %
  local mu, var, n = moments("u.y", -1, 3)
  eq(n, 20000)
  truthy(math.abs(mu - 1) < 4 * math.sqrt(16 / 12 / n), "uniform mean " .. mu)
  truthy(math.abs(var / (16 / 12) - 1) < 0.1, "uniform variance " .. var)
  mu, var = moments("g.y")
  truthy(math.abs(mu - 1) < 4 * 2 / math.sqrt(n), "gaussian mean " .. mu)
  truthy(math.abs(var / 4 - 1) < 0.1, "gaussian variance " .. var)
end)

-- tests/lua/fixtures/blocks_table.csv: (0.5: 1, -2) (1.5: 3, -2) (2: -1, 4) (4: 0, 0)
local tt = diagc.jit(dsl.diagram "blocks_time_table" {
  system { "l", blocks.time_table { file = "fixtures/blocks_table.csv" } },
  system { "h", blocks.time_table { file = "fixtures/blocks_table.csv", method = "hold" } },
  system { "sel", blocks.selector { width = 2 } },
  system { "i", blocks.integrator {} },
  connect { "h.y", "sel.u" }, connect { "sel.y", "i.u" },
  log { "l.y", period = 0.1 }, log { "h.y", period = 0.1 }, log { "i.y", period = 0.1 },
})

test("blocks.time_table", function()
  local rows = { { 0.5, 1, -2 }, { 1.5, 3, -2 }, { 2, -1, 4 }, { 4, 0, 0 } }
  local function linear(t, c)
    if t <= rows[1][1] then return rows[1][c] end
    for j = 1, #rows - 1 do
      local a, b = rows[j], rows[j + 1]
      if t <= b[1] then return a[c] + (b[c] - a[c]) * (t - a[1]) / (b[1] - a[1]) end
    end
    return rows[#rows][c]
  end
  local function hold(t, c)
    local v = rows[1][c]
    for j = 1, #rows do if t > rows[j][1] + 1e-12 then v = rows[j][c] end end
    return v
  end
  local function integral(t) -- of the held first column
    local total = 0
    for j = 1, #rows do
      local a, b = rows[j][1], rows[j + 1] and rows[j + 1][1] or math.huge
      if j == 1 then total = total + rows[1][2] * math.min(t, a) end
      total = total + rows[j][2] * math.max(0, math.min(t, b) - a)
    end
    return total
  end
  local sim = tt:simulator { accuracy = 1e-11 }
  sim:initialize()
  sim:advance_to(5)
  local l, h, i = sim:log("l.y"), sim:log("h.y"), sim:log("i.y")
  for k, t in ipairs(l.t) do
    near(l.v[k][1], linear(t, 2), { atol = 1e-12 })
    near(l.v[k][2], linear(t, 3), { atol = 1e-12 })
    eq(h.v[k], { hold(t, 2), hold(t, 3) })
    near(i.v[k], integral(t), { atol = 1e-9 })
  end
  -- the table is two parameters
  local c = tt:context()
  c:set_param("l.values", { 0, 0, 10, 10, 20, 20, 30, 30 })
  c:set_time(1)
  eq(c:get("l.y"), { 5, 5 })
end)
