-- The periodic updates' Jacobians (coder/jacobian_update.lua: d x+ /
-- d(xc, xd, u) per timing, for any model) and the generated Jacobians as
-- cache entries (coder/jacobian_cache.lua): against central differences
-- of the update itself (testing/linear.lua: the state or input perturbed,
-- the timing's handlers and applies run through the descriptor), with
-- exact patterns where they are known and every nonzero differences find
-- inside the pattern elsewhere; hybrid_controller (two periods), offsets,
-- random hybrid diagrams, caching on and off, the counters of the Jacobian
-- entries, the descriptor's cache table, diagc graph.
local dsl = diagc.dsl
local ffi = require("ffi")
local rng = dofile("tests/lua/fuzz_rng.lua")

local RTOL, ATOL = 1e-6, 1e-8

-- J (generated) against F (differences), and every nonzero of F in the
-- pattern; exact: the pattern is exactly the set of entries given
local function check(r, f, what, exact)
  local inpat = {}
  for _, p in ipairs(r.pattern) do inpat[p[1] .. "," .. p[2]] = true end
  for i = 1, #r.rows do
    for j = 1, #r.cols do
      local g, d = r.J[i][j], f.J[i][j]
      if math.abs(g - d) > ATOL + RTOL * math.max(math.abs(g), math.abs(d)) then
        error(string.format("%s: d %s+ / d %s: generated %.17g, differences %.17g", what, r.rows[i], r.cols[j], g, d), 2)
      end
      if math.abs(d) > 1e-9 and not inpat[i .. "," .. j] then
        error(string.format("%s: d %s+ / d %s = %g is outside the pattern", what, r.rows[i], r.cols[j], d), 2)
      end
    end
  end
  if exact then
    local want = {}
    for _, e in ipairs(exact) do want[#want + 1] = e[1] .. "+/" .. e[2] end
    local got = {}
    for _, p in ipairs(r.pattern) do got[#got + 1] = r.rows[p[1]] .. "+/" .. r.cols[p[2]] end
    table.sort(want); table.sort(got)
    eq(got, want, what .. ": pattern")
  end
end

-- every total derivative a Jacobian function defines is used (an unused
-- one fails gcc -Wall -Werror: examples/thermostat.lua did)
local function no_dead_locals(m)
  for body in m.gen.source:gmatch("static int [%w_]+__jac_[%w_]+_calc%(.-\n}\n") do
    for d in body:gmatch("const double (d%d+) =") do
      local _, n = body:gsub("%f[%w]" .. d .. "%f[^%w]", "")
      if n < 2 then error("unused " .. d .. " in\n" .. body, 2) end
    end
  end
end

local function hybrid()
  return diagc.jit(diagc.root .. "/examples/hybrid_controller.lua")
end

test("update_jacobian.hybrid_controller_two_periods", function()
  local m = hybrid()
  local c = m:context()
  c:set_state("plant.x", 0.7)
  c:set("controller.gain", 3.5)
  eq(m.desc.n_jac_updates, 2)
  local g = c:update_jacobian { period = 0.01 }
  eq(g.name, "jac_update0")
  eq(g.rows, { "plant.x", "controller.u", "controller.ticks", "supervisor.setpoint", "supervisor.ticks" })
  eq(g.cols, g.rows)     -- no exported input
  -- u+ = gain (r - y): d/d plant.x = -gain, d/d setpoint = gain; the rest keeps its value
  check(g, c:update_jacobian { period = 0.01, jacobian = "fd" }, "100 Hz", {
    { "plant.x", "plant.x" }, { "controller.u", "plant.x" }, { "controller.u", "supervisor.setpoint" },
    { "controller.ticks", "controller.ticks" }, { "supervisor.setpoint", "supervisor.setpoint" },
    { "supervisor.ticks", "supervisor.ticks" } })
  near(g.J[2][1], -3.5, { rtol = 1e-15 })
  near(g.J[2][4], 3.5, { rtol = 1e-15 })
  -- the supervisor's setpoint+ is a constant (1 or 0.5): its row is empty
  local s = c:update_jacobian { period = 0.1 }
  eq(s.name, "jac_update1")
  check(s, c:update_jacobian { period = 0.1, jacobian = "fd" }, "10 Hz", {
    { "plant.x", "plant.x" }, { "controller.u", "controller.u" }, { "controller.ticks", "controller.ticks" },
    { "supervisor.ticks", "supervisor.ticks" } })
  local msg = expect_error(function() c:update_jacobian() end)
  truthy(msg:find("several periodic update timings", 1, true), msg)
end)

-- a leaf with continuous and discrete state, an input, an offset and a
-- group the update leaves partly unassigned
local function offset_model(unrestricted)
  local L = dsl.leaf "Mixed" {
    dsl.continuous_state { z = { "a", "b" }, z0 = { 0.2, -0.4 } },
    dsl.discrete_state { "d", size = 2, default = { 0.5, 1.5 } },
    dsl.discrete_state { "e", size = 1, default = { 0.25 } },
    dsl.parameter { "k", default = { 1.3 } },
    dsl.input_port { "u", size = 1 },
    dsl.derivatives { prerequisites = { "z", "xd", "u" }, calc = [[
      zdot[0] = -z[0] + d[0] * u[0];
      zdot[1] = sin(z[0]) - e[0];
    ]] },
    dsl.output_port { "y", size = 1, prerequisites = { "z", "xd" }, calc = "y[0] = z[1] * d[1];" },
    dsl.periodic_discrete_update { "sample", period = 0.2, offset = 0.05, prerequisites = { "z", "xd", "k", "u" },
      calc = [[
        d_next[0] = k[0] * tanh(z[0] * u[0]) + exp(-d[1]);
        e_next[0] = e[0] * z[1] + hypot(d[0], 1.0);
      ]] },
    unrestricted and dsl.periodic_unrestricted_update { "reset", period = 0.2, offset = 0.05,
      prerequisites = { "xd" }, calc = "(void)d;" } or nil,
  }
  return dsl.diagram "mixed" {
    dsl.system { "m", L },
    dsl.export_input { "m.u", as = "u" },
    dsl.export_output { "m.y", as = "y" },
  }
end

test("update_jacobian.offset_input_unassigned_elements", function()
  local m = diagc.jit(offset_model())
  local c = m:context()
  c:set_input("u", 0.8)
  c:set_state("m.a", 0.3)
  local g = c:update_jacobian()
  eq({ g.period, g.offset }, { 0.2, 0.05 })
  eq(g.cols, { "m.a", "m.b", "m.d[0]", "m.d[1]", "m.e", "u" })
  -- d[1] is left unassigned: an identity row; xc rows are identities
  check(g, c:update_jacobian { jacobian = "fd" }, "mixed", {
    { "m.a", "m.a" }, { "m.b", "m.b" },
    { "m.d[0]", "m.a" }, { "m.d[0]", "u" }, { "m.d[0]", "m.d[1]" },
    { "m.d[1]", "m.d[1]" },
    { "m.e", "m.e" }, { "m.e", "m.b" }, { "m.e", "m.d[0]" } })
  local t = math.tanh(0.3 * 0.8)
  near(g.J[3][1], 1.3 * (1 - t * t) * 0.8, { rtol = 1e-14 })
  near(g.J[3][6], 1.3 * (1 - t * t) * 0.3, { rtol = 1e-14 })
end)

test("update_jacobian.unrestricted_same_timing_has_none", function()
  local m = diagc.jit(offset_model(true))
  eq(m.desc.n_jac_updates, 1)
  truthy(m.desc.jac_updates[0].jac == nil)
  truthy(not m.gen.header:find("HAS_JAC_UPDATE0 1", 1, true))
  truthy(m.gen.header:find("the unrestricted update m.reset has the same timing", 1, true))
  local msg = expect_error(function() m:context():update_jacobian() end)
  truthy(msg:find("was not generated", 1, true), msg)
end)

test("update_jacobian.no_jacobian_option", function()
  local gen = diagc.compile(diagc.root .. "/examples/hybrid_controller.lua", { no_jacobian = true })
  truthy(gen.header:find("#define HYBRID_CONTROLLER_HAS_JAC_UPDATE0 0", 1, true))
  truthy(not gen.source:find("hybrid_controller_jac_update0(", 1, true))
end)

-- a purely discrete model: the update Jacobian's xd block is linearize's A
test("update_jacobian.discrete_matches_linearize", function()
  local H = 0.1
  local DI = dsl.leaf "Sampled" {
    dsl.discrete_state { "x", size = 2, default = { 0.2, -0.1 } },
    dsl.input_port { "u", size = 1 },
    dsl.output_port { "pos", size = 1, prerequisites = { "xd" }, calc = "pos[0] = x[0];" },
    dsl.periodic_discrete_update { "step", period = H, prerequisites = { "xd", "u" }, calc = [[
      x_next[0] = x[0] + 0.1 * sin(x[1]) + 0.005 * u[0];
      x_next[1] = x[1] * cos(x[0]) + 0.1 * u[0]; ]] },
  }
  local m = diagc.jit(dsl.diagram "di" { dsl.system { "s", DI }, dsl.export_input { "s.u", as = "u" },
    dsl.export_output { "s.pos", as = "pos" } })
  local c = m:context()
  c:set_input("u", 0.3)
  local g = c:update_jacobian()
  check(g, c:update_jacobian { jacobian = "fd" }, "discrete")
  local r = c:linearize { mode = "first_order_taylor" }
  for i = 1, 2 do
    near({ g.J[i][1], g.J[i][2] }, r.A[i], { rtol = 1e-15 })
    near(g.J[i][3], r.B[i][1], { rtol = 1e-15 })
  end
  -- jac_lin's rows are x[n+1] (the update's prerequisites: xd, u) and the
  -- output pos (xd): the time reaches neither, the input both
  local lin0, up0 = c:counters("jac_lin").calcs, c:counters("jac_update0").calcs
  c:set("t", 0.7)
  c:eval("jac_lin"); c:eval("jac_update0")
  eq({ c:counters("jac_lin").calcs, c:counters("jac_update0").calcs }, { lin0, up0 })
  c:set_input("u", -0.2)
  c:eval("jac_lin"); c:eval("jac_update0")
  eq({ c:counters("jac_lin").calcs, c:counters("jac_update0").calcs }, { lin0 + 1, up0 + 1 })
end)

------------------------------------------------------------------------
-- random hybrid diagrams: a chain of leaves, each with (or without)
-- continuous state, one or two discrete groups, a parameter, an input from
-- the previous leaf (the first: the exported input; it has continuous state), a state-only output,
-- derivatives, and a periodic update of one of two periods (one with an
-- offset) whose body draws smooth functions, branches on the time (no
-- kinks in the columns), and may leave elements unassigned

local FNS = { "sin(%s)", "cos(%s)", "tanh(%s)", "exp(-0.5 * %s * %s)", "atan(%s)", "sqrt(1.0 + %s * %s)",
  "hypot(%s, 0.5)", "pow(1.5 + sin(%s), 2.0)", "(%s) * (%s)", "(%s) / (2.0 + cos(%s))" }

local function term(r, vars)
  local a, b = vars[r(1, #vars)], vars[r(1, #vars)]
  local f = FNS[r(1, #FNS)]
  local _, n = f:gsub("%%s", "")
  return n == 1 and string.format(f, a) or string.format(f, a, b)
end

local function expr(r, vars)
  local t = { string.format("%.3f", r() * 2 - 1) }
  for _ = 1, r(1, 3) do t[#t + 1] = string.format("%.3f * %s", r() * 2 - 1, term(r, vars)) end
  return table.concat(t, " + ")
end

local PERIODS = { { 0.1, 0 }, { 0.25, 0.05 } }

local function random_leaf(r, i)
  local nz, nd, two = i == 1 and r(1, 2) or r(0, 2), r(1, 2), r() < 0.5
  local vars = { "u[0]", "k[0]" }
  local zs = {}
  for j = 1, nz do zs[j] = "s" .. j; vars[#vars + 1] = "z[" .. (j - 1) .. "]" end
  for j = 0, nd - 1 do vars[#vars + 1] = "d[" .. j .. "]" end
  if two then vars[#vars + 1] = "e[0]" end
  local items = {
    dsl.discrete_state { "d", size = nd, default = (function()
      local v = {}
      for j = 1, nd do v[j] = r() * 2 - 1 end
      return v
    end)() },
    dsl.parameter { "k", default = { 0.5 + r() } },
    dsl.input_port { "u", size = 1 },
    dsl.output_port { "y", size = 1, prerequisites = { "all_state" },
      calc = "y[0] = " .. expr(r, { nz > 0 and "z[0]" or "d[0]", "d[0]" }) .. ";" },
  }
  if two then items[#items + 1] = dsl.discrete_state { "e", size = 1, default = { r() } } end
  if nz > 0 then
    local z0 = {}
    for j = 1, nz do z0[j] = r() - 0.5 end
    items[#items + 1] = dsl.continuous_state { z = zs, z0 = z0 }
    local body = {}
    for j = 0, nz - 1 do body[#body + 1] = string.format("zdot[%d] = %s;", j, expr(r, vars)) end
    items[#items + 1] = dsl.derivatives { prerequisites = { "all_state", "k", "u" }, calc = table.concat(body, "\n") }
  end
  -- sometimes the update reads its input only in a comparison: the
  -- input's total derivatives are then dead code (left out)
  local uvars, sign = vars, ""
  if r() < 0.3 then
    uvars, sign = {}, "(u[0] > 0.0 ? 0.25 : -0.25) + "
    for _, v in ipairs(vars) do if v ~= "u[0]" then uvars[#uvars + 1] = v end end
  end
  vars = uvars
  local body = {}
  for j = 0, nd - 1 do
    if r() < 0.8 then   -- else d_next[j] keeps d[j]
      if r() < 0.4 then
        body[#body + 1] = string.format("if (t > 0.35) d_next[%d] = %s;\nelse d_next[%d] = %s;",
          j, expr(r, vars), j, expr(r, vars))
      else
        body[#body + 1] = string.format("d_next[%d] = %s;", j, expr(r, vars))
      end
    end
  end
  if two and r() < 0.7 then body[#body + 1] = "e_next[0] = " .. expr(r, vars) .. ";" end
  if #body == 0 then body[1] = "d_next[0] = " .. expr(r, vars) .. ";" end
  body[1] = body[1]:gsub("= ", "= " .. sign, 1)
  local p = PERIODS[r(1, 2)]
  items[#items + 1] = dsl.periodic_discrete_update { "upd", period = p[1], offset = p[2],
    prerequisites = { "all_state", "k", "u", "time" }, calc = table.concat(body, "\n") }
  return dsl.leaf("R" .. i)(items)
end

local function random_diagram(seed)
  local r = rng(seed)
  local n = r(2, 4)
  local items = {}
  for i = 1, n do items[#items + 1] = dsl.system { "l" .. i, random_leaf(r, i) } end
  for i = 2, n do items[#items + 1] = dsl.connect { "l" .. (i - 1) .. ".y", "l" .. i .. ".u" } end
  items[#items + 1] = dsl.export_input { "l1.u", as = "u" }
  items[#items + 1] = dsl.export_output { "l" .. n .. ".y", as = "y" }
  return dsl.diagram("rnd" .. seed)(items)
end

-- set every state element and the input to random values, the time to t
local function randomize(r, m, c, t)
  local d = m.desc
  for i = 0, d.nxc - 1 do c:set_state(ffi.string(d.xc_names[i]), r() * 2 - 1) end
  for i = 0, d.nxd - 1 do c:set_state(ffi.string(d.xd_names[i]), r() * 2 - 1) end
  c:set_input("u", r() * 2 - 1)
  c:set("t", t)
end

local N = tonumber(os.getenv("DIAGC_JAC_UPDATE_FUZZ_N") or "8")

test("update_jacobian.random_hybrid_diagrams", function()
  for seed = 1, N do
    local m = diagc.jit(random_diagram(seed))
    no_dead_locals(m)
    local d, r = m.desc, rng(seed + 1000)
    truthy(d.n_jac_updates >= 1, "seed " .. seed)
    -- the two points take both sides of every branch (t > 0.35): every
    -- entry of the pattern is then nonzero at one of them (nothing
    -- structurally zero)
    local seen = {}
    for _, time in ipairs({ 0.2, 0.6 }) do
      local c = m:context()
      randomize(r, m, c, time)
      local plain = m:context()
      ffi.copy(plain.ptr, c.ptr, tonumber(d.context_size))
      plain:set_caching(false)
      for k = 0, d.n_jac_updates - 1 do
        local t = d.jac_updates[k]
        local o = { period = t.period, offset = t.offset }
        local g = c:update_jacobian(o)
        check(g, c:update_jacobian { period = t.period, offset = t.offset, jacobian = "fd" },
          string.format("seed %d %s", seed, g.name))
        -- caching off gives the same bits; a repeat is the cached copy
        local u = plain:update_jacobian(o)
        eq(u.J, g.J, "seed " .. seed .. ": caching off")
        eq(c:update_jacobian(o).J, g.J)
        seen[k] = seen[k] or {}
        for _, p in ipairs(g.pattern) do
          local key = g.rows[p[1]] .. "+/" .. g.cols[p[2]]
          seen[k][key] = seen[k][key] or g.J[p[1]][p[2]] ~= 0
        end
      end
    end
    for k, entries in pairs(seen) do
      for key, nonzero in pairs(entries) do
        truthy(nonzero, string.format("seed %d jac_update%d: %s is in the pattern but zero at both points", seed, k, key))
      end
    end
  end
end)

------------------------------------------------------------------------
-- the Jacobians as cache entries

test("jacobian_cache.descriptor_lists_the_jacobians", function()
  local m = hybrid()
  local d = m.desc
  local names = m:cache_names()
  eq(d.first_jac_cache, #m.gen.flat.entries)
  local tail = {}
  for i = d.first_jac_cache + 1, d.n_cache do tail[#tail + 1] = names[i] end
  eq(tail, { "jac_xc", "jac_lin", "jac_update0", "jac_update1" })
  -- eval_cache brings one up to date and points at its nonzeros
  local c = m:context()
  c:set("controller.gain", 2.0)
  local v = c:eval("jac_update0")
  local g = c:update_jacobian { period = 0.01 }
  eq(#v, d.jac_updates[0].nnz)
  eq(v[2], g.J[2][1])
  eq(c:counters("jac_update0").calcs, 1)
end)

test("jacobian_cache.counters_recompute_only_what_a_change_reaches", function()
  local m = hybrid()
  local c = m:context()
  local function calcs() return {
    xc = c:counters("jac_xc").calcs, lin = c:counters("jac_lin").calcs,
    u0 = c:counters("jac_update0").calcs, u1 = c:counters("jac_update1").calcs } end
  local function all()
    for _, n in ipairs({ "jac_xc", "jac_lin", "jac_update0", "jac_update1" }) do c:eval(n) end
  end
  all()
  eq(calcs(), { xc = 1, lin = 1, u0 = 1, u1 = 1 })
  all()
  eq(calcs(), { xc = 1, lin = 1, u0 = 1, u1 = 1 })   -- bit tests
  eq(c:counters("jac_update0").evals, 2)
  -- the controller's gain: only its update reads it
  c:set("controller.gain", 7.0)
  all()
  eq(calcs(), { xc = 1, lin = 1, u0 = 2, u1 = 1 })
  eq(c:counters("jac_update0").invalidations, 1)
  -- the supervisor's switch time: its update reads it (the setpoint's row
  -- is empty, but the value reads it: a prerequisite of the Jacobian)
  c:set("supervisor.switch_time", 0.2)
  all()
  eq(calcs(), { xc = 1, lin = 1, u0 = 2, u1 = 2 })
  -- the plant's state: the plant's output feeds the controller's update;
  -- xcdot (x' = u) does not read it, the logged plant.y does (jac_lin)
  c:set_state("plant.x", 0.4)
  all()
  eq(calcs(), { xc = 1, lin = 2, u0 = 3, u1 = 2 })
  -- the time: no Jacobian but the supervisor's update reads it
  c:set("t", 0.3)
  all()
  eq(calcs(), { xc = 1, lin = 2, u0 = 3, u1 = 3 })
end)

test("jacobian_cache.graph_shows_the_jacobians", function()
  local gen = diagc.compile(diagc.root .. "/examples/hybrid_controller.lua")
  local dot = require("diagc.cli.graph").dot(gen)
  for _, n in ipairs({ "jac_xc", "jac_lin", "jac_update0", "jac_update1" }) do
    truthy(dot:find('"' .. n .. '" [label="' .. n .. '", shape=box3d', 1, true), n)
  end
  -- edges from the trackers of their rows: jac_update0 from the
  -- controller's prerequisites (r, y, gain, ticks)
  local ids = {}
  for id, label in dot:gmatch('n(%d+) %[label="([^"]+)"') do ids[#ids + 1] = { id = id, label = label } end
  local into = {}
  for id in dot:gmatch('n(%d+) %-> "jac_update0"') do into[#into + 1] = id end
  eq(#into, 4)
  local labels = {}
  for _, id in ipairs(into) do
    for _, x in ipairs(ids) do if x.id == id then labels[#labels + 1] = x.label end end
  end
  table.sort(labels)
  eq(labels, { "input:r", "input:y", "pn:gain", "xd:ticks" })
  truthy(dot:find('n%d+ %-> "jac_xc" %[color=purple%]'))
end)

test("jacobian_cache.info_lists_the_jacobians", function()
  local gen = diagc.compile(diagc.root .. "/examples/hybrid_controller.lua")
  local info = require("diagc.cli.info")
  local d = info.describe(gen)
  local names = {}
  for _, j in ipairs(d.jacobians) do names[#names + 1] = j.name end
  eq(names, { "jac_xc", "jac_lin", "jac_update0", "jac_update1" })
  eq(d.jacobians[3].nnz, 6)
  eq(d.jacobians[4].prerequisites, { "supervisor.time", "supervisor.pn:switch_time", "supervisor.xd:ticks" })
  truthy(info.text(d):find("\n  jac_update1 +nnz 4  <%- supervisor.time"))
end)

-- an update reading a plant's output only in a comparison (as the
-- thermostat example): the output's total derivatives are no term of any
-- row and are left out of the generated code (it compiles with -Werror)
test("update_jacobian.input_read_only_by_a_comparison", function()
  local Plant = dsl.leaf "Plant" {
    dsl.continuous_state { z = { "x" }, z0 = { 0.1 } },
    dsl.input_port { "u", size = 1 },
    dsl.derivatives { prerequisites = { "z", "u" }, calc = "zdot[0] = -z[0] + u[0];" },
    dsl.output_port { "y", size = 1, prerequisites = { "z" }, calc = "y[0] = 2.0 * sin(z[0]);" },
  }
  local Relay = dsl.leaf "Relay" {
    dsl.discrete_state { "on", size = 1, default = { 0 } },
    dsl.input_port { "y", size = 1 },
    dsl.output_port { "u", size = 1, prerequisites = { "xd" }, calc = "u[0] = on[0];" },
    dsl.periodic_discrete_update { "toggle", period = 0.5, prerequisites = { "y", "xd" },
      calc = "on_next[0] = y[0] < 0.5 ? 1.0 + 0.1 * on[0] : 0.0;" },
  }
  local m = diagc.jit(dsl.diagram "relay" {
    dsl.system { "p", Plant }, dsl.system { "r", Relay },
    dsl.connect { "p.y", "r.y" }, dsl.connect { "r.u", "p.u" },
  })
  local c = m:context()
  local g = c:update_jacobian()
  check(g, c:update_jacobian { jacobian = "fd" }, "relay", { { "p.x", "p.x" }, { "r.on", "r.on" } })
  eq(g.J[2][2], 0.1)
  no_dead_locals(m)
end)
