-- check/calc.lua: a calc of a leaf (an output port's, a cache entry's, a
-- computed value's or an event's): its C body, where that body starts in
-- the spec, and its checked prerequisites; added to leaf.calcs.
local errors = require("diagc.errors")
local fields = require("diagc.check.fields")
local prereqs = require("diagc.check.prereqs")

local M = {}

-- item: the declaration holding calc = and prerequisites =; self_name: the
-- value the calc computes (it may not list itself), nil for events.
function M.new(leaf, item, sources, kind, name, default_prereqs, self_name)
  if item.args.calc == nil then
    errors.raise(item.loc, "%s needs a calc = [[ C statements ]]", item._item)
  end
  local body = fields.c_code(item.loc, item._item .. " calc", item.args.calc)
  local list, is_default, inferred = prereqs.check(leaf, item, self_name, default_prereqs)
  local c = { kind = kind, name = name, loc = item.loc, body = body,
    body_loc = fields.locate(sources, item.loc, body),
    prereqs = list, default_prereqs = is_default, inferred = inferred }
  leaf.calcs[#leaf.calcs + 1] = c
  return c
end

return M
