-- lib/blocks/edges.lua: the items that act on an edge of a trigger input
-- (the integrator's reset, the sample-and-hold, the counter; docs/library.md,
-- "Hybrid").  An edge is the trigger passing the parameter `threshold`
-- (rising: from below to at or above; falling: from at or above to
-- below; either).  The trigger's last value is a discrete state `last`.
-- A trigger that crosses continuously is found by a witness (the
-- simulator lands on the crossing); one that jumps at an event (a step, a
-- pulse) is seen when the simulator asks for the next event time after
-- that event: the block then asks for an event 1e-10 max(1, |t|) later
-- (no event may be at the current time).  Either event runs the block's
-- action on an edge of its kind and sets `last` to the trigger.
--
--   M.items(ctors, trigger, kind, action, writes, reads) -> a list of items
--     trigger: the input port's name; kind: "rising", "falling", "either"
--     action: C run on an edge (writes the _next of `writes`, reads `reads`)
local M = {}

M.KINDS = { "rising", "falling", "either" }

local CONDITION = {
  rising = "last[0] < threshold[0] && %s[0] >= threshold[0]",
  falling = "last[0] >= threshold[0] && %s[0] < threshold[0]",
  either = "(last[0] < threshold[0]) != (%s[0] < threshold[0])",
}

function M.condition(kind, trigger) return (CONDITION[kind]:gsub("%%s", trigger)) end

function M.items(ctors, trigger, kind, action, writes, reads)
  local all_writes, pre = { "last" }, { trigger, "last", "threshold" }
  for _, w in ipairs(writes) do all_writes[#all_writes + 1] = w end
  for _, r in ipairs(reads) do pre[#pre + 1] = r end
  local body = string.format("if (%s) {\n%s\n}\nlast_next[0] = %s[0];", M.condition(kind, trigger), action, trigger)
  local timed = { "time" }
  for _, p in ipairs(pre) do timed[#timed + 1] = p end
  return {
    ctors.discrete_state { "last", default = { 0 } },
    ctors.initialization_unrestricted_update { "start", prerequisites = { trigger }, writes = { "last" },
      calc = string.format("last_next[0] = %s[0];", trigger) },
    ctors.next_update_time { "jump", prerequisites = timed, writes = all_writes, unrestricted_update = body,
      calc = string.format("if (%s) t_next = t + 1e-10 * (t > 1.0 ? t : t < -1.0 ? -t : 1.0);",
        CONDITION.either:gsub("%%s", trigger)) },
    ctors.witness { "crossing", direction = "crossing", prerequisites = pre, writes = all_writes,
      calc = string.format("value = %s[0] - threshold[0];", trigger), unrestricted_update = body },
  }
end

return M
