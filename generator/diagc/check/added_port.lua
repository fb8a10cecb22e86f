-- check/added_port.lua: output ports a diagram adds to a checked leaf type
-- by referring to them: a logged state (check/state_log.lua) and a world's
-- per-body and per-joint ports (world/signals.lua), which exist in the
-- model only once something connects, exports or logs them.  Each is made
-- once per leaf type and name, as the leaf's own ports are (an item in
-- by_kind.output, names and name_order, a calc in calcs), after the ports
-- the leaf declares.
--   M.add(lt, spec) -> the port; spec = {name= (its C name; another free
--     name of the leaf if taken), label= (its public name), size=,
--     elements=, prereqs= (tickets), body= (C), from_state=}
--   M.world(lt, label) -> the world's port of that name, or nil
local scope = require("diagc.check.scope")

local M = {}

function M.add(lt, spec)
  lt.added_ports = lt.added_ports or {}
  local key = (spec.from_state and "state:" or "port:") .. spec.label
  if lt.added_ports[key] then return lt.added_ports[key] end
  local cname, k = spec.name, 1
  while lt.names[cname] do k = k + 1; cname = spec.name .. "_" .. k end
  local it = { kind = "output", name = cname, label = spec.label, loc = lt.loc, size = spec.size,
    elements = spec.elements, from_state = spec.from_state, index = #lt.by_kind.output + 1 }
  lt.names[cname] = it
  lt.name_order[#lt.name_order + 1] = cname
  table.insert(lt.by_kind.output, it)
  local c = { kind = "output", name = cname, loc = lt.loc, body = spec.body(cname),
    body_loc = { file = lt.loc.file, line = lt.loc.line, col = 1 }, prereqs = spec.prereqs,
    default_prereqs = false, jacobian = "exact", item = it }
  it.calc = c
  c.params = scope.params(lt, c)
  lt.calcs[#lt.calcs + 1] = c
  lt.added_ports[key] = it
  return it
end

function M.world(lt, label)
  if lt.kind ~= "leaf" or not lt.world then return nil end
  local signals = require("diagc.world.signals")
  local spec = signals.port(lt.world, require("diagc.world.lower").prefix(lt.world), label)
  return spec and M.add(lt, spec) or nil
end

return M
