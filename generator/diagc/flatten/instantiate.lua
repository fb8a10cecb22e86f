-- flatten/instantiate.lua: the type tree -> the context tree (one context
-- per subsystem, pre-order in F.contexts, leaves in F.leaves), each leaf
-- with its parameter values: the defaults, overridden by the parameters =
-- of the systems above it (the outermost wins).
local errors = require("diagc.errors")
local fields = require("diagc.check.fields")
local util = require("diagc.util")
local path = require("diagc.flatten.path")
local limits = require("diagc.vocab.limits")

local M = {}

-- ov: parameter path -> {value=, loc=} given from above for this leaf
local function apply_overrides(ctx, ov)
  local t = ctx.type
  for _, p in ipairs(util.sorted_keys(ov)) do
    local o = ov[p]
    local it = t.names[p]
    if not it or it.kind ~= "pn" then
      errors.raise(o.loc, "leaf \"%s\" (subsystem '%s') has no numeric parameter '%s'",
        t.name, ctx.path, p)
    end
    ctx.param_values[p] = fields.vector(o.loc, "parameter '" .. p .. "'", o.value, it.size)
  end
end

-- the overrides for child system s: its own parameters, then those of `ov`
-- under its name
local function child_overrides(s, ov)
  local sub = {}
  for _, p in ipairs(s.params) do sub[p.path] = { value = p.value, loc = p.loc } end
  local prefix = s.name .. "."
  for p, o in pairs(ov) do
    if p:sub(1, #prefix) == prefix then sub[p:sub(#prefix + 1)] = o end
  end
  return sub
end

local function instantiate(F, t, name, parent, ov, loc)
  local ctx = {
    kind = t.kind, type = t, name = name, parent = parent, children = {}, loc = loc,
    path = parent and path.join(parent.path, name) or "",
    cpath = parent and path.cjoin(parent.cpath, name) or "",
    id = #F.contexts + 1,
  }
  local long = limits.path_problem(ctx.path)
  if long then errors.raise(loc, "%s", long) end
  F.contexts[#F.contexts + 1] = ctx
  if t.kind == "leaf" then
    ctx.leaf_index = #F.leaves
    F.leaves[#F.leaves + 1] = ctx
    ctx.param_values = {}
    for _, p in ipairs(t.by_kind.pn) do ctx.param_values[p.name] = p.default end
    apply_overrides(ctx, ov)
    return ctx
  end
  ctx.by_name = {}
  for _, s in ipairs(t.systems) do
    local child = instantiate(F, s.type, s.name, ctx, child_overrides(s, ov), s.loc)
    ctx.children[#ctx.children + 1] = child
    ctx.by_name[s.name] = child
  end
  for _, p in ipairs(util.sorted_keys(ov)) do
    local o = ov[p]
    local head = p:match("^([^.]+)%.")
    if not head or not ctx.by_name[head] then
      errors.raise(o.loc, "parameters: '%s' does not name a parameter inside diagram \"%s\"; "
        .. "use \"subsystem.parameter\"", p, t.name)
    end
  end
  return ctx
end

-- Sets F.root and fills F.contexts and F.leaves.
function M.tree(F, root_type)
  F.root = instantiate(F, root_type, "", nil, {}, root_type.loc)
end

return M
