-- The leaf invalidation table: one cache entry per built-in ticket (and per
-- item ticket); each setter must stale exactly the entries Drake's
-- dependency tracking says it does (docs/generated-c-api.md, "Invalidation").
-- Expected sets are written out by hand from that table.
local dsl = diagc.dsl

local function entry(ticket)
  return dsl.cache_entry { "c_" .. ticket, size = 1, prerequisites = { ticket },
    calc = "c_" .. ticket .. "[0] = 1.0;" }
end

local tickets = { "nothing", "time", "accuracy", "q", "v", "z", "xc", "xd", "xa", "all_state",
  "pn", "pa", "all_parameters", "all_sources_except_input_ports", "all_input_ports",
  "all_sources", "configuration", "kinematics", "xcdot", "pe", "ke", "pc", "pnc",
  "xd_unique_periodic_update", "g1", "g2", "s1", "k1", "k2", "a1", "u1", "u2" }

local items = {
  dsl.c_preamble "typedef struct { int n; } counter_t;",
  dsl.continuous_state { q = 1, v = 1, z = 1 },
  dsl.discrete_state { "g1", default = { 0 } },
  dsl.discrete_state { "g2", default = { 0 } },
  dsl.abstract_state { "s1", type = "counter_t" },
  dsl.parameter { "k1", default = { 1 } },
  dsl.parameter { "k2", default = { 2 } },
  dsl.abstract_parameter { "a1", type = "counter_t" },
  dsl.input_port { "u1", size = 1 },
  dsl.input_port { "u2", size = 1 },
  dsl.derivatives { prerequisites = { "v" }, calc = "qdot[0] = v[0]; vdot[0] = 0; zdot[0] = 0;" },
  dsl.potential_energy { prerequisites = { "q" }, calc = "pe[0] = q[0];" },
  dsl.kinetic_energy { prerequisites = { "v" }, calc = "ke[0] = v[0];" },
  dsl.conservative_power { prerequisites = { "q", "v" }, calc = "pc[0] = q[0] * v[0];" },
  dsl.nonconservative_power { prerequisites = { "z" }, calc = "pnc[0] = z[0];" },
}
for _, t in ipairs(tickets) do items[#items + 1] = entry(t) end
-- a cache entry that depends on another cache entry
items[#items + 1] = dsl.cache_entry { "c_chain", size = 1, prerequisites = { "c_time" },
  calc = "c_chain[0] = c_time[0];" }

local L = dsl.leaf "Everything" (items)
local m = diagc.jit(dsl.diagram "inval" {
  dsl.system { "l", L },
  dsl.fix_input { "l.u1", value = { 0 } },
  dsl.export_input { "l.u2", as = "u" },
})

-- names of the entries staled by each setter (without the "l.c_" prefix for
-- ticket entries; built-in computed entries as "l.xcdot", "l.pe", ...)
local SRC = { "all_sources_except_input_ports", "all_sources" }
local function set(...)
  local s = {}
  for _, l in ipairs({ ... }) do
    for _, n in ipairs(type(l) == "table" and l or { l }) do s[n] = true end
  end
  return s
end
local STATE = { "all_state", "all_sources_except_input_ports", "all_sources" }
local CONF = { "configuration", "kinematics" }
local expected = {
  -- checklist 3: time stales only t, all_sources_except_input_ports, all_sources dependents
  ["t"] = set("time", SRC, "xd_unique_periodic_update", "chain"),
  ["accuracy"] = set("accuracy", SRC, CONF, "xd_unique_periodic_update"),
  -- checklist 4: a q write spares v-only dependents
  ["l.q"] = set("q", "xc", STATE, CONF, "l.pe", "l.pc", "pe", "pc", "xd_unique_periodic_update"),
  ["l.v"] = set("v", "xc", STATE, "kinematics", "l.xcdot", "l.ke", "l.pc", "xcdot", "ke", "pc",
    "xd_unique_periodic_update", ".xcdot", ".ke", ".pc"),
  -- checklist 1: z's subscribers are xc and configuration
  ["l.z"] = set("z", "xc", STATE, CONF, "l.pnc", "pnc", "xd_unique_periodic_update"),
  -- finer than Drake (#21162): a group stales only its own dependents
  ["l.g1"] = set("g1", "xd", STATE, CONF, "xd_unique_periodic_update"),
  ["l.g2"] = set("g2", "xd", STATE, CONF, "xd_unique_periodic_update"),
  ["l.k1"] = set("k1", "pn", "all_parameters", SRC, CONF, "xd_unique_periodic_update"),
  -- checklist 5: a fixed input stales only u and all_sources dependents
  ["l.u1"] = set("u1", "all_input_ports", "all_sources", "xd_unique_periodic_update"),
  ["u"] = set("u2", "all_input_ports", "all_sources", "xd_unique_periodic_update"),
}
-- the root diagram's own built-in entries follow the leaf's (up subscriptions)
expected["l.q"][".pe"] = true; expected["l.q"][".pc"] = true
expected["l.z"][".pnc"] = true

local function canonical(name)
  if name:match("^l%.c_") then return name:sub(5) end
  return name
end

-- the entries of Drake's table (the generated Jacobians, cache entries
-- too, have their own tests: tests/lua/jacobian_update_test.lua)
local all = {}
for _, n in ipairs(m:cache_names()) do
  if not n:match("^jac_") then all[#all + 1] = n end
end

local function stale_after(setter)
  local c = m:context()
  for _, n in ipairs(all) do c:try_eval(n) end
  setter(c)
  c:freeze(true)
  local out = {}
  for _, n in ipairs(all) do
    if c:try_eval(n) ~= 0 then out[canonical(n)] = true end
  end
  return out
end

local function diff(got, want)
  local extra, missing = {}, {}
  for k in pairs(got) do if not want[k] then extra[#extra + 1] = k end end
  for k in pairs(want) do if not got[k] then missing[#missing + 1] = k end end
  table.sort(extra); table.sort(missing)
  if #extra + #missing > 0 then
    error("staled but not expected: {" .. table.concat(extra, ", ") .. "}; expected but not staled: {"
      .. table.concat(missing, ", ") .. "}", 2)
  end
end

for _, src in ipairs({ "t", "accuracy", "l.q", "l.v", "l.z", "l.g1", "l.g2", "l.k1", "l.u1", "u" }) do
  test("leaf_table." .. src, function()
    diff(stale_after(function(c) c:set(src, 5) end), expected[src])
  end)
end

test("leaf_table.abstract_state", function()
  local v = require("ffi").new("int[1]", 7)
  diff(stale_after(function(c) c:set_abstract("l.s1", v) end),
    set("s1", "xa", STATE, CONF, "xd_unique_periodic_update"))
end)
test("leaf_table.abstract_parameter", function()
  local v = require("ffi").new("int[1]", 7)
  diff(stale_after(function(c) c:set_abstract("l.a1", v) end),
    set("a1", "pa", "all_parameters", SRC, CONF, "xd_unique_periodic_update"))
end)

-- checklist 8/16: eval of a valid value neither recomputes; a source change
-- does not stale the source's own value (sources have none); nothing never stales
test("leaf_table.nothing_never_stale", function()
  local c = m:context()
  c:eval("l.c_nothing")
  c:set("t", 1); c:set("l.q", 2); c:set("l.u1", 3); c:set("l.k1", 4)
  eq(c:counters("l.c_nothing").calcs, 1)
  eq(c:counters("l.c_nothing").invalidations, 0)
end)

test("leaf_table.hit_is_not_a_recompute", function()
  local c = m:context()
  c:eval("l.c_q"); c:eval("l.c_q"); c:eval("l.c_q")
  local k = c:counters("l.c_q")
  eq(k.evals, 3); eq(k.calcs, 1)
  c:set("l.v", 1)   -- spares q dependents
  c:eval("l.c_q")
  eq(c:counters("l.c_q").calcs, 1)
  c:set("l.q", 1)
  c:eval("l.c_q")
  eq(c:counters("l.c_q").calcs, 2)
  eq(c:counters("l.c_q").invalidations, 1)
end)

-- checklist 18: disabled caching recomputes every eval and keeps the flags
test("leaf_table.caching_off", function()
  local c = m:context()
  c:set_caching(false)
  c:eval("l.c_q"); c:eval("l.c_q")
  eq(c:counters("l.c_q").calcs, 2)
  c:set_caching(true)
  c:eval("l.c_q")           -- flag was kept valid: no recompute
  eq(c:counters("l.c_q").calcs, 2)
end)

-- checklist 19: a frozen cache reports stale reads, valid reads work
test("leaf_table.frozen", function()
  local c = m:context()
  c:eval("l.c_q")
  c:freeze(true)
  eq(c:try_eval("l.c_q"), 0)
  c:set("l.q", 3)           -- invalidation still applies
  eq(c:try_eval("l.c_q"), -10)  -- DIAGC_E_FROZEN
  c:freeze(false)
  eq(c:try_eval("l.c_q"), 0)
end)

-- checklist 15: a new context has every entry stale
test("leaf_table.new_context_all_stale", function()
  local c = m:context()
  c:freeze(true)
  for _, n in ipairs(all) do
    if c:try_eval(n) == 0 then error(n .. " is valid in a new context") end
  end
end)

-- checklist 20: clones are independent (memcpy of a pointer-free context)
test("leaf_table.clone_independent", function()
  local a = m:context()
  a:set("l.q", 1)
  eq(a:eval("l.pe"), 1)
  local b = a:clone()
  b:set("l.q", 2)
  eq(a:eval("l.pe"), 1)
  eq(b:eval("l.pe"), 2)
  eq(a:counters("l.pe").calcs, 1)
end)
