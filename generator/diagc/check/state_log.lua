-- check/state_log.lua: `log { "sys.x" }` of a leaf's state.  A log reads
-- an output port; a state it names (what --state names: a discrete group
-- "sys.x", a part of the continuous state "sys.q" / "sys.v" / "sys.z", or
-- one element "sys.theta") gets an output port of its leaf type that
-- copies it, made once per type and state: its public name is the state's
-- (the log's column is "sys.x"), its element names the state's, its only
-- prerequisite the state's own ticket.  Such ports are not connectable
-- (a connect to "sys.x" still finds no output port).
local added = require("diagc.check.added_port")

local M = {}

-- What `name` is among the leaf's states: {ticket=, from= (the C array the
-- body reads), first= (0-based), size=, elements=} or nil.
local function find_state(lt, name)
  for _, part in ipairs({ "q", "v", "z" }) do
    if name == part and #lt[part] > 0 then
      local named = not lt[part][1]:find("[", 1, true)
      return { ticket = part, from = part, first = 0, size = #lt[part], elements = named and lt[part] or nil }
    end
    for i, n in ipairs(lt[part]) do
      if n == name then return { ticket = part, from = part, first = i - 1, size = 1 } end
    end
  end
  for _, g in ipairs(lt.by_kind.xd) do
    if g.name == name then
      return { ticket = g.name, from = g.name, first = 0, size = g.size, elements = g.elements }
    end
    for i, n in ipairs(g.elements or {}) do
      if n == name then return { ticket = g.name, from = g.name, first = i - 1, size = 1 } end
    end
  end
end

-- The output port of leaf type lt that copies state `name`, or nil when
-- lt has no such state.
function M.port(lt, name)
  if lt.kind ~= "leaf" then return nil end
  local s = find_state(lt, name)
  if not s then return nil end
  return added.add(lt, { name = "log_" .. name:gsub("%.", "_"), label = name, size = s.size, elements = s.elements,
    prereqs = { s.ticket }, from_state = true, body = function(cname)
      return string.format("for (int i = 0; i < %d; i++) %s[i] = %s[%d + i];", s.size, cname, s.from, s.first)
    end })
end

return M
