-- tickets/graph.lua: flattened diagram -> ticket graph.
-- One tracker per ticket per context, with Drake's subscriptions:
-- leaf composites, diagram "up" subscriptions to children, ports wired to
-- their immediate sources, cache entries to their prerequisites.  The
-- graph exists only inside the generator; the C gets its closures (masks).
--
-- Stage contract: F (flatten) -> ticket graph G (M.build); F is unchanged.
--   G.nodes   every tracker, by 1-based id: {id=, ctx=, name=, subs=
--       (subscribers, by id), pres= (prerequisites, by id), entry= (the
--       F.entries entry a computing tracker holds, if any), slot= (fixed:
--       trackers: their F.u_slots slot), suppressed= (true for an empty
--       q, v, z, xc, xd or xa of a leaf)}
--   G.node(ctx, name) -> the tracker or nil.  Names: every built-in ticket
--       (vocab/tickets.names) in every context; in leaves "xd:g", "xa:g",
--       "pn:p", "pa:p", "input:u", "output:y", "cache:c" per item and
--       "outcache:y" (the output's calc) per output; in diagrams "input:u"
--       and "output:y" per exported port; "fixed:u" where an input slot
--       feeds port u.
-- M.stale_set(G, noted) is the generation-time notification sweep masks/
-- runs per entry point.
local builtin = require("diagc.vocab.tickets")
local kinds = require("diagc.vocab.kinds")

local M = {}

-- `sub` subscribes to `pre`: a change of pre notifies sub
local function subscribe(sub, pre)
  pre.subs[#pre.subs + 1] = sub
  sub.pres[#sub.pres + 1] = pre
end

-- the trackers of every context, in id order
local function add_nodes(F, node)
  for _, ctx in ipairs(F.contexts) do
    for _, t in ipairs(builtin.names) do node(ctx, t) end
    local t = ctx.type
    if ctx.kind == "leaf" then
      for _, kind in ipairs(kinds.order) do
        for _, it in ipairs(t.by_kind[kind]) do node(ctx, kind .. ":" .. it.name) end
      end
      for _, it in ipairs(t.by_kind.output) do node(ctx, "outcache:" .. it.name) end
    else
      for _, p in ipairs(t.inputs) do node(ctx, "input:" .. p.name) end
      for _, p in ipairs(t.outputs) do node(ctx, "output:" .. p.name) end
    end
  end
  for _, s in ipairs(F.u_slots) do
    node(s.ctx, "fixed:" .. s.port.name).slot = s
  end
end

-- sub subscribes to the trackers of a prerequisite list
local function sub_list(G, ctx, sub, list)
  for _, tk in ipairs(list) do
    local pre = G.node(ctx, builtin.is_builtin[tk] and tk or (ctx.type.names[tk].kind .. ":" .. tk))
    subscribe(sub, pre)
  end
end

local function leaf_subscriptions(G, ctx)
  local t = ctx.type
  for tk, kind in pairs(builtin.collects) do
    for _, it in ipairs(t.by_kind[kind]) do
      subscribe(G.node(ctx, tk), G.node(ctx, kind .. ":" .. it.name))
    end
  end
  -- computed built-ins: declared calcs use their lists.  An undeclared
  -- one has no value (an empty xcdot, no energy), so unlike Drake its
  -- tracker subscribes to nothing: it can never change.
  for _, tk in ipairs(builtin.computed_order) do
    local c = t.computed[tk]
    if c then
      sub_list(G, ctx, G.node(ctx, tk), c.prereqs)
      G.node(ctx, tk).entry = ctx.entries[tk]
    end
  end
  sub_list(G, ctx, G.node(ctx, "xd_unique_periodic_update"), builtin.default_prereqs.xd_unique_periodic_update)
  for _, it in ipairs(t.by_kind.cache) do
    local n = G.node(ctx, "cache:" .. it.name)
    sub_list(G, ctx, n, it.calc.prereqs)
    n.entry = ctx.entries["cache:" .. it.name]
  end
  for _, it in ipairs(t.by_kind.output) do
    local c = G.node(ctx, "outcache:" .. it.name)
    sub_list(G, ctx, c, it.calc.prereqs)
    c.entry = ctx.entries["output:" .. it.name]
    subscribe(G.node(ctx, "output:" .. it.name), c)
  end
  -- empty kinds are suppressed (Drake #21133)
  local sup = {
    q = ctx.nq == 0, v = ctx.nv == 0, z = ctx.nz == 0,
    xc = ctx.nq + ctx.nv + ctx.nz == 0,
    xd = #t.by_kind.xd == 0, xa = #t.by_kind.xa == 0,
  }
  for k, s in pairs(sup) do if s then G.node(ctx, k).suppressed = true end end
end

local function diagram_subscriptions(G, ctx)
  local t = ctx.type
  -- "up": diagram source composites subscribe to each child's
  for _, ch in ipairs(ctx.children) do
    for _, k in ipairs({ "q", "v", "z", "xd", "xa", "pn", "pa" }) do
      subscribe(G.node(ctx, k), G.node(ch, k))
    end
    for _, k in ipairs(builtin.computed_order) do
      subscribe(G.node(ctx, k), G.node(ch, k))
    end
  end
  for _, p in ipairs(t.inputs) do
    subscribe(G.node(ctx, "all_input_ports"), G.node(ctx, "input:" .. p.name))
  end
  sub_list(G, ctx, G.node(ctx, "xd_unique_periodic_update"), builtin.default_prereqs.xd_unique_periodic_update)
  for _, k in ipairs(builtin.computed_order) do
    if ctx.entries[k] then G.node(ctx, k).entry = ctx.entries[k] end
  end
  for _, p in ipairs(t.outputs) do
    local s = ctx.output_src[p.name]
    subscribe(G.node(ctx, "output:" .. p.name), G.node(s.ctx, "output:" .. s.port))
  end
end

-- input ports subscribe to their immediate source
local function input_subscriptions(G, ctx)
  for port, s in pairs(ctx.input_src) do
    local n = G.node(ctx, "input:" .. port)
    if s.kind == "peer" then
      subscribe(n, G.node(s.ctx, "output:" .. s.port))
    elseif s.kind == "parent" then
      subscribe(n, G.node(s.ctx, "input:" .. s.port))
    else
      subscribe(n, G.node(s.slot.ctx, "fixed:" .. s.slot.port.name))
    end
  end
end

function M.build(F)
  -- nodes by context, then by ticket name (no key strings to build)
  local G = { nodes = {}, by_ctx = {} }
  local function node(ctx, name)
    local t = G.by_ctx[ctx]
    if not t then t = {}; G.by_ctx[ctx] = t end
    local n = t[name]
    if not n then
      n = { id = #G.nodes + 1, ctx = ctx, name = name, subs = {}, pres = {} }
      G.nodes[n.id] = n
      t[name] = n
    end
    return n
  end
  G.node = function(ctx, name)
    local t = G.by_ctx[ctx]
    return t and t[name]
  end
  add_nodes(F, node)
  for _, ctx in ipairs(F.contexts) do
    for _, name in ipairs(builtin.names) do
      local comp = builtin.composite[name]
      if comp then
        for _, pre in ipairs(comp) do subscribe(G.node(ctx, name), G.node(ctx, pre)) end
      end
    end
    if ctx.kind == "leaf" then leaf_subscriptions(G, ctx) else diagram_subscriptions(G, ctx) end
    input_subscriptions(G, ctx)
  end
  -- deterministic subscriber order
  local function by_id(a, b) return a.id < b.id end
  for _, n in ipairs(G.nodes) do
    if #n.subs > 1 then table.sort(n.subs, by_id) end
    if #n.pres > 1 then table.sort(n.pres, by_id) end
  end
  return G
end

-- Drake's notification sweep, run at generation time: NoteValueChange on
-- each noted tracker, NotePrerequisiteChange on subscribers (depth first,
-- each tracker at most once, suppressed trackers stop).  Returns the cache
-- entries marked stale, sorted by bit index.
function M.stale_set(G, noted)
  local seen, out, stack = {}, {}, {}
  for _, n in ipairs(noted) do
    if not seen[n.id] and not n.suppressed then
      seen[n.id] = true -- the source's own value is not marked stale
      for _, s in ipairs(n.subs) do stack[#stack + 1] = s end
    end
  end
  while #stack > 0 do
    local n = stack[#stack]
    stack[#stack] = nil
    if not seen[n.id] and not n.suppressed then
      seen[n.id] = true
      if n.entry then out[#out + 1] = n.entry end
      for _, s in ipairs(n.subs) do stack[#stack + 1] = s end
    end
  end
  table.sort(out, function(a, b) return a.index < b.index end)
  return out
end

return M
