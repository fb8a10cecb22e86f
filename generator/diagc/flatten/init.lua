-- flatten/init.lua: checked model -> flattened diagram.
-- Instantiates the type tree into contexts (one per subsystem), assigns
-- every value its place in the flat context arrays, resolves each input
-- port to its ultimate source and lists every cache entry.
--
-- Stage contract: checked model M (check/init.lua) -> F (M.flatten):
--   F.root, F.contexts  the root context; every context, pre-order.  A
--       context: {kind = "leaf" | "diagram", type= (checked type), name=,
--       path= ("a.b", "" for the root), cpath= ("a__b"), parent=,
--       children=, loc=, id= (1-based in F.contexts), entries= (below),
--       input_src= (port -> its immediate source: {kind="peer", ctx=, port=,
--       loc=} | {kind="parent", ctx=, port=} | {kind="fixed"|"root", slot=}),
--       output_src= (diagrams: exported output -> {ctx= child, port=})};
--       a diagram context also has by_name (child name -> context)
--   F.leaves  the leaf contexts, pre-order; each also has leaf_index
--       (0-based), nq, nv, nz, q_off, v_off, z_off (offsets in q, v, z),
--       xq, xv, xz (offsets of its q, v, z in the continuous state xc =
--       all q, then all v, then all z), xd_off[group] and pn_off[param]
--       (offsets in xd and pn), xa_field[name], pa_field[name] (C field
--       names "xa_<cpath>__<name>"), param_values[param] (defaults with the
--       diagrams' overrides applied)
--   F.nq, F.nv, F.nz, F.nxc, F.nxd, F.npn, F.nu  sizes of the flat arrays
--   F.xa, F.pa   abstract values {field=, ctype=, init=, ctx=, item=}
--   F.u_slots    input slots, root exported inputs first, then fixed inputs
--       in context order: {kind = "input" | "fixed", name=, size=, offset=
--       (in u), default=, ctx=, port=}
--   F.entries    the cache entries in bit order, each {index= (0-based bit),
--       kind = "output" | "cache" | "computed" | "diagram_computed", ctx=,
--       name=, size= (not for a diagram's xcdot), offset= (in the double
--       cache; not for typed entries and xcdot), field= (typed entries: "c_<cpath>__<name>"), ctype=,
--       calc=, item= (leaf entries), ticket= (computed: xcdot pe ke pc pnc),
--       parts= (diagram_computed: the children's entries of that ticket)};
--       a leaf's entries are its outputs and cache entries in declaration
--       order, then its computed values; a diagram has an xcdot entry and
--       one per other ticket some child has, after its children's entries.  ctx.entries maps "output:p", "cache:c" and
--       the ticket names to them.
--   F.xcdot_base (0), F.ncache_d  the double cache holds xcdot (nxc
--       doubles) then every vector entry
--   F.outputs    every output port of every context, pre-order: {ctx=,
--       port=, size=, path=, cname=, entry= (the leaf output behind it)}
--   F.logs       {name=, output= (0-based in F.outputs), size=, period=, loc=}
--   F.resolve_output(ctx, port) -> entry; F.resolve_input(ctx, port) ->
--       {entry=} (driven by an output) or {slot=} (by an input slot)
local errors = require("diagc.errors")
local fields = require("diagc.check.fields")
local builtin = require("diagc.vocab.tickets")
local util = require("diagc.util")

local M = {}

local function join(a, b) return a == "" and b or (a .. "." .. b) end
local function cjoin(a, b) return a == "" and b or (a .. "__" .. b) end

function M.flatten(model)
  local F = {
    contexts = {},   -- every context, pre-order
    leaves = {},     -- leaf contexts, pre-order
    nq = 0, nv = 0, nz = 0, nxd = 0, npn = 0, nu = 0, ncache_d = 0,
    entries = {},    -- cache entries, bit order
    u_slots = {},    -- {name, size, offset, default, kind="fixed"|"input", ctx, port}
    logs = {},
    xa = {}, pa = {}, -- abstract fields {field, ctype, init, ctx, item}
  }

  local function new_entry(e)
    e.index = #F.entries -- 0-based bit
    F.entries[#F.entries + 1] = e
    return e
  end

  local function apply_overrides(ctx, ov)
    local t = ctx.type
    for _, path in ipairs(util.sorted_keys(ov)) do
      local o = ov[path]
      local it = t.names[path]
      if not it or it.kind ~= "pn" then
        errors.raise(o.loc, "leaf \"%s\" (subsystem '%s') has no numeric parameter '%s'",
          t.name, ctx.path, path)
      end
      ctx.param_values[path] = fields.vector(o.loc, "parameter '" .. path .. "'", o.value, it.size)
    end
  end

  local function instantiate(t, name, parent, ov, loc)
    local ctx = {
      kind = t.kind, type = t, name = name, parent = parent, children = {}, loc = loc,
      path = parent and join(parent.path, name) or "",
      cpath = parent and cjoin(parent.cpath, name) or "",
      id = #F.contexts + 1,
    }
    F.contexts[#F.contexts + 1] = ctx
    if t.kind == "leaf" then
      ctx.leaf_index = #F.leaves
      F.leaves[#F.leaves + 1] = ctx
      ctx.param_values = {}
      for _, p in ipairs(t.by_kind.pn) do ctx.param_values[p.name] = p.default end
      apply_overrides(ctx, ov)
    else
      ctx.by_name = {}
      for _, s in ipairs(t.systems) do
        local sub = {}
        for _, p in ipairs(s.params) do sub[p.path] = { value = p.value, loc = p.loc } end
        local prefix = s.name .. "."
        for path, o in pairs(ov) do
          if path:sub(1, #prefix) == prefix then sub[path:sub(#prefix + 1)] = o end
        end
        local child = instantiate(s.type, s.name, ctx, sub, s.loc)
        ctx.children[#ctx.children + 1] = child
        ctx.by_name[s.name] = child
      end
      for path, o in pairs(ov) do
        local head = path:match("^([^.]+)%.")
        if not head or not ctx.by_name[head] then
          errors.raise(o.loc, "parameters: '%s' does not name a parameter inside diagram \"%s\"; "
            .. "use \"subsystem.parameter\"", path, t.name)
        end
      end
    end
    return ctx
  end

  F.root = instantiate(model.root, "", nil, {}, model.root.loc)

  -- continuous state: q of all leaves, then v, then z
  for _, part in ipairs({ "q", "v", "z" }) do
    for _, ctx in ipairs(F.leaves) do
      ctx[part .. "_off"] = F["n" .. part]
      F["n" .. part] = F["n" .. part] + #ctx.type[part]
    end
  end
  F.nxc = F.nq + F.nv + F.nz
  -- xc index of a leaf's q/v/z start
  for _, ctx in ipairs(F.leaves) do
    ctx.xq = ctx.q_off
    ctx.xv = F.nq + ctx.v_off
    ctx.xz = F.nq + F.nv + ctx.z_off
    ctx.nq, ctx.nv, ctx.nz = #ctx.type.q, #ctx.type.v, #ctx.type.z
  end

  -- discrete groups, numeric parameters, abstract values
  for _, ctx in ipairs(F.leaves) do
    local t = ctx.type
    ctx.xd_off, ctx.pn_off, ctx.xa_field, ctx.pa_field = {}, {}, {}, {}
    for _, g in ipairs(t.by_kind.xd) do ctx.xd_off[g.name] = F.nxd; F.nxd = F.nxd + g.size end
    for _, g in ipairs(t.by_kind.pn) do ctx.pn_off[g.name] = F.npn; F.npn = F.npn + g.size end
    for _, g in ipairs(t.by_kind.xa) do
      local f = "xa_" .. cjoin(ctx.cpath, g.name)
      ctx.xa_field[g.name] = f
      F.xa[#F.xa + 1] = { field = f, ctype = g.ctype, init = g.init, ctx = ctx, item = g }
    end
    for _, g in ipairs(t.by_kind.pa) do
      local f = "pa_" .. cjoin(ctx.cpath, g.name)
      ctx.pa_field[g.name] = f
      F.pa[#F.pa + 1] = { field = f, ctype = g.ctype, init = g.init, ctx = ctx, item = g }
    end
  end

  -- input slots: root exported inputs and fixed inputs at every level
  local function new_slot(s)
    s.offset = F.nu
    F.nu = F.nu + s.size
    F.u_slots[#F.u_slots + 1] = s
    return s
  end
  for _, p in ipairs(model.root.inputs) do
    local def = p.default
    if not def then def = {}; for i = 1, p.size do def[i] = 0 end end
    new_slot({ kind = "input", name = p.name, size = p.size, default = def, ctx = F.root, port = p })
  end
  -- immediate sources of input ports and diagram outputs, per context
  for _, ctx in ipairs(F.contexts) do
    ctx.input_src = {}  -- port name -> {kind="peer"/"parent"/"fixed"/"root", ...}
    ctx.output_src = {} -- diagram output name -> {ctx=child, port=name}
  end
  F.root.input_src = {}
  for _, s in ipairs(F.u_slots) do F.root.input_src[s.port.name] = { kind = "root", slot = s } end
  for _, ctx in ipairs(F.contexts) do
    if ctx.kind == "diagram" then
      local t = ctx.type
      for _, c in ipairs(t.connections) do
        local dst = ctx.by_name[c.to.sys.name]
        dst.input_src[c.to.port.name] = { kind = "peer", ctx = ctx.by_name[c.from.sys.name],
          port = c.from.port.name, loc = c.loc }
      end
      for _, p in ipairs(t.inputs) do
        for _, tg in ipairs(p.targets) do
          ctx.by_name[tg.sys.name].input_src[tg.port.name] = { kind = "parent", ctx = ctx, port = p.name }
        end
      end
      for _, f in ipairs(t.fixed) do
        local child = ctx.by_name[f.target.sys.name]
        local slot = new_slot({ kind = "fixed", name = join(child.path, f.target.port.name),
          size = f.target.port.size, default = f.value, ctx = child, port = f.target.port })
        child.input_src[f.target.port.name] = { kind = "fixed", slot = slot }
      end
      for _, o in ipairs(t.outputs) do
        ctx.output_src[o.name] = { ctx = ctx.by_name[o.source.sys.name], port = o.source.port.name }
      end
    end
  end

  -- cache entries, in context pre-order; diagrams' computed entries after
  -- their children (post-order) so bit order follows evaluation order.
  F.xcdot_base = 0
  F.ncache_d = F.nxc
  local function vec_storage(size)
    local off = F.ncache_d
    F.ncache_d = F.ncache_d + size
    return off
  end
  local function build_entries(ctx)
    local t = ctx.type
    ctx.entries = {}
    if ctx.kind == "leaf" then
      for _, it in ipairs(t.calcs) do
        if it.kind == "output" or it.kind == "cache" then
          local item = it.item
          local e = { kind = it.kind, ctx = ctx, name = item.name, calc = it, item = item,
            size = item.size, ctype = item.ctype }
          if item.size then e.offset = vec_storage(item.size) end
          if item.ctype then e.field = "c_" .. cjoin(ctx.cpath, item.name) end
          ctx.entries[(it.kind == "output" and "output:" or "cache:") .. item.name] = new_entry(e)
        end
      end
      for _, tk in ipairs(builtin.computed_order) do
        local c = t.computed[tk]
        if c then
          local e = { kind = "computed", ticket = tk, ctx = ctx, name = tk, calc = c }
          if tk == "xcdot" then e.size = ctx.nq + ctx.nv + ctx.nz
          else e.size = 1; e.offset = vec_storage(1) end
          ctx.entries[tk] = new_entry(e)
        end
      end
    else
      for _, ch in ipairs(ctx.children) do build_entries(ch) end
      for _, tk in ipairs(builtin.computed_order) do
        local parts = {}
        for _, ch in ipairs(ctx.children) do
          if ch.entries[tk] then parts[#parts + 1] = ch.entries[tk] end
        end
        if tk == "xcdot" or #parts > 0 then
          local e = { kind = "diagram_computed", ticket = tk, ctx = ctx, name = tk, parts = parts }
          if tk ~= "xcdot" then e.size = 1; e.offset = vec_storage(1) end
          ctx.entries[tk] = new_entry(e)
        end
      end
    end
  end
  build_entries(F.root)

  -- resolve a context's output port to the leaf output entry behind it
  function F.resolve_output(ctx, port)
    while ctx.kind == "diagram" do
      local s = ctx.output_src[port]
      ctx, port = s.ctx, s.port
    end
    return ctx.entries["output:" .. port]
  end
  -- resolve an input port to {entry=} or {slot=}
  function F.resolve_input(ctx, port)
    while true do
      local s = ctx.input_src[port]
      if s.kind == "peer" then return { entry = F.resolve_output(s.ctx, s.port) } end
      if s.kind == "fixed" or s.kind == "root" then return { slot = s.slot } end
      ctx, port = s.ctx, s.port
    end
  end

  -- outputs of every context (leaf and diagram), pre-order, for the API
  F.outputs = {}
  for _, ctx in ipairs(F.contexts) do
    local ports = ctx.kind == "leaf" and ctx.type.by_kind.output or ctx.type.outputs
    for _, p in ipairs(ports) do
      F.outputs[#F.outputs + 1] = { ctx = ctx, port = p.name, size = p.size,
        path = join(ctx.path, p.name), cname = cjoin(ctx.cpath, p.name),
        entry = F.resolve_output(ctx, p.name) }
    end
  end
  local out_index = {}
  for i, o in ipairs(F.outputs) do out_index[o.path] = i - 1 end

  -- loggers from every diagram, names prefixed by the diagram's path
  local log_names = {}
  for _, ctx in ipairs(F.contexts) do
    if ctx.kind == "diagram" then
      for _, l in ipairs(ctx.type.logs) do
        local path = join(ctx.by_name[l.source.sys.name].path, l.source.port.name)
        local lname = ctx.path == "" and l.name or join(ctx.path, l.name)
        if log_names[lname] then
          errors.raise(l.loc, "a logger named '%s' already exists; give this one name = \"...\"", lname)
        end
        log_names[lname] = true
        F.logs[#F.logs + 1] = { name = lname,
          output = out_index[path], size = l.source.port.size, period = l.period, loc = l.loc }
      end
    end
  end
  return F
end

return M
