-- cdiff on every calc of the examples: each is in the differentiable
-- subset (or named as outside it), writes every element it owns, and its
-- generated Jacobian agrees with central differences.
local S = dofile("tests/lua/cdiff_support.lua")
local cdiff = require("diagc.cdiff")
local iface = require("diagc.cdiff.iface")
local scope = require("diagc.check.scope")

local function example_specs()
  local out = {}
  local h = io.popen("ls examples/*.lua | grep -v _test.lua")
  for line in h:lines() do out[#out + 1] = line end
  h:close()
  return out
end

local function calcs_of(leaf)
  local out = {}
  for _, c in ipairs(leaf.calcs) do out[#out + 1] = c end
  for _, w in ipairs(leaf.witnesses) do out[#out + 1] = w.calc end
  for _, d in ipairs(leaf.timed or {}) do out[#out + 1] = d.calc end
  return out
end

local function each_calc(fn)
  for _, path in ipairs(example_specs()) do
    local model = require("diagc.check").check(require("diagc.spec.load").load(path))
    for _, leaf in ipairs(model.leaf_types) do
      local texts = {}
      for _, p in ipairs(leaf.preambles) do texts[#texts + 1] = p.text end
      for _, c in ipairs(calcs_of(leaf)) do
        fn(path, leaf, c, texts)
      end
    end
  end
end

test("cdiff.examples.every_calc", function()
  local n, outside, rnd = 0, {}, S.rng(5)
  each_calc(function(path, leaf, c, texts)
    local what = path .. " " .. leaf.name .. " " .. c.kind .. " " .. tostring(c.name)
    local itf, why = iface.of(leaf, c, scope.params(leaf, c))
    if not itf then outside[#outside + 1] = what .. ": " .. why; return end
    local r, p = cdiff.analyze({ body = c.body, preamble = texts, inputs = itf.inputs,
      outputs = itf.outputs, lex = S.lex })
    if not r then
      outside[#outside + 1] = string.format("%s: %d:%d %s", what, p.line, p.col, p.construct)
      return
    end
    if c.kind ~= "witness" and c.kind ~= "next_update_time" then
      eq(r.findings, {}, what)
    end
    local sp = { body = c.body, preamble = table.concat(texts, "\n"), inputs = itf.inputs,
      outputs = itf.outputs }
    local compiled = S.compile(sp, r)
    for _ = 1, 3 do S.check_fd(sp, compiled, S.point(compiled.nin, rnd, 0.2, 2.0), { what = what }) end
    n = n + 1
  end)
  truthy(n >= 40, n .. " calcs checked")
  -- the examples' calcs outside the subset, each for a reason it names:
  -- the thermostat's schedule indexes its tables with a run-time step
  eq(outside, { "examples/thermostat.lua Thermostat event schedule: 1:33 a non-constant array index",
    "examples/thermostat.lua Thermostat next_update_time schedule: 1:34 a non-constant array index" })
end)

test("cdiff.examples.vector_values_of_every_kind", function()
  local model = require("diagc.check").check(require("diagc.spec.load").load("tests/lua/fixtures/cdiff_leaf.lua"))
  local leaf = model.leaf_types[1]
  local texts = {}
  for _, p in ipairs(leaf.preambles) do texts[#texts + 1] = p.text end
  local shapes, rnd = {}, S.rng(9)
  for _, c in ipairs(calcs_of(leaf)) do
    local itf = assert(iface.of(leaf, c, scope.params(leaf, c)))
    local t = {}
    for _, x in ipairs(itf.inputs) do t[#t + 1] = x.name .. (x.size or "") .. (x.hidden and "h" or "") end
    t[#t + 1] = "->"
    for _, x in ipairs(itf.outputs) do t[#t + 1] = x.name .. (x.size or "") .. (x.preload and ("=" .. x.preload) or "") end
    shapes[#shapes + 1] = c.kind .. ": " .. table.concat(t, " ")
    local sp = { body = c.body, preamble = table.concat(texts, "\n"), inputs = itf.inputs, outputs = itf.outputs }
    local r = S.analyze(sp)
    eq(r.findings, {}, c.kind)
    local compiled = S.compile(sp, r)
    for _ = 1, 3 do S.check_fd(sp, compiled, S.point(compiled.nin, rnd, 0.2, 2.0), { what = c.kind }) end
  end
  table.sort(shapes)
  eq(shapes, {
    "cache: q2 k2 -> m2",
    "event: q2 u2 x3h -> x_next3=x",
    "output: q2 x3 -> y3",
    "xcdot: q2 v2 k2 u2 m2 -> qdot2 vdot2",
  })
end)

test("cdiff.examples.problems_map_to_the_spec", function()
  local path = os.tmpname() .. ".lua"
  local f = assert(io.open(path, "w"))
  f:write([[
local L = leaf "L" {
  c_preamble [[
static double f(double x) {
  while (x > 1) x -= 1;
  return x;
}
]] .. "]]" .. [[,
  parameter { "k", default = { 1 } },
  output_port { "y", size = 2, prerequisites = { "k" }, calc = [[
    y[0] = k[0];
    y[1] = f(k[0]);
  ]] .. "]]" .. [[ },
  output_port { "w", size = 2, prerequisites = { "k" }, calc = [[ if (k[0] > 0) w[0] = 1; w[1] = 0; ]] .. "]]" .. [[ },
}
return diagram "d" { system { "s", L } }
]])
  f:close()
  local model = require("diagc.check").check(require("diagc.spec.load").load(path))
  os.remove(path)
  local leaf = model.leaf_types[1]
  local texts, locs = {}, {}
  for _, p in ipairs(leaf.preambles) do texts[#texts + 1] = p.text; locs[#locs + 1] = p.loc end
  local got = {}
  for _, c in ipairs(leaf.calcs) do
    local itf = iface.of(leaf, c, scope.params(leaf, c))
    local r, p = cdiff.analyze({ body = c.body, preamble = texts, inputs = itf.inputs, outputs = itf.outputs,
      lex = S.lex })
    local found = r and r.findings or { p }
    for _, x in ipairs(found) do
      local at = require("diagc.cdiff.stage").location(x, c.body_loc, locs)
      got[#got + 1] = string.format("%s:%d:%d %s", c.name, at.line, at.col, x.construct or x.kind)
      if not r then
        local call = require("diagc.cdiff.stage").location({ line = x.call_line, col = x.call_col }, c.body_loc)
        got[#got + 1] = string.format("called at %d:%d", call.line, call.col)
      end
    end
  end
  eq(got, { "y:4:3 a while loop", "called at 11:12", "w:13:67 maybe_unwritten" })
end)
