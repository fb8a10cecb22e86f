-- Stage contract of check/ (check/init.lua, check/leaf.lua,
-- check/diagram.lua): loaded spec -> checked model {root, leaf_types,
-- sources, main}.  Called directly, without flatten, TinyCC or the coder.
local load = require("diagc.spec.load")
local check = require("diagc.check")
local writes = require("diagc.check.writes")
local SPEC = diagc.root .. "/tests/lua/fixtures/stages_spec.lua"

local function checked()
  return check.check(load.load(SPEC))
end

local function field(list, key)
  local out = {}
  for i, x in ipairs(list) do out[i] = x[key] end
  return out
end

test("stage_check.model_and_type_order", function()
  local M = checked()
  eq(M.main, SPEC)
  truthy(M.sources[SPEC] ~= nil, "sources")
  eq(M.root.kind, "diagram")
  eq(M.root.name, "top")
  -- depth first: Plant, Ctrl, (loop), Lag, (top); Lag once for two systems
  eq(field(M.leaf_types, "name"), { "Plant", "Ctrl", "Lag" })
  eq(field(M.leaf_types, "id"), { 1, 2, 4 })
end)

test("stage_check.leaf_type_fields", function()
  local plant, ctrl = checked().leaf_types[1], checked().leaf_types[2]
  eq(plant.kind, "leaf")
  eq({ plant.q, plant.v, plant.z }, { { "x", "y" }, { "v[0]" }, {} })
  eq({ plant.q0, plant.v0, plant.z0 }, { { 1, 2 }, { 3 }, {} })
  eq(plant.name_order, { "k", "f", "energy", "pos" })
  local k = plant.by_kind.pn[1]
  eq({ k.kind, k.name, k.index, k.size, k.default }, { "pn", "k", 1, 1, { 2 } })
  truthy(plant.names.k == k, "names.k")
  eq(#plant.by_kind.xd + #plant.by_kind.xa + #plant.by_kind.pa, 0)
  eq(field(ctrl.by_kind.input, "name"), { "y", "ref" })
  eq(field(ctrl.by_kind.input, "index"), { 1, 2 })
  eq(field(ctrl.by_kind.input, "size"), { 2, 1 })
  -- calcs in declaration order, each with its prerequisites and parameters
  eq(field(plant.calcs, "kind"), { "cache", "output", "xcdot" })
  eq(field(plant.calcs, "name"), { "energy", "pos", "xcdot" })
  truthy(plant.computed.xcdot == plant.calcs[3], "computed.xcdot")
  truthy(plant.by_kind.output[1].calc == plant.calcs[2], "output calc")
  local d = plant.computed.xcdot
  eq(d.prereqs, { "q", "v", "f", "k" })
  eq(d.default_prereqs, false)
  eq(field(d.params, "key"), { "q", "v", "pn:k", "input:f", "self:q", "self:v" })
  eq(field(d.params, "name"), { "q", "v", "k", "f", "qdot", "vdot" })
  eq(field(d.params, "ctype"), { "const double *", "const double *", "const double *",
    "const double *", "double *", "double *" })
  eq(field(ctrl.by_kind.output[1].calc.params, "key"), { "pn:gain", "input:y", "input:ref", "self" })
  -- the body and where it starts in the spec file
  eq(plant.calcs[2].body, " pos[0] = q[0]; pos[1] = q[1]; ")
  -- the text after "[[", which starts at column 66 of line 9
  eq(plant.calcs[2].body_loc, { file = SPEC, line = 9, col = 68 })
end)

test("stage_check.events_and_writes", function()
  local ctrl = checked().leaf_types[2]
  eq(#ctrl.events, 1)
  local ev = ctrl.events[1]
  eq({ ev.kind, ev.name, ev.trigger, ev.event_kind, ev.period, ev.offset },
    { "event", "tick", "periodic", "discrete_update", 0.1, 0 })
  -- no writes given: everything a discrete update may write
  eq(ev.writes, { "count" })
  eq(field(ev.params, "key"), { "xd:count", "next:xd:count" })
  eq(field(ev.params, "name"), { "count", "count_next" })
  truthy(ctrl.calcs[2] == ev, "the event is one of the calcs")
  eq(#ctrl.witnesses, 0)
  eq(ctrl.timed, nil)
  -- the one writes rule (check/writes.lua)
  local plant = checked().leaf_types[1]
  eq(writes.writable(plant, "unrestricted_update"), { "q", "v" })
  eq(writes.writable(plant, "discrete_update"), {})
  eq(writes.writable(ctrl, "unrestricted_update"), { "count" })
  local item = { loc = { file = "f.lua", line = 3 }, args = { writes = "v" } }
  eq(writes.check(item, { "q", "v" }, "w"), { "v" })
  expect_error(function() writes.allowed(plant, item, "discrete_update", "per_step_discrete_update") end,
    "f.lua:3: per_step_discrete_update in leaf \"Plant\", which has no discrete_state to update")
  item.args.writes = { "q", "count" }
  expect_error(function() writes.check(item, { "q", "v" }, "witness 'w'") end,
    "f.lua:3: witness 'w' cannot write 'count'; it may write q, v")
end)

test("stage_check.diagram_type_fields", function()
  local top = checked().root
  eq(field(top.systems, "name"), { "loop", "lag", "lag2" })
  truthy(top.by_name.lag2 == top.systems[3], "by_name")
  truthy(top.systems[2].type == top.systems[3].type, "one checked Lag type")
  eq(top.systems[3].params, { { path = "tau", value = { 2 }, loc = { file = SPEC, line = 41 } } })
  local c = top.connections[1]
  eq({ c.from.sys.name, c.from.port.name, c.to.sys.name, c.to.port.name }, { "lag", "out", "lag2", "w" })
  local r = top.inputs[1]
  eq({ r.name, r.size, r.default, #r.targets, r.targets[1].sys.name, r.targets[1].port.name },
    { "r", 1, { 1 }, 1, "lag", "w" })
  eq({ top.outputs[1].name, top.outputs[1].size, top.outputs[1].source.sys.name }, { "out", 1, "lag2" })
  eq({ top.logs[1].name, top.logs[1].period, top.logs[1].source.port.name }, { "loop.pos", 0.5, "pos" })
  local loop = top.systems[1].type
  eq(#loop.fixed, 1)
  eq({ loop.fixed[1].target.sys.name, loop.fixed[1].target.port.name, loop.fixed[1].value },
    { "ctrl", "ref", { 0.25 } })
end)

test("stage_check.witness_and_next_update_time", function()
  local dsl = diagc.dsl
  local Ball = dsl.leaf "Ball" {
    dsl.continuous_state { q = 1, v = 1 },
    dsl.discrete_state { "n", default = { 0 } },
    dsl.derivatives { prerequisites = { "v" }, calc = "qdot[0] = v[0]; vdot[0] = -9.81;" },
    dsl.witness { "ground", direction = "positive_to_nonpositive", prerequisites = { "q", "v" },
      calc = "value = q[0];", unrestricted_update = "v_next[0] = -v[0];", writes = { "v" } },
    dsl.witness { "apex", direction = "crossing", prerequisites = { "v" }, calc = "value = v[0];" },
    dsl.next_update_time { "wake", prerequisites = { "n" }, calc = "t_next = n[0] + 1.0;",
      discrete_update = "n_next[0] = n[0] + 1;" },
  }
  local root = load.freeze(dsl.diagram "d" { dsl.system { "b", Ball } })
  local ball = check.check({ root = root, sources = {}, main = "d.lua" }).leaf_types[1]
  eq(field(ball.witnesses, "name"), { "ground", "apex" })
  eq(field(ball.witnesses, "c_direction"), { "DIAGC_WITNESS_POSITIVE_TO_NONPOSITIVE", "DIAGC_WITNESS_CROSSING" })
  local g = ball.witnesses[1]
  eq({ g.calc.kind, g.calc.prereqs, g.event.trigger, g.event.event_kind, g.event.writes },
    { "witness", { "q", "v" }, "witness", "unrestricted_update", { "v" } })
  eq(field(g.calc.params, "key"), { "q", "v" })
  eq(field(g.event.params, "name"), { "q", "v", "v_next" })
  eq(ball.witnesses[2].event, nil)
  eq(#ball.timed, 1)
  local w = ball.timed[1]
  eq({ w.name, w.calc.kind, w.event.trigger, w.event.event_kind, w.event.writes },
    { "wake", "next_update_time", "timed", "discrete_update", { "n" } })
  -- the events, in declaration order, are calcs too
  eq(field(ball.events, "name"), { "ground", "wake" })
  eq(field(ball.calcs, "kind"), { "xcdot", "event", "event" })
end)
