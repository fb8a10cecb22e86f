-- testing/world_capacity.lua: the message of a simulation that a world's
-- step stopped because its collision found more contacts than the world's
-- max_contacts (DIAGC_WORLD_E_CONTACTS; docs/world.md, "Capacity").  The
-- simulator's own message names the event, the time and the status; this
-- one names the world, the time, the contacts the step needed (read from
-- the world's work entry, which the failed step computed: the contacts it
-- held plus those beyond the cap, every one counted) and the cap, and how
-- to fix it.  `diagc run` and `diagc test` (testing/model.lua, Sim:error)
-- print it.
--
--   M.message(sim, msg) -> the message, or nil when msg is not this failure
local ffi = require("ffi")
local next_state = require("diagc.testing.step_jacobians").next_state

local M = {}

local function world_at(model, path)
  for _, leaf in ipairs(model.gen and model.gen.flat.leaves or {}) do
    if leaf.type.world and leaf.path == path then return leaf end
  end
end

function M.message(sim, msg)
  local status = ffi.string(ffi.C.diagc_status_message(ffi.C.DIAGC_WORLD_E_CONTACTS))
  if msg:sub(-#status) ~= status then return nil end
  local path, t = msg:match("event '(.+)%.step' failed at t = ([^:]+): ")
  local leaf = path and world_at(sim.model, path)
  if not leaf then return nil end
  local s = next_state(sim.context, leaf)
  if not s then return nil end
  local C = leaf.type.world
  local needed = s.info[1] + s.info[5]
  local where = leaf.path == C.name and "" or string.format(" (system %s)", leaf.path)
  return string.format("world \"%s\"%s needs %d contacts at t = %.10g s, more than max_contacts = %d; raise "
    .. "max_contacts to at least %d or set contact_overflow = \"drop\" (docs/world.md, \"Capacity\")", C.name, where,
    needed, tonumber(t) or sim:time(), C.max_collide or C.max_contacts, needed)
end

return M
