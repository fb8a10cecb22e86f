-- Stage contract of flatten/init.lua (its header): checked model -> F,
-- the contexts with their offsets in the flat arrays, the input slots,
-- the cache entries in bit order, the outputs and loggers.  Called
-- directly, without the ticket graph, TinyCC or the coder.  The expected
-- offsets are counted by hand from tests/lua/fixtures/stages_spec.lua.
local load = require("diagc.spec.load")
local check = require("diagc.check")
local flatten = require("diagc.flatten")
local SPEC = diagc.root .. "/tests/lua/fixtures/stages_spec.lua"

local function flat()
  return flatten.flatten(check.check(load.load(SPEC)))
end

local function field(list, key)
  local out = {}
  for i, x in ipairs(list) do out[i] = x[key] end
  return out
end

local function ctx_of(F, path)
  for _, c in ipairs(F.contexts) do if c.path == path then return c end end
end

test("stage_flatten.contexts_pre_order", function()
  local F = flat()
  eq(field(F.contexts, "path"), { "", "loop", "loop.plant", "loop.ctrl", "lag", "lag2" })
  eq(field(F.contexts, "cpath"), { "", "loop", "loop__plant", "loop__ctrl", "lag", "lag2" })
  eq(field(F.contexts, "id"), { 1, 2, 3, 4, 5, 6 })
  eq(field(F.contexts, "kind"), { "diagram", "diagram", "leaf", "leaf", "leaf", "leaf" })
  eq(field(F.leaves, "path"), { "loop.plant", "loop.ctrl", "lag", "lag2" })
  eq(field(F.leaves, "leaf_index"), { 0, 1, 2, 3 })
  truthy(F.root == F.contexts[1] and ctx_of(F, "loop").by_name.ctrl == F.leaves[2], "tree links")
  truthy(F.leaves[3].type == F.leaves[4].type, "lag and lag2 share their type")
end)

test("stage_flatten.state_and_parameter_offsets", function()
  local F = flat()
  -- xc = q (plant's 2) | v (plant's 1) | z (lag's 1, lag2's 1)
  eq({ F.nq, F.nv, F.nz, F.nxc, F.nxd, F.npn, F.nu }, { 2, 1, 2, 5, 1, 4, 2 })
  local want = {
    -- path, nq nv nz, q_off v_off z_off, xq xv xz
    { "loop.plant", 2, 1, 0, 0, 0, 0, 0, 2, 3 },
    { "loop.ctrl", 0, 0, 0, 2, 1, 0, 2, 3, 3 },
    { "lag", 0, 0, 1, 2, 1, 0, 2, 3, 3 },
    { "lag2", 0, 0, 1, 2, 1, 1, 2, 3, 4 },
  }
  for i, w in ipairs(want) do
    local c = F.leaves[i]
    eq({ c.path, c.nq, c.nv, c.nz, c.q_off, c.v_off, c.z_off, c.xq, c.xv, c.xz }, w)
  end
  eq(F.leaves[2].xd_off, { count = 0 })
  eq({ F.leaves[1].pn_off, F.leaves[2].pn_off, F.leaves[3].pn_off, F.leaves[4].pn_off },
    { { k = 0 }, { gain = 1 }, { tau = 2 }, { tau = 3 } })
  -- defaults, with the diagrams' overrides
  eq({ F.leaves[1].param_values.k, F.leaves[3].param_values.tau, F.leaves[4].param_values.tau },
    { { 4 }, { 1 }, { 2 } })
  eq(#F.xa + #F.pa, 0)
end)

test("stage_flatten.input_slots_and_wiring", function()
  local F = flat()
  eq(field(F.u_slots, "name"), { "r", "loop.ctrl.ref" })
  eq(field(F.u_slots, "kind"), { "input", "fixed" })
  eq(field(F.u_slots, "offset"), { 0, 1 })
  eq(field(F.u_slots, "default"), { { 1 }, { 0.25 } })
  truthy(F.u_slots[1].ctx == F.root and F.u_slots[2].ctx == F.leaves[2], "slot contexts")
  local plant, ctrl, lag, lag2 = F.leaves[1], F.leaves[2], F.leaves[3], F.leaves[4]
  eq({ plant.input_src.f.kind, plant.input_src.f.ctx.path, plant.input_src.f.port }, { "peer", "loop.ctrl", "u" })
  eq({ lag.input_src.w.kind, lag.input_src.w.ctx.path, lag.input_src.w.port }, { "parent", "", "r" })
  truthy(ctrl.input_src.ref.kind == "fixed" and ctrl.input_src.ref.slot == F.u_slots[2], "fixed source")
  truthy(F.root.input_src.r.slot == F.u_slots[1], "root source")
  -- ultimate sources
  truthy(F.resolve_input(lag, "w").slot == F.u_slots[1], "lag.w <- r")
  truthy(F.resolve_input(lag2, "w").entry == lag.entries["output:out"], "lag2.w <- lag.out")
  truthy(F.resolve_output(ctx_of(F, "loop"), "pos") == plant.entries["output:pos"], "loop.pos")
end)

test("stage_flatten.cache_entries_in_bit_order", function()
  local F = flat()
  local names = {}
  for i, e in ipairs(F.entries) do names[i] = (e.ctx.path == "" and "" or e.ctx.path .. ".") .. e.name end
  eq(names, { "loop.plant.energy", "loop.plant.pos", "loop.plant.xcdot", "loop.ctrl.u", "loop.xcdot",
    "lag.out", "lag.xcdot", "lag2.out", "lag2.xcdot", "xcdot" })
  eq(field(F.entries, "index"), { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 })
  eq(field(F.entries, "kind"), { "cache", "output", "computed", "output", "diagram_computed",
    "output", "computed", "output", "computed", "diagram_computed" })
  -- xcdot (5 doubles) first, then each vector entry
  eq(F.xcdot_base, 0)
  eq(F.ncache_d, 11)
  local e = F.entries
  eq({ e[1].offset, e[2].offset, e[4].offset, e[6].offset, e[8].offset }, { 5, 6, 8, 9, 10 })
  eq({ e[1].size, e[2].size, e[3].size, e[4].size, e[7].size }, { 1, 2, 3, 1, 1 })
  eq(e[3].offset, nil) -- xcdot lives at xcdot_base + the leaf's xq/xv/xz
  eq({ e[3].ticket, e[10].ticket }, { "xcdot", "xcdot" })
  truthy(e[3].calc == F.leaves[1].type.computed.xcdot, "entry calc")
  truthy(e[2].item == F.leaves[1].type.names.pos, "entry item")
  eq(#e[5].parts, 1)
  truthy(e[5].parts[1] == e[3], "loop.xcdot sums plant.xcdot")
  truthy(e[10].parts[1] == e[5] and e[10].parts[2] == e[7] and e[10].parts[3] == e[9], "root xcdot parts")
  truthy(F.leaves[1].entries["cache:energy"] == e[1] and F.leaves[1].entries.xcdot == e[3], "ctx.entries")
end)

test("stage_flatten.outputs_and_logs", function()
  local F = flat()
  eq(field(F.outputs, "path"), { "out", "loop.pos", "loop.plant.pos", "loop.ctrl.u", "lag.out", "lag2.out" })
  eq(field(F.outputs, "cname"), { "out", "loop__pos", "loop__plant__pos", "loop__ctrl__u", "lag__out", "lag2__out" })
  eq(field(F.outputs, "size"), { 1, 2, 2, 1, 1, 1 })
  local idx = {}
  for i, o in ipairs(F.outputs) do idx[i] = o.entry.index end
  eq(idx, { 7, 1, 1, 3, 5, 7 })
  eq(#F.logs, 1)
  eq({ F.logs[1].name, F.logs[1].output, F.logs[1].size, F.logs[1].period }, { "loop.pos", 1, 2, 0.5 })
end)
