-- Long eval paths and long schedules (issue #15 item 6): a feedthrough chain
-- longer than several path segments, with side inputs, a calc that can fail
-- and continuous lags (so the root's xcdot runs a schedule of many parts).
-- Checks the exact eval/calc counts of a lazy eval along the chain (only
-- stale entries are computed, each once), caching on versus off bit for bit
-- under random mutations, DIAGC_E_FROZEN and DIAGC_E_CALC in mid-chain.
local dsl = diagc.dsl

-- Lags break the chain: the paths are tap.y, s1.y .. s139.y, s140.xcdot
-- (141 entries: three segments of at most 64 steps), s140.y .. s280.xcdot
-- (141) and s280.y .. s300.y; the root's xcdot schedule reads all of them.
local N = 300
local LAG_EVERY = 140
local E_FROZEN, E_CALC = -10, -11  -- DIAGC_E_FROZEN, DIAGC_E_CALC (runtime/include/diagc/status.h)

local Add = dsl.leaf "Add" {
  dsl.parameter { "b", default = { 0.001 } },
  dsl.input_port { "u", size = 1 },
  dsl.input_port { "w", size = 1 },
  dsl.output_port { "y", size = 1, prerequisites = { "u", "w", "b" },
    calc = [[ if (b[0] < -1.0) return 1;
              y[0] = u[0] + b[0] + 0.5 * w[0]; ]] },
}
local Tap = dsl.leaf "Tap" {
  dsl.parameter { "k", default = { 0.25 } },
  dsl.output_port { "y", size = 1, prerequisites = { "k" }, calc = "y[0] = k[0];" },
}
local Lag = dsl.leaf "Lag" {
  dsl.continuous_state { z = 1 },
  dsl.parameter { "tau", default = { 0.5 } },
  dsl.input_port { "u", size = 1 },
  dsl.derivatives { prerequisites = { "z", "u", "tau" }, calc = "zdot[0] = (u[0] - z[0]) / tau[0];" },
  dsl.output_port { "y", size = 1, prerequisites = { "z" }, calc = "y[0] = z[0];" },
}

local function name(i) return "s" .. i end
local function is_lag(i) return i % LAG_EVERY == 0 end

local function build(n)
  local items = { dsl.system { "tap", Tap } }
  for i = 1, n do items[#items + 1] = dsl.system { name(i), is_lag(i) and Lag or Add } end
  for i = 1, n - 1 do items[#items + 1] = dsl.connect { name(i) .. ".y", name(i + 1) .. ".u" } end
  for i = 1, n do
    if not is_lag(i) then items[#items + 1] = dsl.connect { "tap.y", name(i) .. ".w" } end
  end
  items[#items + 1] = dsl.export_input { "s1.u", as = "u" }
  items[#items + 1] = dsl.export_output { name(n) .. ".y", as = "y" }
  return dsl.diagram "longpath" (items)
end

local model
local function M()
  model = model or diagc.jit(build(N), { prefix = "longpath" })
  return model
end

local function calcs(c, i) return c:counters(name(i) .. ".y").calcs end
local function evals(c, i) return c:counters(name(i) .. ".y").evals end

local function snapshot(c, f)
  local t = {}
  for i = 1, N do t[i] = f(c, i) end
  return t
end

-- after the input changes, an eval of s<k>.y (k before the first lag)
-- computes s1.y .. s<k>.y once each; each step evaluates its predecessor
-- once, and the call itself evaluates s<k>.y
test("long_paths.counts_after_input", function()
  local c = M():context()
  c:eval("y")
  for _, k in ipairs({ 1, 2, 62, 63, 64, 65, 100, 127, 128, 129, LAG_EVERY - 1 }) do
    c:set("u", { 0.5 * k })
    local before_c, before_e = snapshot(c, calcs), snapshot(c, evals)
    c:eval(name(k) .. ".y")
    for i = 1, N do
      local want = i <= k and 1 or 0
      eq(calcs(c, i) - before_c[i], want, string.format("eval s%d.y: calcs of s%d.y", k, i))
      eq(evals(c, i) - before_e[i], want, string.format("eval s%d.y: evals of s%d.y", k, i))
    end
    c:eval("y")
  end
end)

-- after a parameter of s<m> changes, an eval of the output just before the
-- next lag (whose output reads its state only) computes s<m>.y up to it
test("long_paths.counts_after_parameter", function()
  local c = M():context()
  for i = 1, N do c:eval(name(i) .. ".y") end
  for _, m in ipairs({ 2, 64, 65, 90, 127, 128, 139, 141, 204, 205, 268, 279, 281, N - 1, N }) do
    c:set(name(m) .. ".b", { 0.01 * m })
    local before = snapshot(c, calcs)
    local stop = N + 1
    for i = N, m, -1 do if is_lag(i) then stop = i end end
    c:eval(name(stop - 1) .. ".y")
    for i = 1, N do
      local want = (i >= m and i < stop) and 1 or 0
      eq(calcs(c, i) - before[i], want, string.format("set s%d.b: calcs of s%d.y", m, i))
    end
  end
end)

test("long_paths.frozen_and_failing_calc", function()
  local c = M():context()
  c:eval("s139.y")
  c:set("s100.b", { 0.2 })
  c:freeze(true)
  eq(c:try_eval("s99.y"), 0)              -- up to date: reads fine
  eq(c:try_eval("s100.y"), E_FROZEN)
  eq(c:try_eval("s130.y"), E_FROZEN)
  c:freeze(false)
  c:set("s70.b", { -2 })                  -- s70's calc fails
  local before = snapshot(c, calcs)
  eq(c:try_eval("s130.y"), E_CALC)
  -- s100 .. s130 were stale too, but the steps stop at the failing one
  for i = 1, N do eq(calcs(c, i) - before[i], 0, "a failed eval computes nothing: s" .. i) end
  c:set("s70.b", { 0.3 })
  c:eval("y")
  local before2 = snapshot(c, calcs)
  c:eval("y")
  c:eval("s5.y")
  for i = 1, N do eq(calcs(c, i) - before2[i], 0, "an up-to-date chain is not recomputed: s" .. i) end
end)

-- a calc failing after some steps of a segment ran: the steps done stay
-- done (their valid bits are set), the rest stays stale
test("long_paths.failing_calc_mid_segment", function()
  local c = M():context()
  c:eval("s139.y")
  c:set("s63.b", { 0.5 })                 -- last step of segment 0
  c:set("s66.b", { -2 })                  -- third step of segment 1 fails
  local before = snapshot(c, calcs)
  eq(c:try_eval("s100.y"), E_CALC)
  for i = 1, N do
    eq(calcs(c, i) - before[i], (i >= 63 and i <= 65) and 1 or 0, "up to the failure: s" .. i)
  end
  c:set("s66.b", { 0.25 })
  local before2 = snapshot(c, calcs)
  c:eval("s100.y")
  for i = 1, N do
    eq(calcs(c, i) - before2[i], (i >= 66 and i <= 100) and 1 or 0, "after the fix: s" .. i)
  end
end)

test("long_paths.caching_on_off_identical", function()
  local m = M()
  local A, B = m:context(), m:context()
  B:set_caching(false)
  local s = 12345
  local function r(a, b)
    s = (s * 1103515245 + 12345) % 2147483648
    return a + s % (b - a + 1)
  end
  for step = 1, 300 do
    local x = r(1, 10)
    if x <= 3 then
      local v = { r(-100, 100) / 64 }
      A:set("u", v); B:set("u", v)
    elseif x <= 5 then
      local i = r(1, N)
      local p = is_lag(i) and (name(i) .. ".tau") or (name(i) .. ".b")
      local v = { r(1, 100) / 32 }
      A:set(p, v); B:set(p, v)
    elseif x == 6 then
      local v = { r(-50, 50) / 16 }
      A:set("tap.k", v); B:set("tap.k", v)
    elseif x == 7 then
      local da, db = A:derivatives(), B:derivatives()
      for k = 1, #db do eq(da[k], db[k], "step " .. step .. ": derivative " .. k) end
    else
      local n = name(r(1, N)) .. ".y"
      eq(A:eval(n), B:eval(n), "step " .. step .. ": " .. n)
    end
  end
  local ca, cb = 0, 0
  for i = 1, N do ca = ca + calcs(A, i); cb = cb + calcs(B, i) end
  if not (ca < cb) then error(string.format("caching skipped nothing: %d vs %d calcs", ca, cb)) end
end)
