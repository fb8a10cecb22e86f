-- vocab/tickets.lua: Drake's built-in dependency tickets: the one table
-- the checker, the scope rules, flatten and the ticket graph all read.
-- Vocabulary, not a stage: it requires nothing and every stage may use it.
local M = {}

-- In Drake's numbering order.
M.names = {
  "nothing", "time", "accuracy", "q", "v", "z", "xc", "xd", "xa", "all_state",
  "pn", "pa", "all_parameters", "all_sources_except_input_ports",
  "all_input_ports", "all_sources", "configuration", "kinematics",
  "xcdot", "pe", "ke", "pc", "pnc", "xd_unique_periodic_update",
}
M.is_builtin = {}
for _, n in ipairs(M.names) do M.is_builtin[n] = true end

-- Built-in trackers that subscribe to other built-ins (same context).
-- Per-item subscriptions (xd -> each xd_i, u -> each u_i, ...) are added by
-- the graph builder.
M.composite = {
  xc = { "q", "v", "z" },
  all_state = { "xc", "xd", "xa" },
  all_parameters = { "pn", "pa" },
  all_sources_except_input_ports = { "time", "accuracy", "all_state", "all_parameters" },
  all_sources = { "all_sources_except_input_ports", "all_input_ports" },
  configuration = { "accuracy", "q", "z", "xd", "xa", "all_parameters" },
  kinematics = { "configuration", "v" },
}

-- Which per-item kind a built-in collects: xd collects every discrete group.
M.collects = { xd = "xd", xa = "xa", pn = "pn", pa = "pa", all_input_ports = "input" }

-- Built-in computed values (cache entries with a calc).
M.computed = { xcdot = "derivatives", pe = "potential_energy", ke = "kinetic_energy",
  pc = "conservative_power", pnc = "nonconservative_power" }
M.computed_order = { "xcdot", "pe", "ke", "pc", "pnc" }

-- Default prerequisites when a declaration lists none.
M.default_prereqs = {
  xcdot = { "all_sources" }, pnc = { "all_sources" },
  pe = { "accuracy", "all_state", "all_parameters" },
  ke = { "accuracy", "all_state", "all_parameters" },
  pc = { "accuracy", "all_state", "all_parameters" },
  xd_unique_periodic_update = { "all_sources" },
}
M.default_list = { "all_sources" }

-- Names generated code uses inside calc bodies; items may not take them.
M.reserved = { t = true, accuracy = true, qdot = true, vdot = true, zdot = true }
for _, n in ipairs(M.names) do M.reserved[n] = true end

-- Expand a ticket list of a leaf to the set of primitive values it grants:
-- returns set of keys like "t", "accuracy", "q", "v", "z", "xd:name",
-- "xa:name", "pn:name", "pa:name", "input:name", "cache:name", "builtin:pe".
function M.expand(leaf, list)
  local out = {}
  local function add(t)
    if t == "nothing" or t == "xd_unique_periodic_update" then return end
    if t == "time" then out.t = true; return end
    if t == "accuracy" then out.accuracy = true; return end
    if t == "q" or t == "v" or t == "z" then out[t] = true; return end
    if M.composite[t] then
      for _, s in ipairs(M.composite[t]) do add(s) end
      return
    end
    local kind = M.collects[t]
    if kind then
      for _, it in ipairs(leaf.by_kind[kind]) do out[kind .. ":" .. it.name] = true end
      return
    end
    if M.computed[t] then out["builtin:" .. t] = true; return end
    local it = leaf.names[t]
    if it then out[it.kind .. ":" .. t] = true; return end
    error("unknown ticket " .. tostring(t))
  end
  for _, t in ipairs(list) do add(t) end
  return out
end

return M
