-- check/calc.lua: a calc of a leaf (an output port's, a cache entry's, a
-- computed value's or an event's): its C body, where that body starts in
-- the spec, its checked prerequisites, and how a Jacobian through it is
-- formed (calc.jacobian: "exact", the default, differentiates the body;
-- "finite_difference" uses central differences of the calc); added to
-- leaf.calcs.
local errors = require("diagc.errors")
local fields = require("diagc.check.fields")
local prereqs = require("diagc.check.prereqs")

local M = {}

M.JACOBIAN = { "exact", "finite_difference" }

local function jacobian(item)
  local v = item.args.jacobian
  if v == nil then return "exact" end
  for _, ok in ipairs(M.JACOBIAN) do
    if v == ok then return v end
  end
  errors.raise(item.loc, "%s jacobian must be \"exact\" (the default: the body is differentiated) or "
    .. "\"finite_difference\" (central differences of the calc); got %s", item._item,
    type(v) == "string" and ("\"" .. v .. "\"") or ("a " .. type(v)))
end

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
    prereqs = list, default_prereqs = is_default, inferred = inferred,
    jacobian = kind ~= "event" and jacobian(item) or nil }
  leaf.calcs[#leaf.calcs + 1] = c
  return c
end

return M
