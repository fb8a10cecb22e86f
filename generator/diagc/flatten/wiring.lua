-- flatten/wiring.lua: the input slots (F.u_slots: the root's exported
-- inputs, then every fixed input), each context's immediate sources
-- (ctx.input_src, ctx.output_src) and the resolvers from a port to the
-- value behind it (F.resolve_output, F.resolve_input).
local path = require("diagc.flatten.path")

local M = {}

local function new_slot(F, s)
  s.offset = F.nu
  F.nu = F.nu + s.size
  F.u_slots[#F.u_slots + 1] = s
  return s
end

local function root_inputs(F, root_type)
  for _, p in ipairs(root_type.inputs) do
    local def = p.default
    if not def then def = {}; for i = 1, p.size do def[i] = 0 end end
    new_slot(F, { kind = "input", name = p.name, size = p.size, default = def, ctx = F.root, port = p })
  end
end

-- a diagram context's wiring: connections, exported inputs, fixed inputs
-- (new slots) and exported outputs
local function diagram_sources(F, ctx)
  local t = ctx.type
  for i, c in ipairs(t.connections) do
    local dst = ctx.by_name[c.to.sys.name]
    dst.input_src[c.to.port.name] = { kind = "peer", ctx = ctx.by_name[c.from.sys.name],
      port = c.from.port.name, loc = c.loc, order = i }
  end
  for _, p in ipairs(t.inputs) do
    for _, tg in ipairs(p.targets) do
      ctx.by_name[tg.sys.name].input_src[tg.port.name] = { kind = "parent", ctx = ctx, port = p.name }
    end
  end
  for _, f in ipairs(t.fixed) do
    local child = ctx.by_name[f.target.sys.name]
    local slot = new_slot(F, { kind = "fixed", name = path.join(child.path, f.target.port.name),
      size = f.target.port.size, default = f.value, ctx = child, port = f.target.port })
    child.input_src[f.target.port.name] = { kind = "fixed", slot = slot }
  end
  for _, o in ipairs(t.outputs) do
    ctx.output_src[o.name] = { ctx = ctx.by_name[o.source.sys.name], port = o.source.port.name }
  end
end

-- Adds F.u_slots (and F.nu), ctx.input_src and ctx.output_src.
function M.sources(F, root_type)
  root_inputs(F, root_type)
  for _, ctx in ipairs(F.contexts) do
    ctx.input_src = {}  -- port name -> {kind="peer"/"parent"/"fixed"/"root", ...}
    ctx.output_src = {} -- diagram output name -> {ctx=child, port=name}
  end
  for _, s in ipairs(F.u_slots) do F.root.input_src[s.port.name] = { kind = "root", slot = s } end
  for _, ctx in ipairs(F.contexts) do
    if ctx.kind == "diagram" then diagram_sources(F, ctx) end
  end
end

-- Adds F.resolve_output and F.resolve_input (once the entries exist).
function M.resolvers(F)
  -- a context's output port -> the leaf output entry behind it
  function F.resolve_output(ctx, port)
    while ctx.kind == "diagram" do
      local s = ctx.output_src[port]
      ctx, port = s.ctx, s.port
    end
    return ctx.entries["output:" .. port]
  end
  -- an input port -> {entry=} or {slot=}
  function F.resolve_input(ctx, port)
    while true do
      local s = ctx.input_src[port]
      if s.kind == "peer" then return { entry = F.resolve_output(s.ctx, s.port) } end
      if s.kind == "fixed" or s.kind == "root" then return { slot = s.slot } end
      ctx, port = s.ctx, s.port
    end
  end
end

return M
