-- Scoping: a calc sees exactly what its prerequisites grant; reading
-- anything else is an error naming the value.  Algebraic loops through
-- direct-feedthrough ports are errors that print the cycle.
local dsl = diagc.dsl

local function model_with(calc_prereqs, body, extra)
  local items = {
    dsl.discrete_state { "x", default = { 1 } },
    dsl.parameter { "k", default = { 2 } },
    dsl.input_port { "u", size = 1 },
    dsl.cache_entry { "c", size = 1, prerequisites = { "k" }, calc = "c[0] = k[0];" },
    dsl.output_port { "y", size = 1, prerequisites = calc_prereqs, calc = body },
  }
  for _, it in ipairs(extra or {}) do items[#items + 1] = it end
  return dsl.diagram "scope" { dsl.system { "s", dsl.leaf "S" (items) }, dsl.fix_input { "s.u", value = { 3 } } }
end

test("scope.time_needs_time_ticket", function()
  local msg = expect_error(function() diagc.jit(model_with({ "k" }, "y[0] = t;")) end, "reads 't' (time)")
  truthy(msg:find('add "time"', 1, true), msg)
end)
test("scope.group_needs_its_ticket_or_xd", function()
  expect_error(function() diagc.jit(model_with({ "k" }, "y[0] = x[0];")) end,
    "reads 'x' (discrete state 'x'), which its prerequisites {k} do not grant; add \"x\" or \"xd\"")
end)
test("scope.input_needs_u", function()
  expect_error(function() diagc.jit(model_with({ "x" }, "y[0] = u[0];")) end, "add \"u\" or \"all_input_ports\"")
end)
test("scope.cache_entry_only_when_listed", function()
  -- all_sources does not grant cache entries
  expect_error(function() diagc.jit(model_with(nil, "y[0] = c[0];")) end, "reads 'c' (cache entry 'c')")
  local m = diagc.jit(model_with({ "c", "u" }, "y[0] = c[0] * u[0];"))
  eq(m:context():get("s.y"), 6)
end)
test("scope.nothing_grants_nothing", function()
  expect_error(function() diagc.jit(model_with({ "nothing" }, "y[0] = k[0];")) end, "reads 'k'")
  local m = diagc.jit(model_with({ "nothing" }, "y[0] = 42.0;"))
  eq(m:context():get("s.y"), 42)
end)
test("scope.all_sources_default_grants_everything_but_caches", function()
  local m = diagc.jit(model_with(nil, "y[0] = t + x[0] + k[0] + u[0] + accuracy * 0.0;"))
  local c = m:context()
  c:set("t", 10)
  eq(c:get("s.y"), 16)
end)
test("scope.member_access_is_not_a_read", function()
  -- a struct member named like a value ('.x', '->k') is not a read of it
  local m = diagc.jit(model_with({ "nothing" },
    "struct { double x; double k; } s_; s_.x = 1; s_.k = 2; y[0] = s_.x + s_.k;"))
  eq(m:context():get("s.y"), 3)
end)
test("scope.c_errors_point_at_the_spec", function()
  local msg = expect_error(function() diagc.jit(model_with({ "k" }, "y[0] = undefined_fn_(k[0]) +;")) end,
    "tests/lua/scope_loops_test.lua:")
  truthy(msg:find("C error", 1, true), msg)
end)

local Pass = dsl.leaf "Pass" {
  dsl.input_port { "u", size = 1 },
  dsl.output_port { "y", size = 1, prerequisites = { "u" }, calc = "y[0] = u[0];" },
}
local Hold = dsl.leaf "Hold" {
  dsl.discrete_state { "x", default = { 0 } },
  dsl.input_port { "u", size = 1 },
  dsl.output_port { "y", size = 1, prerequisites = { "x" }, calc = "y[0] = x[0];" },
}

test("loops.feedthrough_cycle_is_an_error", function()
  expect_error(function()
    diagc.jit(dsl.diagram "loop" {
      dsl.system { "a", Pass }, dsl.system { "b", Pass },
      dsl.connect { "a.y", "b.u" }, dsl.connect { "b.y", "a.u" },
    })
  end, "algebraic loop through direct-feedthrough ports: a.y → b.u → b.y → a.u → a.y")
end)
test("loops.through_nested_diagrams", function()
  local Wrap = dsl.diagram "wrap" {
    dsl.system { "p", Pass }, dsl.export_input { "p.u", as = "u" }, dsl.export_output { "p.y", as = "y" },
  }
  expect_error(function()
    diagc.jit(dsl.diagram "loop2" {
      dsl.system { "a", Wrap }, dsl.system { "b", Pass },
      dsl.connect { "a.y", "b.u" }, dsl.connect { "b.y", "a.u" },
    })
  end, "a.p.y → b.u → b.y → a.p.u → a.p.y")
end)
test("loops.state_breaks_the_loop", function()
  local m = diagc.jit(dsl.diagram "noloop" {
    dsl.system { "a", Pass }, dsl.system { "h", Hold },
    dsl.connect { "a.y", "h.u" }, dsl.connect { "h.y", "a.u" },
  })
  local c = m:context()
  c:set("h.x", 4)
  eq(c:get("a.y"), 4)
end)
test("loops.cache_entry_cycle", function()
  expect_error(function()
    diagc.jit(dsl.diagram "cyc" { dsl.system { "s", dsl.leaf "Cyc" {
      dsl.cache_entry { "a", size = 1, prerequisites = { "b" }, calc = "a[0] = b[0];" },
      dsl.cache_entry { "b", size = 1, prerequisites = { "a" }, calc = "b[0] = a[0];" },
      dsl.output_port { "y", size = 1, prerequisites = { "nothing" }, calc = "y[0] = 0;" },
    } } })
  end, "cycle of cache entries")
end)
