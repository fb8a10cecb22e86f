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
