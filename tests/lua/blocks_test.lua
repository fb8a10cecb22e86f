-- The standard blocks (generator/diagc/lib/blocks.lua) against closed forms:
-- step responses of a transfer function (partial fractions), a low-pass
-- filter and a second-order system; the static blocks' outputs; an
-- integrator's ramp; a state space with feedthrough; the controllable
-- canonical form; the blocks' parameters through set_param.
local lti = require("diagc.lib.lti")

local dsl = diagc.dsl
local blocks, system, fix_input, log = dsl.blocks, dsl.system, dsl.fix_input, dsl.log

local m = diagc.jit(dsl.diagram "blocks_lti" {
  system { "tf", blocks.transfer_function { num = { 1, 3 }, den = { 1, 3, 2 } } },
  system { "lp", blocks.low_pass { tau = 0.5, k = 2 } },
  system { "so", blocks.second_order { wn = 2, zeta = 0.3 } },
  system { "ss", blocks.state_space { A = { { -1 } }, B = { { 1 } }, C = { { 2 } }, D = { { 0.5 } } } },
  system { "i", blocks.integrator { x0 = 1 } },
  fix_input { "tf.u", value = { 1 } }, fix_input { "lp.u", value = { 1 } },
  fix_input { "so.u", value = { 1 } }, fix_input { "ss.u", value = { 1 } }, fix_input { "i.u", value = { 0.5 } },
  log { "tf.y", period = 0.05 }, log { "lp.y", period = 0.05 }, log { "so.y", period = 0.05 },
  log { "ss.y", period = 0.05 }, log { "i.y", period = 0.05 },
})

local function worst(sim, port, f)
  local log, w = sim:log(port), 0
  for i, t in ipairs(log.t) do
    local v = type(log.v[i]) == "table" and log.v[i][1] or log.v[i]
    w = math.max(w, math.abs(v - f(t)))
  end
  return w, #log.t
end

test("blocks.step_responses", function()
  local sim = m:simulator { accuracy = 1e-11 }
  sim:initialize()
  sim:advance_to(5)
  local z, wn = 0.3, 2
  local wd, phi = wn * math.sqrt(1 - z * z), math.acos(z)
  local cases = {
    -- (s + 3) / ((s + 1)(s + 2)) / s = 1.5/s - 2/(s + 1) + 0.5/(s + 2)
    ["tf.y"] = function(t) return 1.5 - 2 * math.exp(-t) + 0.5 * math.exp(-2 * t) end,
    ["lp.y"] = function(t) return 2 * (1 - math.exp(-t / 0.5)) end,
    ["so.y"] = function(t) return 1 - math.exp(-z * wn * t) / math.sqrt(1 - z * z) * math.sin(wd * t + phi) end,
    ["ss.y"] = function(t) return 2 * (1 - math.exp(-t)) + 0.5 end,
    ["i.y"] = function(t) return 1 + 0.5 * t end,
  }
  for port, f in pairs(cases) do
    local w, n = worst(sim, port, f)
    eq(n, 101)
    truthy(w < 1e-8, port .. " worst error " .. w)
  end
end)

local s = diagc.jit(dsl.diagram "blocks_static" {
  system { "gm", blocks.gain { k = { { 1, 2, 0 }, { 3, 4, -1 } } } },
  system { "gs", blocks.gain { k = -2, size = 3 } },
  system { "sum", blocks.sum { signs = "+-+", size = 2 } },
  system { "sat", blocks.saturation { lower = { -1, 0 }, upper = { 1, 0.5 }, size = 2 } },
  fix_input { "gm.u", value = { 1, 10, 100 } }, fix_input { "gs.u", value = { 1, 2, 3 } },
  fix_input { "sum.u1", value = { 1, 2 } }, fix_input { "sum.u2", value = { 10, 20 } },
  fix_input { "sum.u3", value = { 100, 200 } }, fix_input { "sat.u", value = { -3, 0.25 } },
  log { "gm.y", period = 1 }, log { "gs.y", period = 1 }, log { "sum.y", period = 1 }, log { "sat.y", period = 1 },
})

test("blocks.static", function()
  local c = s:context()
  eq(c:get("gm.y"), { 21, -57 })
  eq(c:get("gs.y"), { -2, -4, -6 })
  eq(c:get("sum.y"), { 91, 182 })
  eq(c:get("sat.y"), { -1, 0.25 })
  c:set_input("sat.u", { 0.5, 7 })
  eq(c:get("sat.y"), { 0.5, 0.5 })
end)

test("blocks.parameters", function()
  -- a block's settings are numeric parameters: set_param changes them
  local c = s:context()
  c:set_param("gs.k", 0.5)
  eq(c:get("gs.y"), { 0.5, 1, 1.5 })
  c:set_param("sat.upper", { 2, 2 })
  c:set_input("sat.u", { 1.5, 3 })
  eq(c:get("sat.y"), { 1.5, 2 })
  c:set_param("gm.k", { 1, 0, 0, 0, 0, 1 })
  eq(c:get("gm.y"), { 1, 100 })
end)

test("blocks.controllable_canonical_form", function()
  -- (2 s^2 + s) / (2 s^2 + 4 s + 2): D = 1, the rest (s - 4 s - 2) / 2 / (s^2 + 2 s + 1)
  local A, B, C, D = lti.tf2ss({ 2, 1, 0 }, { 2, 4, 2 })
  eq(A, { { -2, -1 }, { 1, 0 } })
  eq(B, { { 1 }, { 0 } })
  eq(C, { { -1.5, -1 } })
  eq(D, { { 1 } })
  -- leading zeros of num are dropped; improper and degree-0 problems are refused
  local A2 = lti.tf2ss({ 0, 0, 1 }, { 1, 1 })
  eq(A2, { { -1 } })
  local X, why = lti.tf2ss({ 1, 0, 0 }, { 1, 1 })
  truthy(X == nil and why:find("not proper"), tostring(why))
  X, why = lti.tf2ss({ 1 }, { 3 })
  truthy(X == nil and why:find("blocks.gain"), tostring(why))
  X, why = lti.tf2ss({ 1 }, { 0, 0 })
  truthy(X == nil and why:find("den is zero"), tostring(why))
end)

-- sources: a step at t = 1 into a low-pass filter (the switch is an
-- event, so the filter is integrated exactly across it), a sine into an
-- integrator, a ramp sampled and held and then delayed by one period
local src = diagc.jit(dsl.diagram "blocks_sources" {
  system { "c", blocks.constant { value = { 1, 2 } } },
  system { "st", blocks.step { time = 1, initial = -1, final = 2 } },
  system { "lp", blocks.low_pass { tau = 0.5 } },
  system { "r", blocks.ramp { slope = 2, start = 0.5, initial = 0.25 } },
  system { "sn", blocks.sine { amplitude = 2, frequency = 3, phase = 0.5, bias = 1 } },
  system { "i", blocks.integrator {} },
  system { "zoh", blocks.zero_order_hold { period = 0.1 } },
  system { "ud", blocks.unit_delay { period = 0.1, x0 = 7 } },
  dsl.connect { "st.y", "lp.u" }, dsl.connect { "sn.y", "i.u" },
  dsl.connect { "r.y", "zoh.u" }, dsl.connect { "zoh.y", "ud.u" },
  log { "c.y", period = 0.05 }, log { "st.y", period = 0.05 }, log { "lp.y", period = 0.05 },
  log { "r.y", period = 0.05 }, log { "i.y", period = 0.05 }, log { "zoh.y", period = 0.05 },
  log { "ud.y", period = 0.05 },
})

test("blocks.sources", function()
  local sim = src:simulator { accuracy = 1e-11 }
  sim:initialize()
  sim:advance_to(3)
  -- the filter starts at -1 (its input's initial value at t = 0 is -1,
  -- its state 0): y = -(1 - e^(-2t)) before 1, then it moves towards 2
  local y1 = -(1 - math.exp(-2))
  local cases = {
    ["c.y"] = function() return 1 end,
    -- a logger due at the switch reads the state before it (Drake's order)
    ["st.y"] = function(t) return t < 1 + 1e-12 and -1 or 2 end,
    ["lp.y"] = function(t)
      if t < 1 then return -(1 - math.exp(-2 * t)) end
      return 2 + (y1 - 2) * math.exp(-2 * (t - 1))
    end,
    ["r.y"] = function(t) return t < 0.5 and 0.25 or 0.25 + 2 * (t - 0.5) end,
    -- integral of 2 sin(3t + 0.5) + 1
    ["i.y"] = function(t) return 2 / 3 * (math.cos(0.5) - math.cos(3 * t + 0.5)) + t end,
  }
  for port, f in pairs(cases) do
    local w = worst(sim, port, f)
    truthy(w < 1e-8, port .. " worst error " .. w)
  end
  -- the hold: samples of r at j 0.1; at time t those with j 0.1 < t are
  -- applied (a logger due at a sample reads the state before it), so it
  -- shows the last of them, or x0 = 0 before the first; the delay shows
  -- the hold's value before the last sample (x0 = 7 before the first)
  local zoh, ud = sim:log("zoh.y"), sim:log("ud.y")
  local function ramp(t) return t < 0.5 - 1e-12 and 0.25 or 0.25 + 2 * (t - 0.5) end
  local function held(k) return k == 0 and 0 or ramp((k - 1) * 0.1) end
  for i, t in ipairs(zoh.t) do
    local k = math.floor((t - 1e-12) / 0.1) + 1 -- samples applied
    if t == 0 then k = 0 end
    near(zoh.v[i], held(k), { atol = 1e-12 })
    near(ud.v[i], k == 0 and 7 or held(k - 1), { atol = 1e-12 })
  end
end)

-- more math: each against its definition, and the lookup's slopes in a
-- linearization (its calc stays in the differentiable subset)
local mm = diagc.jit(dsl.diagram "blocks_math" {
  system { "a", blocks.abs { size = 2 } }, system { "sg", blocks.sign { size = 3 } },
  system { "p", blocks.product { inputs = 3 } }, system { "mn", blocks.min {} }, system { "mx", blocks.max {} },
  system { "d", blocks.divide {} }, system { "dz", blocks.dead_zone { lower = -1, upper = 2 } },
  system { "mux", blocks.mux { sizes = { 1, 2 } } }, system { "sel", blocks.selector { width = 3, from = 2, size = 2 } },
  system { "sw", blocks.switch { threshold = 0.5 } },
  system { "lk", blocks.lookup { x = { 0, 1, 3 }, y = { 0, 2, 3 } } },
  system { "lke", blocks.lookup { x = { 0, 1, 3 }, y = { 0, 2, 3 }, extrapolate = true } },
  fix_input { "a.u", value = { -2, 3 } }, fix_input { "sg.u", value = { -2, 0, 5 } },
  fix_input { "p.u1", value = { 2 } }, fix_input { "p.u2", value = { 3 } }, fix_input { "p.u3", value = { 4 } },
  fix_input { "mn.u1", value = { 2 } }, fix_input { "mn.u2", value = { -3 } },
  fix_input { "mx.u1", value = { 2 } }, fix_input { "mx.u2", value = { -3 } },
  fix_input { "d.u1", value = { 3 } }, fix_input { "d.u2", value = { 4 } }, fix_input { "dz.u", value = { 5 } },
  fix_input { "mux.u1", value = { 1 } }, fix_input { "mux.u2", value = { 2, 3 } },
  fix_input { "sel.u", value = { 7, 8, 9 } },
  fix_input { "sw.u1", value = { 1 } }, fix_input { "sw.c", value = { 0.7 } }, fix_input { "sw.u2", value = { 2 } },
  fix_input { "lk.u", value = { 4 } }, fix_input { "lke.u", value = { 4 } },
  log { "a.y", period = 1 },
})

test("blocks.math", function()
  local c = mm:context()
  eq(c:get("a.y"), { 2, 3 })
  eq(c:get("sg.y"), { -1, 0, 1 })
  eq(c:get("p.y"), 24)
  eq(c:get("mn.y"), -3)
  eq(c:get("mx.y"), 2)
  eq(c:get("d.y"), 0.75)
  eq(c:get("dz.y"), 3)
  c:set_input("dz.u", 0.5)
  eq(c:get("dz.y"), 0)
  c:set_input("dz.u", -4)
  eq(c:get("dz.y"), -3)
  eq(c:get("mux.y"), { 1, 2, 3 })
  eq(c:get("sel.y"), { 8, 9 })
  eq(c:get("sw.y"), 1)
  c:set_input("sw.c", 0.2)
  eq(c:get("sw.y"), 2)
  -- clamped beyond the table, extrapolated from the last segment
  eq(c:get("lk.y"), 3)
  eq(c:get("lke.y"), 3.5)
  for _, case in ipairs({ { -1, 0, -2 }, { 0, 0, 0 }, { 0.5, 1, 1 }, { 1, 2, 2 }, { 2, 2.5, 2.5 }, { 3, 3, 3 } }) do
    c:set_input("lk.u", case[1])
    c:set_input("lke.u", case[1])
    near(c:get("lk.y"), case[2], { atol = 1e-15 })
    near(c:get("lke.y"), case[3], { atol = 1e-15 })
  end
end)

local loop = diagc.jit(dsl.diagram "blocks_lookup_loop" {
  system { "lk", blocks.lookup { x = { 0, 1, 3 }, y = { 0, 2, 3 } } },
  system { "i", blocks.integrator { x0 = 0.5 } },
  system { "g", blocks.gain { k = -1 } },
  dsl.connect { "i.y", "lk.u" }, dsl.connect { "lk.y", "g.u" }, dsl.connect { "g.y", "i.u" },
  log { "i.y", period = 1 },
})

test("blocks.lookup_slope", function()
  -- x' = -lookup(x): the slope of the segment x is on
  for _, case in ipairs({ { 0.5, -2 }, { 2, -0.5 } }) do
    local c = loop:context()
    c:set_state("i.z", case[1])
    local lin = c:linearize { mode = "first_order_taylor" }
    near(lin.A[1][1], case[2], { atol = 1e-14 })
  end
end)

-- PID: a constant error e = 1 (r = 1, y = 0)
local pid = diagc.jit(dsl.diagram "blocks_pid" {
  system { "c", blocks.pid { kp = 2, ki = 3, kd = 0.5, n = 20 } },
  system { "ideal", blocks.pid { form = "ideal", kp = 2, ti = 2 / 3, td = 0.25, n = 20 } },
  system { "none", blocks.pid { kp = 0.5, ki = 1, upper = 1, lower = -1, anti_windup = "none" } },
  system { "clamp", blocks.pid { kp = 0.5, ki = 1, upper = 1, lower = -1 } },
  system { "bc", blocks.pid { kp = 0.5, ki = 1, upper = 1, lower = -1, anti_windup = "back_calculation", kb = 4 } },
  system { "d", blocks.pid { kp = 2, ki = 3, period = 0.01 } },
  system { "w", blocks.pid { kp = 1, kd = 1, n = 10, b = 0.5, c = 0 } },
  fix_input { "c.r", value = { 1 } }, fix_input { "c.y", value = { 0 } },
  fix_input { "ideal.r", value = { 1 } }, fix_input { "ideal.y", value = { 0 } },
  fix_input { "none.r", value = { 1 } }, fix_input { "none.y", value = { 0 } },
  fix_input { "clamp.r", value = { 1 } }, fix_input { "clamp.y", value = { 0 } },
  fix_input { "bc.r", value = { 1 } }, fix_input { "bc.y", value = { 0 } },
  fix_input { "d.r", value = { 1 } }, fix_input { "d.y", value = { 0 } },
  fix_input { "w.r", value = { 1 } }, fix_input { "w.y", value = { 0 } },
  log { "c.u", period = 0.05 }, log { "ideal.u", period = 0.05 }, log { "d.u", period = 0.05 },
  log { "clamp.u", period = 0.05 }, log { "w.u", period = 0.05 },
})

test("blocks.pid", function()
  local sim = pid:simulator { accuracy = 1e-11 }
  sim:initialize()
  sim:advance_to(2)
  -- u = kp + ki t + kd n e^(-n t): the filtered derivative of a step
  local function law(t) return 2 + 3 * t + 0.5 * 20 * math.exp(-20 * t) end
  truthy(worst(sim, "c.u", law) < 1e-8, "parallel")
  truthy(worst(sim, "ideal.u", law) < 1e-8, "ideal")
  -- setpoint weights b = 0.5, c = 0: P acts on 0.5 r, D on -y only (0 here)
  truthy(worst(sim, "w.u", function() return 0.5 end) < 1e-12, "weights")
  -- the discrete law: u = 2 + 0.03 k after k updates; the logs fall on
  -- sample times, where the order of the log and the update is decided by
  -- the last bit of two equal times: k is t / 0.01 or one more
  local d = sim:log("d.u")
  for i, t in ipairs(d.t) do
    local k, j = (d.v[i] - 2) / 0.03, math.floor(t / 0.01 + 0.5)
    near(k, math.floor(k + 0.5), { atol = 1e-9 })
    truthy(math.floor(k + 0.5) == j or math.floor(k + 0.5) == j + 1, "updates " .. k .. " at t = " .. t)
  end
  -- windup: u = 0.5 + I reaches the limit 1 at t = 0.5; then I keeps
  -- growing without anti-windup (I = t), stops with clamping (0.5), and
  -- settles to 0.5 + 1/kb with back-calculation (I' = 3 - 4 I)
  local ctx = sim.context
  near(ctx:get("none.z")[1], 2, { rtol = 1e-9 })
  near(ctx:get("clamp.z")[1], 0.5, { rtol = 1e-9 })
  near(ctx:get("bc.z")[1], 0.75 - 0.25 * math.exp(-4 * 1.5), { rtol = 1e-9 })
  truthy(worst(sim, "clamp.u", function(t) return math.min(0.5 + t, 1) end) < 1e-8, "clamped output")
end)
