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
--       loc=, order= (the connect's place among its diagram's connects)} |
--       {kind="parent", ctx=, port=} | {kind="fixed"|"root", slot=}),
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
--       port=, size=, path= (by the port's label if it has one), cname=,
--       entry= (the leaf output behind it), elements= (names or nil), unit=}
--   F.logs       {name=, output= (0-based in F.outputs), size=, period=, loc=}
--   F.jac_params the numeric parameters of parameter_jacobian declarations,
--       in declaration order, once each: {ctx= (leaf), name=, size=,
--       path= ("a.b.k")}
--   F.resolve_output(ctx, port) -> entry; F.resolve_input(ctx, port) ->
--       {entry=} (driven by an output) or {slot=} (by an input slot)
local errors = require("diagc.errors")
local path = require("diagc.flatten.path")
local limits = require("diagc.vocab.limits")
local instantiate = require("diagc.flatten.instantiate")
local wiring = require("diagc.flatten.wiring")
local entries = require("diagc.flatten.entries")

local M = {}

-- continuous state: q of all leaves, then v, then z
local function continuous_offsets(F)
  for _, part in ipairs({ "q", "v", "z" }) do
    for _, ctx in ipairs(F.leaves) do
      ctx[part .. "_off"] = F["n" .. part]
      F["n" .. part] = F["n" .. part] + #ctx.type[part]
    end
  end
  F.nxc = F.nq + F.nv + F.nz
  for _, ctx in ipairs(F.leaves) do
    ctx.xq = ctx.q_off
    ctx.xv = F.nq + ctx.v_off
    ctx.xz = F.nq + F.nv + ctx.z_off
    ctx.nq, ctx.nv, ctx.nz = #ctx.type.q, #ctx.type.v, #ctx.type.z
  end
end

-- discrete groups, numeric parameters, abstract values
local function group_offsets(F)
  for _, ctx in ipairs(F.leaves) do
    local t = ctx.type
    ctx.xd_off, ctx.pn_off, ctx.xa_field, ctx.pa_field = {}, {}, {}, {}
    for _, g in ipairs(t.by_kind.xd) do ctx.xd_off[g.name] = F.nxd; F.nxd = F.nxd + g.size end
    for _, g in ipairs(t.by_kind.pn) do ctx.pn_off[g.name] = F.npn; F.npn = F.npn + g.size end
    for _, g in ipairs(t.by_kind.xa) do
      local f = "xa_" .. path.cjoin(ctx.cpath, g.name)
      ctx.xa_field[g.name] = f
      F.xa[#F.xa + 1] = { field = f, ctype = g.ctype, init = g.init, ctx = ctx, item = g }
    end
    for _, g in ipairs(t.by_kind.pa) do
      local f = "pa_" .. path.cjoin(ctx.cpath, g.name)
      ctx.pa_field[g.name] = f
      F.pa[#F.pa + 1] = { field = f, ctype = g.ctype, init = g.init, ctx = ctx, item = g }
    end
  end
end

-- outputs of every context (leaf and diagram), pre-order, for the API
local function outputs(F)
  for _, ctx in ipairs(F.contexts) do
    local ports = ctx.kind == "leaf" and ctx.type.by_kind.output or ctx.type.outputs
    for _, p in ipairs(ports) do
      F.outputs[#F.outputs + 1] = { ctx = ctx, port = p.name, size = p.size, elements = p.elements, unit = p.unit,
        path = path.join(ctx.path, p.label or p.name), cname = path.cjoin(ctx.cpath, p.name),
        entry = F.resolve_output(ctx, p.name) }
    end
  end
end

-- loggers from every diagram, names prefixed by the diagram's path
local function logs(F)
  local out_index = {}
  for i, o in ipairs(F.outputs) do out_index[o.path] = i - 1 end
  local log_names = {}
  for _, ctx in ipairs(F.contexts) do
    if ctx.kind == "diagram" then
      for _, l in ipairs(ctx.type.logs) do
        local p = path.join(ctx.by_name[l.source.sys.name].path, l.source.port.label or l.source.port.name)
        local lname = ctx.path == "" and l.name or path.join(ctx.path, l.name)
        if log_names[lname] then
          errors.raise(l.loc, "a logger named '%s' already exists; give this one name = \"...\"", lname)
        end
        log_names[lname] = true
        local long = limits.literal_problem("the logger name", lname)
        if long then errors.raise(l.loc, "%s", long) end
        F.logs[#F.logs + 1] = { name = lname,
          output = out_index[p], size = l.source.port.size, period = l.period, loc = l.loc }
      end
    end
  end
end

-- parameter_jacobian declarations of every diagram, paths made absolute
local function jac_params(F)
  local by_path, seen = {}, {}
  for _, ctx in ipairs(F.leaves) do by_path[ctx.path] = ctx end
  for _, ctx in ipairs(F.contexts) do
    if ctx.kind == "diagram" then
      for _, jp in ipairs(ctx.type.jac_params) do
        local full = path.join(ctx.path, jp.path)
        local lpath, name = full:match("^(.*)%.([^.]+)$")
        if not seen[full] then
          seen[full] = true
          F.jac_params[#F.jac_params + 1] = { ctx = by_path[lpath], name = name, size = jp.size, path = full }
        end
      end
    end
  end
end

function M.flatten(model)
  local F = {
    contexts = {}, leaves = {},
    nq = 0, nv = 0, nz = 0, nxd = 0, npn = 0, nu = 0, ncache_d = 0,
    entries = {}, u_slots = {}, outputs = {}, logs = {}, xa = {}, pa = {}, jac_params = {},
  }
  instantiate.tree(F, model.root)
  continuous_offsets(F)
  group_offsets(F)
  wiring.sources(F, model.root)
  entries.build(F)
  wiring.resolvers(F)
  outputs(F)
  logs(F)
  jac_params(F)
  return F
end

return M
