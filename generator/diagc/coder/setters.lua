-- coder/setters.lua: the public setters.  Each writes its values into the
-- context and applies its entry point's invalidation (coder/invalidate.lua),
-- so a source change is a few word-wise ANDs.  The whole-model setters
-- (time, q, xc, state, ...) are functions of the source; the setter of each
-- source (a leaf's q, a parameter, an input...) is a static inline function
-- of the header (one per source: as functions of the source they would
-- dominate gcc's time on large models).  Also PREFIX_mutable_xc and the
-- list of sources the descriptor publishes (K.sources: {name, kind, size,
-- off, bytes, ep}).  Adds nothing to the model.
local invalidate = require("diagc.coder.invalidate")

local M = {}

local function copy_in(dst, n)
  if n == 0 then return "(void)v;" end
  return string.format("memcpy(%s, v, %d * sizeof(double));", dst, n)
end

-- a whole-model setter: a prototype in the header, the function here
local function setter(K, name, params, body_lines, ep_name, doc)
  local C, P = K.C, K.P
  K.api[#K.api + 1] = "/* " .. doc .. " */"
  K.api[#K.api + 1] = string.format("void %s_%s(%s_context *c%s);", P, name, P, params)
  C:linef("void %s_%s(%s_context *c%s)", P, name, P, params)
  C:line("{")
  for _, l in ipairs(body_lines) do C:line("  " .. l) end
  C:line("  " .. invalidate.call(K, ep_name))
  C:line("}")
  C:line()
end

-- a source's setter: static inline in the header
local function inline_setter(K, name, params, body_line, ep_name, doc)
  local P, api = K.P, K.api
  api[#api + 1] = "/* " .. doc .. " */"
  api[#api + 1] = string.format("static inline void %s_%s(%s_context *c%s)", P, name, P, params)
  api[#api + 1] = "{"
  api[#api + 1] = "  " .. body_line
  api[#api + 1] = "  " .. invalidate.call(K, ep_name)
  api[#api + 1] = "}"
end

local function whole_model(K)
  local F, P = K.F, K.P
  setter(K, "set_time", ", double t", { "c->t = t;" }, "time", "Set the time (every subcontext).")
  setter(K, "set_accuracy", ", double a", { "c->accuracy = a;" }, "accuracy", "Set the accuracy.")
  setter(K, "set_q", ", const double *v", { copy_in("c->x.xc", F.nq) }, "q", "Set q of every leaf.")
  setter(K, "set_v", ", const double *v", { copy_in("c->x.xc + " .. F.nq, F.nv) }, "v", "Set v of every leaf.")
  setter(K, "set_z", ", const double *v", { copy_in("c->x.xc + " .. (F.nq + F.nv), F.nz) }, "z", "Set z of every leaf.")
  setter(K, "set_xc", ", const double *v", { copy_in("c->x.xc", F.nxc) }, "xc", "Set all continuous state.")
  setter(K, "set_xd", ", const double *v", { copy_in("c->x.xd", F.nxd) }, "xd", "Set all discrete state.")
  setter(K, "set_state", string.format(", const %s_state *v", P), { "c->x = *v;" }, "state", "Set the whole state.")
  setter(K, "set_parameters", string.format(", const %s_params *v", P), { "c->p = *v;" }, "parameters", "Set every parameter.")
  setter(K, "set_everything", string.format(", const %s_context *v", P),
    { "c->t = v->t;", "c->accuracy = v->accuracy;", "c->x = v->x;", "c->p = v->p;",
      "memcpy(c->u, v->u, sizeof c->u);" }, "everything",
    "Set time, accuracy, state, parameters and inputs from another context (one change).")
end

local function mutable_xc(K)
  local C, P = K.C, K.P
  K.api[#K.api + 1] = "/* Mutable access, as Drake's get_mutable_*: invalidates now; write before the next eval. */"
  K.api[#K.api + 1] = string.format("double *%s_mutable_xc(%s_context *c);", P, P)
  C:linef("double *%s_mutable_xc(%s_context *c)", P, P)
  C:line("{")
  C:line("  " .. invalidate.call(K, "xc"))
  C:line("  return c->x.xc;")
  C:line("}")
  C:line()
end

local function src(K, name, kind, size, off, bytes, ep_name)
  K.sources[#K.sources + 1] = { name = name, kind = kind, size = size, off = off, bytes = bytes, ep = K.inv[ep_name] }
end

local function offset(K, field, off)
  return string.format("offsetof(%s_context, %s) + %d * sizeof(double)", K.P, field, off)
end

-- a leaf's q, v or z
local function leaf_xc(K, ep)
  local ctx, part = ep.ctx, ep.kind:sub(-1)
  local off, n = ctx["x" .. part], ctx["n" .. part]
  inline_setter(K, "set_" .. ep.cname, ", const double *v", copy_in("c->x.xc + " .. off, n), ep.cname,
    "Set " .. part .. " of " .. ctx.path .. ".")
  src(K, ep.name, "DIAGC_SRC_" .. part:upper(), n, offset(K, "x.xc", off), n .. " * sizeof(double)", ep.cname)
end

-- a discrete state group or numeric parameter
local function numeric(K, ep)
  local ctx, xd = ep.ctx, ep.kind == "xd"
  local off = xd and ctx.xd_off[ep.item.name] or ctx.pn_off[ep.item.name]
  local arrn = xd and "x.xd" or "p.pn"
  inline_setter(K, "set_" .. ep.cname, ", const double *v", copy_in("c->" .. arrn .. " + " .. off, ep.item.size),
    ep.cname, "Set " .. (xd and "discrete state " or "parameter ") .. ep.name .. ".")
  src(K, ep.name, xd and "DIAGC_SRC_XD" or "DIAGC_SRC_PN", ep.item.size, offset(K, arrn, off),
    ep.item.size .. " * sizeof(double)", ep.cname)
end

-- an abstract state or parameter
local function abstract(K, ep)
  local ctx, xa = ep.ctx, ep.kind == "xa"
  local field = xa and ("x." .. ctx.xa_field[ep.item.name]) or ("p." .. ctx.pa_field[ep.item.name])
  inline_setter(K, "set_" .. ep.cname, ", const " .. ep.item.ctype .. " *v", "c->" .. field .. " = *v;", ep.cname,
    "Set abstract " .. (xa and "state " or "parameter ") .. ep.name .. ".")
  src(K, ep.name, xa and "DIAGC_SRC_XA" or "DIAGC_SRC_PA", 0,
    string.format("offsetof(%s_context, %s)", K.P, field), "sizeof(" .. ep.item.ctype .. ")", ep.cname)
end

-- an exported or fixed input
local function input(K, ep)
  local s, exported = ep.slot, ep.kind == "input"
  inline_setter(K, ep.api, ", const double *v", copy_in("c->u + " .. s.offset, s.size), ep,
    (exported and "Set exported input " or "Set fixed input ") .. s.name .. ".")
  src(K, s.name, exported and "DIAGC_SRC_INPUT" or "DIAGC_SRC_FIXED_INPUT", s.size, offset(K, "u", s.offset),
    s.size .. " * sizeof(double)", ep)
end

local PER_SOURCE = {
  leaf_q = leaf_xc, leaf_v = leaf_xc, leaf_z = leaf_xc, xd = numeric, pn = numeric,
  xa = abstract, pa = abstract, input = input, fixed = input,
}

-- slot `setters`
function M.emit(K)
  return function()
    K.sources = {}
    whole_model(K)
    mutable_xc(K)
    local P = K.P
    src(K, "t", "DIAGC_SRC_TIME", 1, "offsetof(" .. P .. "_context, t)", "sizeof(double)", "time")
    src(K, "accuracy", "DIAGC_SRC_ACCURACY", 1, "offsetof(" .. P .. "_context, accuracy)", "sizeof(double)", "accuracy")
    for _, ep in ipairs(K.eps) do
      local f = PER_SOURCE[ep.kind]
      if f then f(K, ep) end
    end
  end
end

return M
