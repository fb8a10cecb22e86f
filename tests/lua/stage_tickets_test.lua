-- Stage contract of tickets/ (the headers of graph.lua, loops.lua and
-- eval_paths.lua): F -> the ticket graph G; F's entries with their eval
-- deps; the eval paths.  Called directly, without masks, TinyCC or the
-- coder.  Expected values follow by hand from
-- tests/lua/fixtures/stages_spec.lua (entries 0..9, as in
-- stage_flatten_test.lua: plant.energy, plant.pos, plant.xcdot, ctrl.u,
-- loop.xcdot, lag.out, lag.xcdot, lag2.out, lag2.xcdot, xcdot).
local load = require("diagc.spec.load")
local check = require("diagc.check")
local flatten = require("diagc.flatten")
local graph = require("diagc.tickets.graph")
local loops = require("diagc.tickets.loops")
local eval_paths = require("diagc.tickets.eval_paths")
local SPEC = diagc.root .. "/tests/lua/fixtures/stages_spec.lua"

local function flat()
  return flatten.flatten(check.check(load.load(SPEC)))
end

local function indices(entries)
  local out = {}
  for i, e in ipairs(entries) do out[i] = e.index end
  return out
end

local function field_entries(deps)
  local out = {}
  for i, d in ipairs(deps) do out[i] = d.entry end
  return out
end

local function names(nodes)
  local out = {}
  for i, n in ipairs(nodes) do out[i] = (n.ctx.path == "" and "" or n.ctx.path .. "|") .. n.name end
  return out
end

test("stage_tickets.graph_trackers_and_subscriptions", function()
  local F = flat()
  local G = graph.build(F)
  local plant, ctrl, lag = F.leaves[1], F.leaves[2], F.leaves[3]
  for i, n in ipairs(G.nodes) do eq(n.id, i) end
  -- a change of plant's k notifies the pn collector and the two calcs listing k
  eq(names(G.node(plant, "pn:k").subs), { "loop.plant|pn", "loop.plant|xcdot", "loop.plant|cache:energy" })
  eq(names(G.node(plant, "input:f").pres), { "loop.ctrl|output:u" })
  eq(names(G.node(ctrl, "output:u").pres), { "loop.ctrl|outcache:u" })
  eq(names(G.node(lag, "input:w").pres), { "input:r" })
  eq(names(G.node(F.root, "input:r").pres), { "fixed:r" })
  eq(names(G.node(F.root, "xcdot").pres), { "loop|xcdot", "lag|xcdot", "lag2|xcdot" })
  -- computing trackers hold their entry; slots their slot
  truthy(G.node(plant, "cache:energy").entry == F.entries[1], "cache entry tracker")
  truthy(G.node(ctrl, "outcache:u").entry == F.entries[4] and not G.node(ctrl, "output:u").entry, "output")
  truthy(G.node(F.root, "fixed:r").slot == F.u_slots[1] and G.node(ctrl, "fixed:ref").slot == F.u_slots[2], "slots")
  eq(G.node(plant, "no_such_ticket"), nil)
  -- empty kinds are suppressed
  local function sup(ctx, list)
    local out = {}
    for i, t in ipairs(list) do out[i] = G.node(ctx, t).suppressed == true end
    return out
  end
  eq(sup(plant, { "q", "v", "z", "xc", "xd", "xa" }), { false, false, true, false, true, true })
  eq(sup(ctrl, { "q", "v", "z", "xc", "xd", "xa" }), { true, true, true, true, false, true })
  -- the notification sweep: lag's z reaches lag.out, lag2's xcdot through
  -- lag2.w, lag.xcdot and the root's sum
  eq(indices(graph.stale_set(G, { G.node(lag, "z") })), { 5, 6, 8, 9 })
  eq(indices(graph.stale_set(G, { G.node(plant, "z") })), {})
end)

test("stage_tickets.loops_eval_deps", function()
  local F = flat()
  graph.build(F)
  loops.compute(F)
  local deps, via = {}, {}
  for i, e in ipairs(F.entries) do
    deps[i], via[i] = {}, {}
    for j, d in ipairs(e.deps) do deps[i][j] = d.entry.index; via[i][j] = d.via or "-" end
  end
  -- deps[i]: the deps of entry i - 1
  eq(deps, { {}, {}, { 3 }, { 1 }, { 2 }, {}, {}, {}, { 5 }, { 4, 6, 8 } })
  eq(via[3], { "loop.plant.f" })
  eq(via[4], { "loop.ctrl.y" })
  eq(via[10], { "-", "-", "-" })
  truthy(F.entries[3].params == F.entries[3].calc.params, "params are the calc's")
  eq(F.entries[5].params, nil)
  -- a calc that is not an entry (ctrl's event) gets its deps the same way
  local ctrl = F.leaves[2]
  eq(#loops.calc_deps(F, ctrl, ctrl.type.events[1].params), 0)
  eq(indices(field_entries(loops.calc_deps(F, F.leaves[4], F.leaves[4].type.computed.xcdot.params))), { 5 })
  eq(loops.entry_path(F.entries[4]), "loop.ctrl.u")
  eq(loops.entry_path(F.entries[10]), "xcdot")
end)

test("stage_tickets.eval_paths", function()
  local F = flat()
  graph.build(F)
  loops.compute(F)
  local paths = eval_paths.compute(F)
  local got = {}
  for i, p in ipairs(paths) do
    eq(p.id, i - 1)
    got[i] = indices(p.entries)
  end
  -- each entry takes its deepest dep not yet taken as predecessor
  eq(got, { { 0 }, { 1, 3, 2, 4, 9 }, { 5, 8 }, { 6 }, { 7 } })
  local pos, pred, path = {}, {}, {}
  for i, e in ipairs(F.entries) do
    pos[i], pred[i], path[i] = e.pos, e.pred and e.pred.index or -1, e.path.id
  end
  eq(pos, { 0, 0, 2, 1, 3, 0, 0, 0, 1, 4 })
  eq(pred, { -1, -1, 3, 1, 2, -1, -1, -1, 5, 4 })
  eq(path, { 0, 1, 1, 1, 1, 2, 3, 4, 2, 1 })
  eq(indices(eval_paths.post_order({ F.entries[10] })), { 1, 3, 2, 4, 6, 5, 8, 9 })
end)

test("stage_tickets.algebraic_loop_is_an_error", function()
  local dsl = diagc.dsl
  local Pass = dsl.leaf "Pass" {
    dsl.input_port { "u", size = 1 },
    dsl.output_port { "y", size = 1, prerequisites = { "u" }, calc = "y[0] = u[0];" },
  }
  local root = load.freeze(dsl.diagram "ring" {
    dsl.system { "a", Pass }, dsl.system { "b", Pass },
    dsl.connect { "a.y", "b.u" }, dsl.connect { "b.y", "a.u" },
  })
  local F = flatten.flatten(check.check({ root = root, sources = {}, main = "ring.lua" }))
  expect_error(function() loops.compute(F) end,
    "algebraic loop through direct-feedthrough ports: a.y → b.u → b.y → a.u → a.y")
end)
