-- check/leaf.lua: validate a leaf declaration and normalize it into a
-- checked leaf type (the "checked model" for leaves).
--
-- A checked leaf type T (M.check(frozen leaf, sources, id)):
--   T.kind = "leaf", T.name, T.loc, T.id
--   T.q, T.v, T.z     names of the continuous state's elements ("q[0]", ...
--                     for a count); T.q0, T.v0, T.z0 their initial values
--   T.by_kind[k]      for k in vocab/kinds.order (xd xa pn pa input output
--                     cache): the items of that kind in declaration order,
--                     each {kind=k, name=, loc=, index= 1-based in by_kind[k]}
--                     plus: xd, pn: size=, default= (numbers); xa, pa:
--                     ctype=, init= (C text or nil); input, output: size=,
--                     unit= (a label, or nil: check/fields.lua's unit);
--                     cache: size= (vector) or ctype=, init= (typed);
--                     output, cache: calc= (their calc, below);
--                     output, xd: elements= (names = {...}: one name per
--                     element, or nil; check/leaf_names.lua); output:
--                     label= (a generated leaf's dotted public name, a
--                     world's "ball.pose") and from_state= (the port
--                     check/state_log.lua adds for a logged state); xd:
--                     groups= (a generated leaf's named runs of elements)
--   T.names           name -> item; T.name_order: the names in declaration order
--   T.computed[tk]    the calc of built-in value tk (xcdot pe ke pc pnc) if declared
--   T.calcs           every calc of outputs, cache entries, computed values and
--                     events (witness and next_update_time events included), in
--                     declaration order
--   T.events          the event calcs, in declaration order
--   T.witnesses       {name=, loc=, direction=, c_direction=, calc=, event= or nil}
--   T.timed           next_update_time items {name=, loc=, calc=, event=}, or nil
--   T.preambles       {text=, loc={file=, line=, col=}} per c_preamble
-- A calc: {kind = "output" | "cache" | a computed ticket | "event" | "witness"
--   | "next_update_time", name=, loc=, body= (C text), body_loc= (where
--   the body starts in its file), prereqs= (ticket names; the default list
--   when none is given), default_prereqs= (true when defaulted), inferred=
--   (true for prerequisites = "inferred": prereqs is then every ticket the
--   calc could list, until cdiff/infer.lua narrows it to what the body
--   reads; a witness's or next_update_time's calc and event share one
--   list), params=
--   (check/scope.params: the calc function's parameters), item= (outputs
--   and cache entries)}; an event also has trigger= ("periodic" "per_step"
--   "initialization" "witness" "timed"), event_kind= ("publish"
--   "discrete_update" "unrestricted_update"), period=, offset= (periodic)
--   and writes= (updates: the state names it writes, check/writes.lua).
local errors = require("diagc.errors")
local fields = require("diagc.check.fields")
local builtin = require("diagc.vocab.tickets")
local kinds = require("diagc.vocab.kinds")
local leaf_names = require("diagc.check.leaf_names")
local calc = require("diagc.check.calc")
local events = require("diagc.check.events")
local witness = require("diagc.check.witness")
local next_update = require("diagc.check.next_update")
local scope = require("diagc.check.scope")

local M = {}

local COMPUTED_ITEM = {}
for t, word in pairs(builtin.computed) do COMPUTED_ITEM[word] = t end

local function new_leaf(spec, type_id)
  local leaf = {
    kind = "leaf", name = spec.name, loc = spec.loc, id = type_id, generated = spec.world ~= nil,
    preambles = {}, q = {}, v = {}, z = {}, q0 = {}, v0 = {}, z0 = {},
    by_kind = {}, names = {}, name_order = {}, computed = {}, events = {}, calcs = {}, witnesses = {},
  }
  for _, k in ipairs(kinds.order) do leaf.by_kind[k] = {} end
  return leaf
end

local function has_xc(leaf) return #leaf.q + #leaf.v + #leaf.z > 0 end

-- derivatives, potential_energy, ...: the calc of a built-in value
local function computed(leaf, item, sources)
  local k = item._item
  local ticket = COMPUTED_ITEM[k]
  fields.only(item, { "calc", "prerequisites", "jacobian" })
  if leaf.computed[ticket] then
    errors.raise(item.loc, "leaf \"%s\" declares %s twice", leaf.name, k)
  end
  if ticket == "xcdot" and not has_xc(leaf) then
    errors.raise(item.loc, "leaf \"%s\" declares derivatives but no continuous_state", leaf.name)
  end
  leaf.computed[ticket] = calc.new(leaf, item, sources, ticket, ticket, builtin.default_prereqs[ticket], ticket)
end

-- the second pass: calcs and events, in declaration order
local function calcs_and_events(leaf, spec, sources, deferred)
  local taken = events.explicit_names(spec)
  for _, d in ipairs(deferred) do
    local item, k = d.item, d.item._item
    if k == "output_port" or k == "cache_entry" then
      d.it.calc = calc.new(leaf, item, sources, d.it.kind, d.it.name, builtin.default_list, d.it.name)
      d.it.calc.item = d.it
    elseif COMPUTED_ITEM[k] then
      computed(leaf, item, sources)
    elseif events.ITEMS[k] then
      events.check(leaf, item, sources, taken)
    elseif k == "witness" then
      witness.check(leaf, item, sources)
    elseif k == "next_update_time" then
      next_update.check(leaf, item, sources)
    end
  end
end

-- every calc of the leaf: leaf.calcs, then the witness and
-- next_update_time value calcs
-- every calc of a leaf: its own, its witnesses', its next_update_times'
function M.all_calcs(leaf)
  local all = {}
  for _, c in ipairs(leaf.calcs) do all[#all + 1] = c end
  for _, w in ipairs(leaf.witnesses) do all[#all + 1] = w.calc end
  for _, d in ipairs(leaf.timed or {}) do all[#all + 1] = d.calc end
  return all
end

-- prerequisites = "inferred": until the body is read (cdiff/infer.lua),
-- the calc may read everything it could list: all_sources, every other
-- cache entry and every computed value the leaf declares.  Lists shared
-- by a witness's (next_update_time's) calc and event are filled once.
local function infer_scope(leaf, all)
  local filled = {}
  for _, c in ipairs(all) do
    if c.inferred and not filled[c.prereqs] then
      filled[c.prereqs] = true
      local self = (c.kind == "cache" and c.name) or (builtin.computed[c.kind] and c.kind)
      local list = c.prereqs
      list[#list + 1] = "all_sources"
      for _, it in ipairs(leaf.by_kind.cache) do
        if it.name ~= self then list[#list + 1] = it.name end
      end
      for _, tk in ipairs(builtin.computed_order) do
        if leaf.computed[tk] and tk ~= self then list[#list + 1] = tk end
      end
    end
  end
end

-- a computed value a calc lists must be declared; continuous state needs
-- derivatives
local function check_computed(leaf, spec, all)
  for _, c in ipairs(all) do
    for _, t in ipairs(c.prereqs) do
      if builtin.computed[t] and not leaf.computed[t] then
        errors.raise(c.loc, "prerequisite '%s' names a value leaf \"%s\" does not declare; "
          .. "declare %s { calc = ... } in the leaf or remove it", t, leaf.name, builtin.computed[t])
      end
    end
  end
  if has_xc(leaf) and not leaf.computed.xcdot then
    errors.raise(spec.loc, "leaf \"%s\" has continuous state but no derivatives { calc = ... }", leaf.name)
  end
end

function M.check(spec, sources, type_id)
  local leaf = new_leaf(spec, type_id)
  fields.identifier(spec.loc, "leaf name", spec.name)
  -- names must exist before prerequisites refer to them
  local deferred = leaf_names.declare(leaf, spec, sources)
  leaf_names.check_ctypes(leaf)
  leaf_names.check_elements(leaf)
  calcs_and_events(leaf, spec, sources, deferred)
  local all = M.all_calcs(leaf)
  infer_scope(leaf, all)
  check_computed(leaf, spec, all)
  for _, c in ipairs(all) do c.params = scope.params(leaf, c) end
  return leaf
end

return M
