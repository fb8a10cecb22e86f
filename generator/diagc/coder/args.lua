-- coder/args.lua: the C expression a calc function receives for each of
-- its parameters (check/scope.lua), in one leaf instance of the
-- flattened model: where that value lives in the context (or, for an
-- event's results, in the state buffer `buf`).  Adds nothing to the model.
local M = {}

local XC = { q = "xq", v = "xv", z = "xz" }

-- a part of the continuous state, or of its derivative
local function xc_part(F, ctx, k)
  if XC[k] then return "c->x.xc + " .. ctx[XC[k]] end
  local part = k:match("^builtin:xcdot:(%a)$") or k:match("^self:(%a)$")
  if part and XC[part] then return "c->cache + " .. (F.xcdot_base + ctx[XC[part]]) end
end

-- a value of the state buffer an event writes
local function next_part(ctx, k, buf)
  local part = k:match("^next:(%a)$")
  if part and XC[part] then return buf .. "->xc + " .. ctx[XC[part]] end
  local nk, nname = k:match("^next:(%w+):(.*)$")
  if nk == "xd" then return buf .. "->xd + " .. ctx.xd_off[nname] end
  if nk == "xa" then return "&" .. buf .. "->" .. ctx.xa_field[nname] end
end

local function entry_ref(e)
  return e.field and ("&c->" .. e.field) or ("c->cache + " .. e.offset)
end

-- a named value of the leaf: state, parameter, input, cache entry
local function named(F, ctx, k)
  local kind, name = k:match("^(%w+):(.*)$")
  if kind == "xd" then return "c->x.xd + " .. ctx.xd_off[name] end
  if kind == "xa" then return "&c->x." .. ctx.xa_field[name] end
  if kind == "pn" then return "c->p.pn + " .. ctx.pn_off[name] end
  if kind == "pa" then return "&c->p." .. ctx.pa_field[name] end
  if kind == "input" then
    local r = F.resolve_input(ctx, name)
    if r.entry then return "c->cache + " .. r.entry.offset end
    return "c->u + " .. r.slot.offset
  end
  if kind == "cache" then return entry_ref(ctx.entries[k]) end
  if kind == "builtin" then return "c->cache + " .. ctx.entries[name].offset end
end

-- p: a calc parameter; target: the entry the calc computes (for "self");
-- buf: the name of an event's state buffer (for "next:...")
function M.expr(F, ctx, p, target, buf)
  local k = p.key
  if k == "t" then return "c->t" end
  if k == "accuracy" then return "c->accuracy" end
  if k == "self" then return entry_ref(target) end
  local e = xc_part(F, ctx, k) or next_part(ctx, k, buf) or named(F, ctx, k)
  if not e then error("no argument for " .. k) end
  return e
end

return M
