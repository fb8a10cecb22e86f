-- check/next_update.lua: validate a leaf's next_update_time { ... } item
-- (Drake's DoCalcNextUpdateTime override: a one-shot event at a time a calc
-- computes) and add it to the checked leaf.
--
--   next_update_time { "wake", prerequisites = { "n" },
--     calc = [[ t_next = ldexp(1.0, (int)n[0]); ]],   -- sets double `t_next`
--     discrete_update = [[ n_next[0] = n[0] + 1; ]],  -- or publish /
--     writes = { "n" } }                              -- unrestricted_update
--
-- The calc and the event body share the prerequisites.  The event is a
-- leaf event with trigger "timed" (so the coder emits it like any other
-- event); the time calc is kept apart in leaf.timed.
local errors = require("diagc.errors")
local fields = require("diagc.check.fields")
local builtin = require("diagc.vocab.tickets")
local prereqs = require("diagc.check.prereqs")
local writes = require("diagc.check.writes")

local M = {}

local KINDS = { "publish", "discrete_update", "unrestricted_update" }

-- the event item's kind: exactly one of publish / discrete_update /
-- unrestricted_update
local function event_kind(item, name)
  local kind
  for _, k in ipairs(KINDS) do
    if item.args[k] ~= nil then
      if kind then
        errors.raise(item.loc, "next_update_time '%s' has both %s and %s; it fires one event", name, kind, k)
      end
      kind = k
    end
  end
  if not kind then
    errors.raise(item.loc, "next_update_time '%s' needs the event it fires: publish = [[ ... ]], "
      .. "discrete_update = [[ ... ]] or unrestricted_update = [[ ... ]]", name)
  end
  return kind
end

function M.check(leaf, item, sources)
  local a = item.args
  leaf.timed = leaf.timed or {}
  fields.only(item, { "name", "calc", "prerequisites", "publish", "discrete_update",
    "unrestricted_update", "writes" }, 1)
  local name = a[1] or a.name
  if name == nil then
    errors.raise(item.loc, "next_update_time needs a name, as in next_update_time { \"wake\", "
      .. "calc = [[ t_next = ...; ]], publish = [[ ... ]] }")
  end
  fields.identifier(item.loc, "next_update_time name", name)
  for _, e in ipairs(leaf.events) do
    if e.name == name then
      errors.raise(item.loc, "leaf \"%s\" already has an event named '%s' (a next_update_time's event "
        .. "takes its name)", leaf.name, name)
    end
  end
  if a.calc == nil then
    errors.raise(item.loc, "next_update_time '%s' needs a calc = [[ t_next = ...; ]] that sets the "
      .. "double 't_next' (leave it INFINITY for no event)", name)
  end
  local kind = event_kind(item, name)
  if a.writes ~= nil and kind == "publish" then
    errors.raise(item.loc, "next_update_time '%s': writes is only for an update (discrete_update or "
      .. "unrestricted_update)", name)
  end
  local subject = "next_update_time '" .. name .. "'"
  local writable = kind ~= "publish" and writes.allowed(leaf, item, kind, subject .. ": " .. kind) or nil

  local body = fields.c_code(item.loc, "next_update_time calc", a.calc)
  local list, is_default, inferred = prereqs.check(leaf, item, nil, builtin.default_list)
  local d = { name = name, loc = item.loc }
  d.calc = { kind = "next_update_time", name = name, loc = item.loc, body = body,
    body_loc = fields.locate(sources, item.loc, body), prereqs = list,
    default_prereqs = is_default, inferred = inferred }
  local ebody = fields.c_code(item.loc, "next_update_time " .. kind, a[kind])
  local ev = { kind = "event", name = name, loc = item.loc, body = ebody,
    body_loc = fields.locate(sources, item.loc, ebody), prereqs = list,
    default_prereqs = is_default, inferred = inferred, trigger = "timed", event_kind = kind }
  if writable then ev.writes = writes.check(item, writable, subject) end
  leaf.calcs[#leaf.calcs + 1] = ev
  leaf.events[#leaf.events + 1] = ev
  d.event = ev
  leaf.timed[#leaf.timed + 1] = d
end

return M
