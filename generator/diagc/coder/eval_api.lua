-- coder/eval_api.lua: the public evals, PREFIX_eval_NAME(c, &out), of
-- every output port (leaf and diagram) and cache entry: the entry's eval
-- (coder/evals.lua), then a pointer to its value.  They are static inline
-- functions of the header (one per port and entry: as functions of the
-- source they would dominate gcc's time on large models) calling
-- PREFIX__eval_entry(c, i), the one function of the source that dispatches
-- to entry i's eval.  Adds nothing to the model.
local loops = require("diagc.tickets.loops")
local jcache = require("diagc.coder.jacobian_cache")

local M = {}

-- where entry e's value lives in context `c`
function M.value_ref(F, e, c)
  return e.field and ("&" .. c .. "->" .. e.field)
    or (e.offset and (c .. "->cache + " .. e.offset))
    or (c .. "->cache + " .. F.xcdot_base)
end

local function eval_api(K, name, e, doc)
  local P = K.P
  local ctype = e.field and e.ctype or "double"
  local api = K.api
  api[#api + 1] = "/* " .. doc .. " */"
  api[#api + 1] = string.format("static inline int %s_eval_%s(%s_context *c, const %s **out)", P, name, P, ctype)
  api[#api + 1] = "{"
  api[#api + 1] = string.format("  int rc = %s__eval_entry(c, %d);", P, e.index)
  api[#api + 1] = string.format("  if (out) *out = rc ? NULL : %s;", M.value_ref(K.F, e, "c"))
  api[#api + 1] = "  return rc;"
  api[#api + 1] = "}"
end

-- PREFIX__eval_entry(c, i): entry i's eval (the generated Jacobians are
-- entries after F.entries: coder/jacobian_cache.lua)
local function dispatch(K)
  local C, P = K.C, K.P
  C:line("/* the eval of cache entry i (DIAGC_E_INDEX: no such entry) */")
  C:linef("int %s__eval_entry(%s_context *c, int i)", P, P)
  C:line("{")
  C:line("  switch (i) {")
  for _, e in ipairs(K.F.entries) do
    C:linef("  case %d: return %s__eval_%d(c);", e.index, P, e.index)
  end
  for _, l in ipairs(jcache.cases(K)) do C:line(l) end
  C:line("  default: return DIAGC_E_INDEX;")
  C:line("  }")
  C:line("}")
  C:line()
end

-- whether a cache entry has a public eval
local function public(F, e)
  return e.ticket ~= "xcdot" and (e.kind == "cache" or e.kind == "computed"
    or (e.kind == "diagram_computed" and e.ctx == F.root))
end

-- slot `eval_api`
function M.emit(K)
  return function()
    local F = K.F
    dispatch(K)
    for _, o in ipairs(F.outputs) do
      eval_api(K, o.cname, o.entry, "Output port " .. o.path .. " (" .. o.size .. " values).")
    end
    for _, e in ipairs(F.entries) do
      if public(F, e) then
        local nm = (e.ctx.cpath == "" and "_" or (e.ctx.cpath .. "__")) .. e.name
        eval_api(K, nm, e, "Cache entry " .. loops.entry_path(e) .. ".")
      end
    end
  end
end

return M
