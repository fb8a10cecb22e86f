-- coder/defaults.lua: the model's default values (constant arrays in
-- model.c) and PREFIX_init, which copies them and the spec's C
-- initializers of abstract values into a fresh context.  Adds nothing to
-- the model.
local util = require("diagc.util")
local names = require("diagc.coder.names")

local M = {}

-- default values, laid out as in the context: xc, xd, pn, u
function M.values(F)
  local d = { xc = {}, xd = {}, pn = {}, u = {} }
  for _, part in ipairs({ "q", "v", "z" }) do
    for _, ctx in ipairs(F.leaves) do
      for _, x in ipairs(ctx.type[part .. "0"]) do d.xc[#d.xc + 1] = x end
    end
  end
  for _, ctx in ipairs(F.leaves) do
    for _, g in ipairs(ctx.type.by_kind.xd) do for _, x in ipairs(g.default) do d.xd[#d.xd + 1] = x end end
    for _, g in ipairs(ctx.type.by_kind.pn) do
      for _, x in ipairs(ctx.param_values[g.name]) do d.pn[#d.pn + 1] = x end
    end
  end
  for _, s in ipairs(F.u_slots) do for _, x in ipairs(s.default) do d.u[#d.u + 1] = x end end
  return d
end

local ARRAYS = { "xc", "xd", "pn", "u" }

-- slot `defaults`: the constant arrays
function M.arrays(K)
  return function(C)
    for _, k in ipairs(ARRAYS) do
      local v = K.defaults[k]
      if #v > 0 then C:linef("static const double %s__%s0[%d] = %s;", K.P, k, #v, names.dvec_init(v)) end
    end
    C:line()
  end
end

local DEST = { xc = "c->x.xc", xd = "c->x.xd", pn = "c->p.pn", u = "c->u" }

-- a C initializer written in the spec (check/c_text.lua: item.init_loc)
local function emit_init(C, ctype, item, lvalue, lt)
  C:line("  {")
  C:linef("    static const %s init =", ctype)
  names.in_leaf_scope(C, lt, function() C:user_code(item.init, item.init_loc, "an init") end)
  C:line("    ;")
  C:linef("    c->%s = init;", lvalue)
  C:line("  }")
end

local function emit_inits(C, F)
  for _, a in ipairs(F.xa) do
    if a.init then emit_init(C, a.ctype, a.item, "x." .. a.field, a.ctx.type) end
  end
  for _, a in ipairs(F.pa) do
    if a.init then emit_init(C, a.ctype, a.item, "p." .. a.field, a.ctx.type) end
  end
  for _, e in ipairs(F.entries) do
    if e.field and e.item.init then emit_init(C, e.ctype, e.item, e.field, e.ctx.type) end
  end
end

-- slot `init_function`: PREFIX_init (in the checked unit: it holds the
-- spec's initializers)
function M.init_function(K)
  return function(C)
    local P = K.P
    C:begin_checked()
    C:linef("void %s_init(%s_context *c)", P, P)
    C:line("{")
    C:line("  memset(c, 0, sizeof *c);")
    C:linef("  c->accuracy = %s;", util.c_double(K.opts.default_accuracy))
    for _, k in ipairs(ARRAYS) do
      if #K.defaults[k] > 0 then C:linef("  memcpy(%s, %s__%s0, sizeof %s__%s0);", DEST[k], P, k, P, k) end
    end
    emit_inits(C, K.F)
    C:line("  c->cache_on = ~UINT64_C(0);")
    C:line("}")
    C:end_checked(nil)
    C:line()
  end
end

return M
