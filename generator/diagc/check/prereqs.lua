-- check/prereqs.lua: validate a calc's prerequisites list (the tickets it
-- reads) against the built-in tickets and the names its leaf declares.
-- Used by check/leaf.lua, check/witness.lua and check/next_update.lua.
-- `prerequisites = "inferred"` (the string, not in a list) asks diagc to
-- read the body and list what it uses (cdiff/infer.lua): here it gives an
-- empty list that check/leaf.lua's M.infer_scope fills with every ticket
-- the calc could list.
local errors = require("diagc.errors")
local builtin = require("diagc.vocab.tickets")
local util = require("diagc.util")

local M = {}

M.INFERRED = "inferred"

local function unknown(leaf, item, t)
  local cands = {}
  for _, n in ipairs(builtin.names) do cands[#cands + 1] = n end
  for _, n in ipairs(leaf.name_order) do cands[#cands + 1] = n end
  if t == "inferred" then
    errors.raise(item.loc, "unknown prerequisite 'inferred' in leaf \"%s\"; to infer the "
      .. "prerequisites from the body write prerequisites = \"inferred\" (a string, not a list)", leaf.name)
  end
  local best = util.suggest(t, cands)
  errors.raise(item.loc, "unknown prerequisite '%s' in leaf \"%s\"%s", t, leaf.name,
    best and string.format("; did you mean '%s'?", best) or
    "; use a built-in ticket (time, q, xd, all_sources, ...) or a name declared in this leaf")
end

-- one ticket t of the list: a built-in, or a source or cache entry the leaf
-- declares (not an output port, not the calc's own value)
local function check_one(leaf, item, self_name, t, i, n)
  if type(t) ~= "string" then
    errors.raise(item.loc, "prerequisite %d must be a ticket name string, got %s", i, type(t))
  end
  if t == "nothing" and n > 1 then
    errors.raise(item.loc, "prerequisite \"nothing\" must stand alone; remove it or the other tickets")
  end
  if builtin.is_builtin[t] then return end
  local it = leaf.names[t]
  if not it then unknown(leaf, item, t) end
  if it.kind == "output" then
    errors.raise(item.loc, "prerequisite '%s' is an output port; a calc may list only sources "
      .. "and cache entries of its own leaf (declare a cache_entry and list that)", t)
  end
  if t == self_name then
    errors.raise(item.loc, "'%s' lists itself as a prerequisite", t)
  end
end

-- The item's prerequisites (item.args.prerequisites), checked: returns the
-- list of ticket names, whether it is the default (a copy of `default`,
-- when the item lists none) and whether it is to be inferred (an empty
-- list, filled later).  self_name: the calc's own value, which it may not
-- list (nil for events, witnesses and next_update_time items).
function M.check(leaf, item, self_name, default)
  local list = item.args.prerequisites
  if list == M.INFERRED then return {}, false, true end
  if list == nil then
    local d = {}
    for i, t in ipairs(default) do d[i] = t end
    return d, true
  end
  if type(list) == "string" then list = { list } end
  if type(list) ~= "table" then
    errors.raise(item.loc, "prerequisites must be a list of ticket names such as {\"q\", \"time\"}")
  end
  if #list == 0 then
    errors.raise(item.loc, "prerequisites is an empty list; list the values the calc reads, "
      .. "or write {\"nothing\"} if it reads none (omit the field to mean all_sources)")
  end
  local out, seen = {}, {}
  for i, t in ipairs(list) do
    check_one(leaf, item, self_name, t, i, #list)
    if seen[t] then errors.raise(item.loc, "prerequisite '%s' is listed twice", t) end
    seen[t] = true
    out[#out + 1] = t
  end
  return out, false
end

return M
