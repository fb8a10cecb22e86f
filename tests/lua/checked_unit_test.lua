-- The system compiler (jit.lua's check at -std=c99 -Wall -Wextra -Werror
-- -pedantic) reads only the functions that hold the spec's C: one calc
-- function per leaf type and calc, and the init function (coder/emit.lua,
-- the checked unit).  Its size follows the number of leaf types, not the
-- number of systems, so a large diagram of few types is checked as fast as
-- a small one; and an error in a calc body is still reported at its line.
local dsl = diagc.dsl

local function chain(n)
  local Lag = dsl.leaf "Lag" {
    dsl.continuous_state { z = 1 },
    dsl.parameter { "tau", default = { 0.5 } },
    dsl.input_port { "u", size = 1 },
    dsl.derivatives { prerequisites = { "z", "u", "tau" }, calc = "zdot[0] = (u[0] - z[0]) / tau[0];" },
    dsl.output_port { "y", size = 1, prerequisites = { "z" }, calc = "y[0] = z[0];" },
  }
  local items = {}
  for i = 1, n do items[#items + 1] = dsl.system { "s" .. i, Lag } end
  for i = 1, n - 1 do items[#items + 1] = dsl.connect { "s" .. i .. ".y", "s" .. (i + 1) .. ".u" } end
  items[#items + 1] = dsl.fix_input { "s1.u", value = { 1 } }
  return dsl.diagram("chain" .. n)(items)
end

local function count(text, pat)
  local n = 0
  for _ in text:gmatch(pat) do n = n + 1 end
  return n
end

test("checked_unit.follows_leaf_types_not_systems", function()
  local small, large = diagc.jit(chain(2)).gen, diagc.jit(chain(400)).gen
  -- two calcs of one leaf type and their two local Jacobians
  -- (coder/jacobian.lua), referenced once each, in both
  eq(count(small.checked_source, "\nstatic int "), 4)
  eq(count(large.checked_source, "\nstatic int "), 4)
  eq(count(large.checked_source, "\nstatic int [%w_]+_jac%("), 2)
  eq(count(large.checked_source, "%(void %(%*%)%(void%)%)"), 4)
  -- the large model's source grows with its systems; the checked unit
  -- only by its default-value arrays (one number per state and parameter)
  truthy(#large.source > 50 * #large.checked_source,
    string.format("source %d bytes, checked unit %d bytes", #large.source, #large.checked_source))
end)

test("checked_unit.large_model_runs", function()
  -- z' = (u - z)/tau with u = 1 from 0: the first lag's z(t) = 1 - e^(-t/tau)
  local m = diagc.jit(chain(400))
  local sim = m:simulator({ accuracy = 1e-8 })
  sim:advance_to(1.0)
  near(sim.context:get("s1.y"), 1 - math.exp(-2), { atol = 1e-6 })
end)

test("checked_unit.strict_error_in_large_model_at_spec_line", function()
  -- an unused local is legal for TinyCC; the system compiler rejects it
  local Bad = dsl.leaf "Bad" {
    dsl.output_port { "y", size = 1, prerequisites = { "nothing" }, calc = "int unused; y[0] = 1.0;" },
  }
  local items = {}
  for i = 1, 300 do items[#items + 1] = dsl.system { "b" .. i, Bad } end
  local ok, err = pcall(diagc.jit, dsl.diagram "bad" (items))
  truthy(not ok, "the model was accepted")
  local msg = tostring(err)
  truthy(msg:find("checked_unit_test.lua:%d+") and msg:find("unused"), msg)
end)
