-- masks/entry_points.lua: every way a context can be mutated, with the
-- trackers each one notes (Drake's "down" propagation, done statically:
-- bulk changes note the lowest-level trackers of every owning leaf).
local M = {}

-- Returns a list of entry points {name, cname, noted = {nodes}, ...}.
function M.list(F, G)
  local eps = {}
  local function ep(name, cname, noted, extra)
    local e = extra or {}
    e.name, e.cname, e.noted = name, cname, noted
    eps[#eps + 1] = e
    return e
  end
  local function each_ctx(ticket)
    local l = {}
    for _, c in ipairs(F.contexts) do l[#l + 1] = G.node(c, ticket) end
    return l
  end
  local function each_leaf(fn)
    local l = {}
    for _, c in ipairs(F.leaves) do fn(c, l) end
    return l
  end
  local function leaf_parts(parts)
    return function(c, l)
      for _, p in ipairs(parts) do
        if p == "q" or p == "v" or p == "z" then
          l[#l + 1] = G.node(c, p)
        else
          for _, it in ipairs(c.type.by_kind[p]) do l[#l + 1] = G.node(c, p .. ":" .. it.name) end
        end
      end
    end
  end
  local function slots()
    local l = {}
    for _, s in ipairs(F.u_slots) do l[#l + 1] = G.node(s.ctx, "fixed:" .. s.port.name) end
    return l
  end
  local function concat(...)
    local out = {}
    for _, l in ipairs({ ... }) do for _, n in ipairs(l) do out[#out + 1] = n end end
    return out
  end

  -- root-level (bulk) entry points
  ep("time", "time", each_ctx("time"), { kind = "time" })
  ep("accuracy", "accuracy", each_ctx("accuracy"), { kind = "accuracy" })
  ep("q", "q", each_leaf(leaf_parts({ "q" })), { kind = "bulk" })
  ep("v", "v", each_leaf(leaf_parts({ "v" })), { kind = "bulk" })
  ep("z", "z", each_leaf(leaf_parts({ "z" })), { kind = "bulk" })
  ep("xc", "xc", each_leaf(leaf_parts({ "q", "v", "z" })), { kind = "bulk" })
  ep("xd", "xd", each_leaf(leaf_parts({ "xd" })), { kind = "bulk" })
  local state = each_leaf(leaf_parts({ "q", "v", "z", "xd", "xa" }))
  ep("state", "state", state, { kind = "bulk" })
  local params = each_leaf(leaf_parts({ "pn", "pa" }))
  ep("parameters", "parameters", params, { kind = "bulk" })
  ep("everything", "everything",
    concat(each_ctx("time"), each_ctx("accuracy"), state, params, slots()), { kind = "bulk" })

  -- per-source entry points
  for _, c in ipairs(F.leaves) do
    for _, p in ipairs({ "q", "v", "z" }) do
      if c["n" .. p] > 0 then
        ep(c.path .. "." .. p, c.cpath .. "__" .. p, { G.node(c, p) },
          { kind = "leaf_" .. p, ctx = c })
      end
    end
    for _, kind in ipairs({ "xd", "xa", "pn", "pa" }) do
      for _, it in ipairs(c.type.by_kind[kind]) do
        ep(c.path .. "." .. it.name, c.cpath .. "__" .. it.name,
          { G.node(c, kind .. ":" .. it.name) }, { kind = kind, ctx = c, item = it })
      end
    end
  end
  for _, s in ipairs(F.u_slots) do
    -- public setters: P_set_input_<name> (root inputs) and P_fix_<path>
    local api = s.kind == "input" and ("set_input_" .. s.name) or ("fix_" .. s.name:gsub("%.", "__"))
    s.ep = ep(s.name, nil, { G.node(s.ctx, "fixed:" .. s.port.name) }, { kind = s.kind, slot = s, api = api })
  end
  return eps
end

return M
