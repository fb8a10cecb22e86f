-- check/witness.lua: validate a leaf's witness { ... } item (a zero-crossing
-- function and the event it fires) and add it to the checked leaf.
--
--   witness { "ground", direction = "positive_to_nonpositive",
--     prerequisites = { "q", "v", "e" },
--     calc = [[ value = q[0]; ]],                    -- sets double `value`
--     unrestricted_update = [[ v_next[0] = -e[0] * v[0]; ]],  -- or publish
--     writes = { "v" } }                             -- optional
--
-- The calc and the event body share the prerequisites.  The event is a
-- leaf event with trigger "witness" (so the coder emits it like any other
-- event); the witness value calc is kept apart in leaf.witnesses.
local errors = require("diagc.errors")
local fields = require("diagc.check.fields")
local builtin = require("diagc.vocab.tickets")
local kinds = require("diagc.vocab.kinds")
local prereqs = require("diagc.check.prereqs")
local writes = require("diagc.check.writes")

local M = {}

M.DIRECTIONS = {
  positive_to_nonpositive = "DIAGC_WITNESS_POSITIVE_TO_NONPOSITIVE",
  negative_to_nonnegative = "DIAGC_WITNESS_NEGATIVE_TO_NONNEGATIVE",
  crossing = "DIAGC_WITNESS_CROSSING",
}

function M.check(leaf, item, sources)
  local a = item.args
  fields.only(item, { "name", "direction", "calc", "prerequisites", "publish",
    "unrestricted_update", "writes" }, 1)
  local name = a[1] or a.name
  if name == nil then
    errors.raise(item.loc, "witness needs a name, as in witness { \"ground\", direction = ..., calc = ... }")
  end
  fields.identifier(item.loc, "witness name", name)
  for _, e in ipairs(leaf.events) do
    if e.name == name then
      errors.raise(item.loc, "leaf \"%s\" already has an event named '%s' (a witness's event takes "
        .. "the witness's name)", leaf.name, name)
    end
  end
  local dir = a.direction
  if not M.DIRECTIONS[dir] then
    errors.raise(item.loc, "witness '%s': direction must be \"positive_to_nonpositive\", "
      .. "\"negative_to_nonnegative\" or \"crossing\", got %s", name,
      type(dir) == "string" and ("\"" .. dir .. "\"") or tostring(dir))
  end
  if a.calc == nil then
    errors.raise(item.loc, "witness '%s' needs a calc = [[ value = ...; ]] that sets the double 'value'", name)
  end
  if leaf.names.value then
    errors.raise(item.loc, "witness '%s': leaf \"%s\" declares a '%s' named 'value', which witness "
      .. "calcs use for their result; rename it", name, leaf.name,
      kinds.words[leaf.names.value.kind])
  end
  local body = fields.c_code(item.loc, "witness calc", a.calc)
  local list, is_default, inferred = prereqs.check(leaf, item, nil, builtin.default_list)
  local w = { name = name, loc = item.loc, direction = dir, c_direction = M.DIRECTIONS[dir] }
  w.calc = { kind = "witness", name = name, loc = item.loc, body = body,
    body_loc = fields.locate(sources, item.loc, body), prereqs = list,
    default_prereqs = is_default, inferred = inferred }

  if a.publish ~= nil and a.unrestricted_update ~= nil then
    errors.raise(item.loc, "witness '%s' has both publish and unrestricted_update; a witness fires "
      .. "one event", name)
  end
  local kind = (a.publish ~= nil and "publish") or (a.unrestricted_update ~= nil and "unrestricted_update")
  if a.writes ~= nil and kind ~= "unrestricted_update" then
    errors.raise(item.loc, "witness '%s': writes is only for an unrestricted_update", name)
  end
  if kind then
    local ebody = fields.c_code(item.loc, "witness " .. kind, a[kind])
    local ev = { kind = "event", name = name, loc = item.loc, body = ebody,
      body_loc = fields.locate(sources, item.loc, ebody), prereqs = list,
      default_prereqs = is_default, inferred = inferred, trigger = "witness", event_kind = kind }
    if kind == "unrestricted_update" then
      local subject = "witness '" .. name .. "'"
      ev.writes = writes.check(item, writes.allowed(leaf, item, kind, subject .. ": " .. kind), subject)
    end
    leaf.calcs[#leaf.calcs + 1] = ev
    leaf.events[#leaf.events + 1] = ev
    w.event = ev
  end
  for _, other in ipairs(leaf.witnesses) do
    if other.name == name then
      errors.raise(item.loc, "leaf \"%s\" already has a witness named '%s'", leaf.name, name)
    end
  end
  leaf.witnesses[#leaf.witnesses + 1] = w
end

return M
