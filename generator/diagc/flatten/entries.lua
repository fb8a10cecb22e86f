-- flatten/entries.lua: the cache entries (F.entries, in bit order) and
-- their storage: xcdot first in the double cache (F.xcdot_base), then
-- every vector entry (F.ncache_d doubles in all); typed entries get a
-- context field.  Leaf entries in context pre-order; a diagram's computed
-- entries after its children's, so bit order follows evaluation order.
local builtin = require("diagc.vocab.tickets")
local path = require("diagc.flatten.path")

local M = {}

local function new_entry(F, e)
  e.index = #F.entries -- 0-based bit
  F.entries[#F.entries + 1] = e
  return e
end

local function vec_storage(F, size)
  local off = F.ncache_d
  F.ncache_d = F.ncache_d + size
  return off
end

local function leaf_entries(F, ctx)
  local t = ctx.type
  for _, it in ipairs(t.calcs) do
    if it.kind == "output" or it.kind == "cache" then
      local item = it.item
      local e = { kind = it.kind, ctx = ctx, name = item.name, calc = it, item = item,
        size = item.size, ctype = item.ctype }
      if item.size then e.offset = vec_storage(F, item.size) end
      if item.ctype then e.field = "c_" .. path.cjoin(ctx.cpath, item.name) end
      ctx.entries[(it.kind == "output" and "output:" or "cache:") .. item.name] = new_entry(F, e)
    end
  end
  for _, tk in ipairs(builtin.computed_order) do
    local c = t.computed[tk]
    if c then
      local e = { kind = "computed", ticket = tk, ctx = ctx, name = tk, calc = c }
      if tk == "xcdot" then e.size = ctx.nq + ctx.nv + ctx.nz
      else e.size = 1; e.offset = vec_storage(F, 1) end
      ctx.entries[tk] = new_entry(F, e)
    end
  end
end

local build

-- a diagram's computed values sum its children's: xcdot always, the
-- others when some child has them
local function diagram_entries(F, ctx)
  for _, ch in ipairs(ctx.children) do build(F, ch) end
  for _, tk in ipairs(builtin.computed_order) do
    local parts = {}
    for _, ch in ipairs(ctx.children) do
      if ch.entries[tk] then parts[#parts + 1] = ch.entries[tk] end
    end
    if tk == "xcdot" or #parts > 0 then
      local e = { kind = "diagram_computed", ticket = tk, ctx = ctx, name = tk, parts = parts }
      if tk ~= "xcdot" then e.size = 1; e.offset = vec_storage(F, 1) end
      ctx.entries[tk] = new_entry(F, e)
    end
  end
end

function build(F, ctx)
  ctx.entries = {}
  if ctx.kind == "leaf" then leaf_entries(F, ctx) else diagram_entries(F, ctx) end
end

-- Adds F.entries, ctx.entries, F.xcdot_base and F.ncache_d (after the
-- continuous state's offsets: F.nxc and each leaf's nq, nv, nz).
function M.build(F)
  F.xcdot_base = 0
  F.ncache_d = F.nxc
  build(F, F.root)
end

return M
