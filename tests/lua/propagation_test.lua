-- Diagram propagation: down (root time/state reach every subcontext),
-- up (child changes reach diagram composites), inputs wired to peers,
-- exported inputs and fixed values, nesting three deep, and suppression of
-- empty state kinds (a stateless or discrete-only leaf is not notified by
-- continuous-state changes).  Expected sets follow drake-semantics.md §1-2.
local dsl = diagc.dsl

-- A: continuous plant, output depends on q only
local A = dsl.leaf "A" {
  dsl.continuous_state { q = 1, v = 1 },
  dsl.derivatives { prerequisites = { "q", "v" }, calc = "qdot[0] = v[0]; vdot[0] = -q[0];" },
  dsl.output_port { "y", size = 1, prerequisites = { "q" }, calc = "y[0] = q[0];" },
}
-- B: discrete-only, entry on configuration (would be staled by q without suppression)
local B = dsl.leaf "B" {
  dsl.discrete_state { "x", default = { 1 } },
  dsl.input_port { "u", size = 1 },
  dsl.cache_entry { "conf", size = 1, prerequisites = { "configuration" }, calc = "conf[0] = x[0] + accuracy;" },
  dsl.output_port { "y", size = 1, prerequisites = { "xd", "u" }, calc = "y[0] = x[0] + u[0];" },
}
-- C: stateless feedthrough, with a kinematics entry (needs no state)
local C = dsl.leaf "C" {
  dsl.input_port { "u", size = 1 },
  dsl.input_port { "w", size = 1 },
  dsl.cache_entry { "kin", size = 1, prerequisites = { "kinematics" }, calc = "kin[0] = 2.0;" },
  dsl.cache_entry { "tm", size = 1, prerequisites = { "time" }, calc = "tm[0] = t;" },
  dsl.output_port { "y", size = 1, prerequisites = { "u", "w" }, calc = "y[0] = u[0] * w[0];" },
}
local Inner = dsl.diagram "inner" {         -- level 3
  dsl.system { "c", C },
  dsl.export_input { "c.u", as = "u" },
  dsl.fix_input { "c.w", value = { 3 } },
  dsl.export_output { "c.y", as = "y" },
}
local Middle = dsl.diagram "middle" {       -- level 2
  dsl.system { "b", B },
  dsl.system { "inner", Inner },
  dsl.export_input { "b.u", as = "u" },
  dsl.connect { "b.y", "inner.u" },
  dsl.export_output { "inner.y", as = "y" },
}
local m = diagc.jit(dsl.diagram "prop" {    -- level 1
  dsl.system { "a", A },
  dsl.system { "mid", Middle },
  dsl.connect { "a.y", "mid.u" },
  dsl.export_output { "mid.y", as = "out" },
})

local all = m:cache_names()
local function stale_after(fn)
  local c = m:context()
  for _, n in ipairs(all) do c:try_eval(n) end
  fn(c)
  c:freeze(true)
  local out = {}
  for _, n in ipairs(all) do if c:try_eval(n) ~= 0 then out[#out + 1] = n end end
  table.sort(out)
  return table.concat(out, " ")
end
local function want(list) table.sort(list); return table.concat(list, " ") end

test("values.three_levels", function()
  local c = m:context()
  c:set("a.q", 2)
  eq(c:get("out"), (2 + 1) * 3)          -- (q + x) * w through two levels of export
  c:set("mid.b.x", 5)
  eq(c:get("out"), (2 + 5) * 3)
  c:set("mid.inner.c.w", 10)
  eq(c:get("out"), 70)
  near(c:derivatives(), { 0, -2 })
end)

test("down.time_reaches_every_subcontext", function()
  -- only the time-dependent entry, three levels down
  eq(stale_after(function(c) c:set("t", 1) end), want { "mid.inner.c.tm" })
end)

test("down.accuracy", function()
  -- configuration and kinematics include accuracy, in every leaf
  eq(stale_after(function(c) c:set("accuracy", 1e-3) end), want { "mid.b.conf", "mid.inner.c.kin" })
end)

test("suppression.q_does_not_reach_stateless_leaves", function()
  -- root q change: A's entries, and what its output drives downstream; B's
  -- configuration entry and C's kinematics entry are spared (no q in B, C)
  eq(stale_after(function(c) c:set("a.q", 1) end),
    want { "a.y", "a.xcdot", ".xcdot", "mid.b.y", "mid.inner.c.y", "jac_xc", "jac_lin" })
end)

test("suppression.bulk_xc", function()
  eq(stale_after(function(c) m.desc.set_xc(c.ptr, require("ffi").new("double[2]", { 1, 2 })) end),
    want { "a.y", "a.xcdot", ".xcdot", "mid.b.y", "mid.inner.c.y", "jac_xc", "jac_lin" })
end)

test("up.discrete_change_in_level2", function()
  -- B's own entries and downstream through the port into level 3; A untouched
  -- (the generated d(xcdot, out)/d(xc, u), jac_lin, reads the exported out)
  eq(stale_after(function(c) c:set("mid.b.x", 1) end), want { "mid.b.conf", "mid.b.y", "mid.inner.c.y", "jac_lin" })
end)

test("fixed_input.level3", function()
  eq(stale_after(function(c) c:set("mid.inner.c.w", 1) end), want { "mid.inner.c.y", "jac_lin" })
end)

test("no_upstream_invalidation", function()
  -- checklist 7: changing a downstream value never stales upstream entries
  local s = stale_after(function(c) c:set("mid.inner.c.w", 1) end)
  truthy(not s:find("a.y", 1, true))
  truthy(not s:find("mid.b.y", 1, true))
end)

test("whole_state", function()
  eq(stale_after(function(c)
    local st = require("ffi").new("uint8_t[?]", tonumber(m.desc.state_size))
    m.desc.set_state(c.ptr, st)
  end), want { "a.y", "a.xcdot", ".xcdot", "mid.b.conf", "mid.b.y", "mid.inner.c.y", "jac_xc", "jac_lin" })
end)

test("everything_notifies_each_owner_once", function()
  local ffi = require("ffi")
  local f = ffi.cast("void (*)(void *, const void *)", m:symbol("prop_set_everything"))
  local src = m:context()
  local c = m:context()
  for _, n in ipairs(all) do c:try_eval(n) end
  local before = c:counters("mid.inner.c.y").invalidations
  f(c.ptr, src.ptr)
  eq(c:counters("mid.inner.c.y").invalidations - before, 1)
  -- everything that reads a source; the xcdot of diagrams without
  -- continuous state below them can never change
  eq(stale_after(function(cc) f(cc.ptr, src.ptr) end), want { "a.y", "a.xcdot", ".xcdot",
    "mid.b.conf", "mid.b.y", "mid.inner.c.kin", "mid.inner.c.tm", "mid.inner.c.y", "jac_xc", "jac_lin" })
end)
