-- prerequisites = "inferred" (issue #16 item 4, cdiff/infer.lua): diagc
-- reads the calc body and lists exactly the tickets behind what it reads.
-- The same spec with the lists written by hand generates byte-identical
-- C (so the same scopes, masks and Jacobians); witnesses and
-- next_update_time items infer one list for their calc and event;
-- diagc graph draws the inferred edges dashed; a hand-written list that
-- misses a read stays an error.
local compile = require("diagc.compile")
local leaf_mod = require("diagc.check.leaf")
local graph = require("diagc.cli.graph")

-- A leaf with every kind of source, a cache chain, computed values and
-- every kind of event; each calc's prerequisites are a placeholder on a
-- line of their own (so both variants put every body at the same column).
local TEMPLATE = [[
local Arm = leaf "Arm" {
  c_preamble [==[
static const int NSEG = 2;
static double sq(double a) { return a * a; }
]==],
  continuous_state { q = 2, v = 2 },
  discrete_state { "hold", default = { 0 } },
  abstract_state { "count", type = "long", init = "0" },
  parameter { "mass", default = { 2 } },
  parameter { "stiff", default = { 5 } },
  parameter { "damp", default = { 0.5 } },
  input_port { "force", size = 1 },
  input_port { "bias", size = 1 },
  cache_entry { "spring", size = 2, calc = "for (int i = 0; i < 2; i++) spring[i] = -stiff[0] * q[i];",
    prerequisites = @spring@ },
  cache_entry { "accel", size = 2, calc = [==[
    accel[0] = (spring[0] - damp[0] * v[0] + force[0]) / mass[0];
    accel[1] = spring[1] / mass[0];
    if (NSEG > 3) accel[1] += bias[0]; ]==],
    prerequisites = @accel@ },
  derivatives { calc = "qdot[0] = v[0]; qdot[1] = v[1]; vdot[0] = accel[0]; vdot[1] = accel[1];",
    prerequisites = @xcdot@ },
  potential_energy { calc = "pe[0] = 0.5 * stiff[0] * (sq(q[0]) + sq(q[1]));",
    prerequisites = @pe@ },
  kinetic_energy { calc = "ke[0] = 0.5 * mass[0] * (sq(v[0]) + sq(v[1]));",
    prerequisites = @ke@ },
  output_port { "pos", size = 2, calc = "pos[0] = q[0]; pos[1] = q[1];",
    prerequisites = @pos@ },
  output_port { "energy", size = 1, calc = "energy[0] = pe[0] + ke[0];",
    prerequisites = @energy@ },
  output_port { "through", size = 1, calc = "through[0] = t < 1.0 ? force[0] : hold[0];",
    prerequisites = @through@ },
  output_port { "rate", size = 1, calc = "rate[0] = vdot[0] * accuracy;",
    prerequisites = @rate@ },
  output_port { "one", size = 1, calc = "one[0] = 1.0;",
    prerequisites = @one@ },
  periodic_discrete_update { "sample", period = 0.25, writes = { "hold" }, calc = "hold_next[0] = q[0] + bias[0];",
    prerequisites = @sample@ },
  witness { "floor", direction = "positive_to_nonpositive", calc = "value = q[1] + 1.0;",
    unrestricted_update = "v_next[1] = -damp[0] * v[1];", writes = { "v" },
    prerequisites = @floor@ },
  next_update_time { "wake", calc = "t_next = t + hold[0] + 1.0;", publish = "(void)0;",
    prerequisites = @wake@ },
}
return diagram "arms" {
  system { "a", Arm }, system { "b", Arm },
  connect { "a.through", "b.force" },
  fix_input { "a.force", value = { 1 } }, fix_input { "a.bias", value = { 0.5 } },
  fix_input { "b.bias", value = { 0.25 } },
}
]]

-- what a careful author writes by hand (in the order inference lists them)
local EXPLICIT = {
  spring = '{ "q", "stiff" }',
  accel = '{ "v", "mass", "damp", "force", "bias", "spring" }',
  xcdot = '{ "v", "accel" }',
  pe = '{ "q", "stiff" }',
  ke = '{ "v", "mass" }',
  pos = '{ "q" }',
  energy = '{ "pe", "ke" }',
  through = '{ "time", "hold", "force" }',
  rate = '{ "accuracy", "xcdot" }',
  one = '{ "nothing" }',
  sample = '{ "q", "bias" }',
  floor = '{ "q", "v", "damp" }',
  wake = '{ "time", "hold" }',
}

local function spec_text(which)
  return (TEMPLATE:gsub("@(%w+)@", function(k)
    return which == "explicit" and EXPLICIT[k] or '"inferred"'
  end))
end

-- compiles `text` written to `path`; the generated model
local function compile_text(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return compile.compile(path, {})
end

local function with_file(fn)
  local path = os.tmpname()
  os.remove(path)
  path = path .. "_infer.lua"
  local ok, err = pcall(fn, path)
  os.remove(path)
  if not ok then error(err, 0) end
end

-- name -> prerequisites, for every calc of the first leaf type
local function lists(gen)
  local out = {}
  local lt = gen.model.leaf_types[1]
  for _, c in ipairs(leaf_mod.all_calcs(lt)) do
    out[c.kind .. ":" .. c.name] = table.concat(c.prereqs, " ")
  end
  return out
end

group("prereq_infer", function()
  test("lists exactly the tickets the body reads", function()
    with_file(function(path)
      local l = lists(compile_text(path, spec_text("inferred")))
      eq(l["cache:spring"], "q stiff")
      eq(l["cache:accel"], "v mass damp force bias spring", "a branch decided at compile time still names bias")
      eq(l["xcdot:xcdot"], "v accel")
      eq(l["pe:pe"], "q stiff", "through a c_preamble helper")
      eq(l["ke:ke"], "v mass")
      eq(l["output:pos"], "q")
      eq(l["output:energy"], "pe ke")
      eq(l["output:through"], "time hold force")
      eq(l["output:rate"], "accuracy xcdot")
      eq(l["output:one"], "nothing")
      eq(l["event:sample"], "q bias", "hold_next starts as hold: no need to read it")
      -- a witness's calc and event share one list: the union of both reads
      eq(l["witness:floor"], "q v damp")
      eq(l["event:floor"], "q v damp")
      eq(l["next_update_time:wake"], "time hold")
      eq(l["event:wake"], "time hold")
    end)
  end)

  test("generates the same C as the lists written by hand", function()
    with_file(function(path)
      local a = compile_text(path, spec_text("inferred"))
      local b = compile_text(path, spec_text("explicit"))
      truthy(a.source == b.source, "the .c files differ")
      truthy(a.header == b.header, "the .h files differ")
      eq(#a.entry_points, #b.entry_points)
      for i, ep in ipairs(a.entry_points) do
        local words, other = {}, {}
        for _, w in ipairs(ep.words) do words[#words + 1] = w.word .. ":" .. w.hex end
        for _, w in ipairs(b.entry_points[i].words) do other[#other + 1] = w.word .. ":" .. w.hex end
        eq(words, other, "mask of " .. ep.name)
      end
    end)
  end)

  test("the inferred model invalidates by what the bodies read", function()
    with_file(function(path)
      compile_text(path, spec_text("inferred"))
      local m = diagc.jit(path)
      local c = m:context()
      local function stale_after(change)
        c:invalidate_all()
        for _, name in ipairs(m:cache_names()) do c:eval(name) end
        change()
        c:freeze()
        local stale = {}
        for _, name in ipairs(m:cache_names()) do
          if c:try_eval(name) ~= 0 then stale[#stale + 1] = name end
        end
        c:freeze(false)
        return table.concat(stale, " ")
      end
      -- the outputs whose bodies read t, and b's values downstream of
      -- a.through -> b.force (b.rate reads b's vdot)
      -- (the generated Jacobians, cache entries too, whenever xcdot is stale)
      eq(stale_after(function() c:set("t", 2.0) end), "a.through b.accel b.through b.rate b.xcdot .xcdot jac_xc jac_lin")
      eq(stale_after(function() c:set("a.stiff", 4.0) end), "a.spring a.accel a.energy a.rate a.xcdot a.pe .xcdot .pe jac_xc jac_lin")
      eq(stale_after(function() c:set("a.mass", 4.0) end), "a.accel a.energy a.rate a.xcdot a.ke .xcdot .ke jac_xc jac_lin")
    end)
  end)

  test("diagc graph draws the inferred edges dashed", function()
    with_file(function(path)
      local inferred = graph.dot(compile_text(path, spec_text("inferred")))
      local explicit = graph.dot(compile_text(path, spec_text("explicit")))
      local mark = ' [style=dashed, label="inferred", fontsize=8];'
      truthy(not explicit:find("inferred", 1, true), "no inferred edge without inference")
      -- the same edges, the inferred ones marked
      eq((inferred:gsub(mark:gsub("%p", "%%%0"), ";")), explicit)
      -- every edge into a leaf's cache tracker is a listed prerequisite:
      -- per instance, the lists of the entries (not of events, witnesses or
      -- next_update_time calcs, which have no tracker), "nothing" included
      local per_leaf = 2 + 6 + 2 + 2 + 2 + 1 + 2 + 3 + 2 + 1
      local n = 0
      for _ in inferred:gmatch(mark:gsub("%p", "%%%0")) do n = n + 1 end
      eq(n, 2 * per_leaf)
      -- time -> a's outcache:through is one of them
      local function id(cluster_label, name)
        local body = inferred:match('label="' .. cluster_label:gsub("%p", "%%%0") .. '";\n(.-)\n  }')
        return body:match('n(%d+) %[label="' .. name:gsub("%p", "%%%0") .. '"')
      end
      local t, y = id("a (leaf Arm)", "time"), id("a (leaf Arm)", "outcache:through")
      truthy(inferred:find("n" .. t .. " -> n" .. y .. mark, 1, true), "time -> outcache:through is marked")
    end)
  end)

  test("a mutual pair of inferred cache entries is a cycle", function()
    with_file(function(path)
      local msg = expect_error(function()
        compile_text(path, [[
local L = leaf "L" {
  parameter { "k", default = { 1 } },
  cache_entry { "a", size = 1, prerequisites = "inferred", calc = "a[0] = b[0] + k[0];" },
  cache_entry { "b", size = 1, prerequisites = "inferred", calc = "b[0] = a[0];" },
  output_port { "y", size = 1, prerequisites = "inferred", calc = "y[0] = a[0];" },
}
return diagram "top" { system { "l", L } }
]])
      end, "cycle of cache entries")
      truthy(msg:find("l.a", 1, true) and msg:find("l.b", 1, true), msg)
    end)
  end)

  test("a hand-written list that misses a read stays an error", function()
    with_file(function(path)
      expect_error(function()
        compile_text(path, [[
local L = leaf "L" {
  parameter { "k", default = { 1 } },
  input_port { "u", size = 1 },
  cache_entry { "c", size = 1, prerequisites = "inferred", calc = "c[0] = k[0] * u[0];" },
  output_port { "y", size = 1, prerequisites = { "k" }, calc = "y[0] = k[0] + c[0];" },
}
return diagram "top" { system { "l", L }, fix_input { "l.u", value = { 1 } } }
]])
      end, "reads 'c' (cache entry 'c'), which its prerequisites {k} do not grant")
    end)
  end)

  test("an unread abstract value does not stop inference", function()
    with_file(function(path)
      local l = lists(compile_text(path, [[
local L = leaf "L" {
  abstract_state { "n", type = "long", init = "0" },
  abstract_parameter { "cfg", type = "int", init = "3" },
  discrete_state { "x", default = { 1 } },
  output_port { "y", size = 1, prerequisites = "inferred", calc = "y[0] = 2.0 * x[0];" },
}
return diagram "top" { system { "l", L } }
]]))
      eq(l["output:y"], "x")
    end)
  end)

  test("before the body is read, the scope is every ticket the calc could list", function()
    with_file(function(path)
      local f = assert(io.open(path, "wb"))
      f:write(spec_text("inferred"))
      f:close()
      local model = require("diagc.check").check(require("diagc.spec.load").load(path))
      local l = {}
      for _, c in ipairs(leaf_mod.all_calcs(model.leaf_types[1])) do
        l[c.kind .. ":" .. c.name] = table.concat(c.prereqs, " ")
      end
      eq(l["output:pos"], "all_sources spring accel xcdot pe ke")
      eq(l["cache:spring"], "all_sources accel xcdot pe ke", "a cache entry never lists itself")
      eq(l["xcdot:xcdot"], "all_sources spring accel pe ke")
      eq(l["event:floor"], "all_sources spring accel xcdot pe ke")
      -- without the host's lexer (plain LuaJIT) that scope would stay: an error
      expect_error(function()
        compile.compile_loaded(require("diagc.spec.load").load(path), { lex = false })
      end, 'prerequisites = "inferred" needs the C lexer of bin/diagc')
    end)
  end)
end)
