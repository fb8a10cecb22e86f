-- check/events.lua: a leaf's periodic, per-step and initialization event
-- items (periodic_publish, per_step_discrete_update, ...): the event's
-- name, trigger, kind, period and offset, and the state it writes.
-- Witness and next_update_time events are check/witness.lua's and
-- check/next_update.lua's.
local errors = require("diagc.errors")
local fields = require("diagc.check.fields")
local builtin = require("diagc.vocab.tickets")
local writes = require("diagc.check.writes")
local calc = require("diagc.check.calc")

local M = {}

-- item name -> { trigger, event kind }
M.ITEMS = {
  periodic_publish = { "periodic", "publish" },
  periodic_discrete_update = { "periodic", "discrete_update" },
  periodic_unrestricted_update = { "periodic", "unrestricted_update" },
  per_step_publish = { "per_step", "publish" },
  per_step_discrete_update = { "per_step", "discrete_update" },
  per_step_unrestricted_update = { "per_step", "unrestricted_update" },
  initialization_publish = { "initialization", "publish" },
  initialization_discrete_update = { "initialization", "discrete_update" },
  initialization_unrestricted_update = { "initialization", "unrestricted_update" },
}

-- The names a leaf's event items give explicitly (a set), so unnamed
-- events are named around them.
function M.explicit_names(spec)
  local names = {}
  for _, item in ipairs(spec.items) do
    if M.ITEMS[item._item] then
      local n = item.args[1] or item.args.name
      if type(n) == "string" then names[n] = true end
    end
  end
  return names
end

-- the event's name: given, or kind_<n>, skipping names the leaf gives its
-- events explicitly and names already given (added to `taken`)
local function name_of(leaf, item, kind, taken)
  local name = item.args[1] or item.args.name
  if name ~= nil then
    fields.identifier(item.loc, "event name", name)
  else
    local n = #leaf.events
    while taken[kind .. "_" .. n] do n = n + 1 end
    name = kind .. "_" .. n
    taken[name] = true
  end
  for _, e in ipairs(leaf.events) do
    if e.name == name then errors.raise(item.loc, "leaf \"%s\" already has an event named '%s'", leaf.name, name) end
  end
  return name
end

local function timing(ev, item, k)
  local a = item.args
  ev.period = fields.number(item.loc, k .. " period", a.period)
  if ev.period <= 0 then errors.raise(item.loc, "%s period must be positive, got %s", k, tostring(a.period)) end
  ev.offset = a.offset == nil and 0 or fields.number(item.loc, k .. " offset", a.offset)
  if ev.offset < 0 then errors.raise(item.loc, "%s offset must be non-negative", k) end
end

-- Checks the event item and adds its event to leaf.events (and its calc
-- to leaf.calcs).  taken: M.explicit_names(spec), grown as events are named.
function M.check(leaf, item, sources, taken)
  local k = item._item
  local trig, kind = M.ITEMS[k][1], M.ITEMS[k][2]
  local allowed = { "name", "calc", "prerequisites" }
  if trig == "periodic" then allowed[#allowed + 1] = "period"; allowed[#allowed + 1] = "offset" end
  if kind ~= "publish" then allowed[#allowed + 1] = "writes" end
  fields.only(item, allowed, 1)
  local name = name_of(leaf, item, kind, taken)
  local ev = calc.new(leaf, item, sources, "event", name, builtin.default_list, nil)
  ev.trigger, ev.event_kind = trig, kind
  if trig == "periodic" then timing(ev, item, k) end
  if kind ~= "publish" then
    ev.writes = writes.check(item, writes.allowed(leaf, item, kind, k), k)
  end
  leaf.events[#leaf.events + 1] = ev
end

return M
