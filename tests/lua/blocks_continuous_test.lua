-- The library's continuous additions (generator/diagc/lib/blocks/
-- continuous.lua) against closed forms: an integrator between limits
-- driven by cos t (it follows sin t, waits at a limit, comes back), an
-- integrator reset by a pulse's edges, a filtered derivative's ramp
-- response, and the transport delay's Pade approximants: their
-- coefficients, a first-order step response, and the frequency response
-- of the generated state space against the Pade transfer function.
local continuous = require("diagc.lib.blocks.continuous")

local dsl = diagc.dsl
local blocks, system, connect, log = dsl.blocks, dsl.system, dsl.connect, dsl.log

local lim = diagc.jit(dsl.diagram "blocks_integrator_limits" {
  system { "c", blocks.sine { phase = math.pi / 2 } },
  system { "i", blocks.integrator { lower = -0.5, upper = 0.5 } },
  system { "one", blocks.constant { value = 1 } },
  system { "p", blocks.pulse { period = 1, duty = 0.5, phase = 0.25, bias = -1, amplitude = 2 } },
  system { "r", blocks.integrator { reset = "rising", x0 = 0.1 } },
  system { "ramp", blocks.ramp { slope = 2 } },
  system { "d", blocks.derivative { tau = 0.2 } },
  connect { "c.y", "i.u" }, connect { "one.y", "r.u" }, connect { "p.y", "r.reset" }, connect { "ramp.y", "d.u" },
  log { "i.y", period = 0.1 }, log { "r.y", period = 0.1 }, log { "d.y", period = 0.1 },
})

test("blocks.integrator_limits_reset_derivative", function()
  local pi = math.pi
  -- x = sin t to 0.5 (pi/6), held until cos t < 0 (pi/2), then 0.5 + sin t
  -- - 1 down to -0.5 (pi), held until cos t > 0 (3 pi/2), then sin t + 0.5
  local function x(t)
    if t < pi / 6 then return math.sin(t) end
    if t < pi / 2 then return 0.5 end
    if t < pi then return math.sin(t) - 0.5 end
    if t < 3 * pi / 2 then return -0.5 end
    if t < 2 * pi + pi / 6 - 1e-9 then return math.min(math.sin(t) + 0.5, 0.5) end
    return 0.5
  end
  local sim = lim:simulator { accuracy = 1e-11 }
  sim:initialize()
  sim:advance_to(7)
  local i, r, d = sim:log("i.y"), sim:log("r.y"), sim:log("d.y")
  for k, t in ipairs(i.t) do
    near(i.v[k], x(t), { atol = 1e-9 })
    -- reset to 0.1 at the pulse's rises, 0.25 + k (an event 1e-10 max(1, t) later)
    local last = t > 0.25 and math.floor(t - 0.25 - 1e-9) + 0.25 or nil
    near(r.v[k], last and 0.1 + (t - last) or 0.1 + t, { atol = 1e-9 })
    -- s / (0.2 s + 1) of 2 t: 2 (1 - e^(-t/0.2))
    near(d.v[k], 2 * (1 - math.exp(-t / 0.2)), { atol = 1e-8 })
  end
end)

-- the [n/n] Pade approximant of e^(-T s) from c_0 = 1, c_k = c_(k-1) (n -
-- k + 1) / ((2n - k + 1) k): den(s) = sum c_k (T s)^k, num(s) = den(-s)
local function pade(T, n)
  local c = { [0] = 1 }
  for k = 1, n do c[k] = c[k - 1] * (n - k + 1) / ((2 * n - k + 1) * k) end
  local num, den = {}, {}
  for k = n, 0, -1 do
    num[#num + 1] = c[k] * (-T) ^ k
    den[#den + 1] = c[k] * T ^ k
  end
  return num, den
end

test("blocks.pade_coefficients", function()
  local T = 0.7
  local known = {
    { { -T / 2, 1 }, { T / 2, 1 } },
    { { T * T / 12, -T / 2, 1 }, { T * T / 12, T / 2, 1 } },
    { { -T ^ 3 / 120, T * T / 10, -T / 2, 1 }, { T ^ 3 / 120, T * T / 10, T / 2, 1 } },
  }
  for n = 1, 3 do
    local num, den = continuous.pade(T, n)
    for k = 1, n + 1 do
      near(num[k], known[n][1][k], { rtol = 1e-15 })
      near(den[k], known[n][2][k], { rtol = 1e-15 })
    end
  end
  for n = 4, 10 do
    local num, den = continuous.pade(T, n)
    local pn, pd = pade(T, n)
    for k = 1, n + 1 do
      near(num[k], pn[k], { rtol = 1e-13 })
      near(den[k], pd[k], { rtol = 1e-13 })
    end
  end
end)

-- complex numbers as {re, im}
local function cadd(a, b) return { a[1] + b[1], a[2] + b[2] } end
local function cmul(a, b) return { a[1] * b[1] - a[2] * b[2], a[1] * b[2] + a[2] * b[1] } end
local function cdiv(a, b)
  local d = b[1] * b[1] + b[2] * b[2]
  return { (a[1] * b[1] + a[2] * b[2]) / d, (a[2] * b[1] - a[1] * b[2]) / d }
end
local function poly(p, s) -- p from the highest power
  local v = { 0, 0 }
  for _, c in ipairs(p) do v = cadd(cmul(v, s), { c, 0 }) end
  return v
end
-- C (s I - A)^-1 B + D for one input and one output, by Gaussian elimination
local function response(lin, s)
  local n = #lin.A
  local M, b = {}, {}
  for i = 1, n do
    M[i] = {}
    for j = 1, n do M[i][j] = { (i == j and s[1] or 0) - lin.A[i][j], i == j and s[2] or 0 } end
    b[i] = { lin.B[i][1], 0 }
  end
  for k = 1, n do
    local p = k
    for i = k + 1, n do
      if math.abs(M[i][k][1]) + math.abs(M[i][k][2]) > math.abs(M[p][k][1]) + math.abs(M[p][k][2]) then p = i end
    end
    M[k], M[p], b[k], b[p] = M[p], M[k], b[p], b[k]
    for i = k + 1, n do
      local f = cdiv(M[i][k], M[k][k])
      for j = k, n do M[i][j] = cadd(M[i][j], cmul({ -f[1], -f[2] }, M[k][j])) end
      b[i] = cadd(b[i], cmul({ -f[1], -f[2] }, b[k]))
    end
  end
  local x = {}
  for i = n, 1, -1 do
    local v = b[i]
    for j = i + 1, n do v = cadd(v, cmul({ -M[i][j][1], -M[i][j][2] }, x[j])) end
    x[i] = cdiv(v, M[i][i])
  end
  local y = { lin.D[1][1], 0 }
  for i = 1, n do y = cadd(y, cmul({ lin.C[1][i], 0 }, x[i])) end
  return y
end

test("blocks.transport_delay", function()
  local m = diagc.jit(dsl.diagram "blocks_delay" {
    system { "d1", blocks.transport_delay { delay = 0.4, order = 1 } },
    system { "d5", blocks.transport_delay { delay = 0.4, order = 5 } },
    dsl.export_input { "d5.u", as = "u" }, dsl.export_output { "d5.y", as = "y" },
    dsl.fix_input { "d1.u", value = { 1 } },
    log { "d1.y", period = 0.05 },
  })
  -- first order: (1 - 0.2 s) / (1 + 0.2 s): a unit step gives 1 - 2 e^(-5 t)
  local sim = m:simulator { accuracy = 1e-11 }
  sim:initialize()
  sim:advance_to(2)
  local l = sim:log("d1.y")
  for k, t in ipairs(l.t) do
    if t > 0 then near(l.v[k], 1 - 2 * math.exp(-5 * t), { atol = 1e-9 }) end
  end
  -- fifth order: the generated state space's response is the Pade transfer
  -- function's, an all-pass (|H| = 1) whose phase is -0.4 w at low w
  local c = m:context()
  local lin = c:linearize { input = "u", output = "y", mode = "first_order_taylor" }
  local num, den = pade(0.4, 5)
  for _, w in ipairs({ 0.1, 1, 3, 10, 50 }) do
    local s = { 0, w }
    local h, want = response(lin, s), cdiv(poly(num, s), poly(den, s))
    near(h[1], want[1], { atol = 1e-10 })
    near(h[2], want[2], { atol = 1e-10 })
    near(math.sqrt(h[1] * h[1] + h[2] * h[2]), 1, { atol = 1e-10 })
  end
  local h = response(lin, { 0, 1 })
  near(math.atan2(h[2], h[1]), -0.4, { atol = 1e-10 })
end)

test("blocks.parameter_jacobian", function()
  -- a block's settings are parameters: d/dtau of the filtered derivative
  -- y = (u - x) / tau and x' = (u - x) / tau at u = 1, x = 0.25, tau = 0.5;
  -- d/dk of k / (tau s + 1) through its C parameter (C = k / tau)
  local m = diagc.jit(dsl.diagram "blocks_pjac" {
    system { "d", blocks.derivative { tau = 0.5 } },
    dsl.fix_input { "d.u", value = { 1 } },
    dsl.export_output { "d.y", as = "y" },
    dsl.parameter_jacobian { "d.tau" },
  })
  local c = m:context()
  c:set_state("d.z", 0.25)
  local pj = c:parameter_jacobian()
  -- rows: xcdot, then y; both -(u - x) / tau^2 = -3
  near(pj.J[1][1], -3, { atol = 1e-12 })
  near(pj.J[2][1], -3, { atol = 1e-12 })
end)
