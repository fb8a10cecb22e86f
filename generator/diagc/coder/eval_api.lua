-- coder/eval_api.lua: the public evals, PREFIX_eval_NAME(c, &out), of
-- every output port (leaf and diagram) and cache entry: the entry's eval
-- (coder/evals.lua), then a pointer to its value.  Adds nothing to the
-- model.
local loops = require("diagc.tickets.loops")

local M = {}

-- where entry e's value lives in context `c`
function M.value_ref(F, e, c)
  return e.field and ("&" .. c .. "->" .. e.field)
    or (e.offset and (c .. "->cache + " .. e.offset))
    or (c .. "->cache + " .. F.xcdot_base)
end

local function eval_api(K, name, e, doc)
  local C, P = K.C, K.P
  local ctype = e.field and e.ctype or "double"
  K.api[#K.api + 1] = "/* " .. doc .. " */"
  K.api[#K.api + 1] = string.format("int %s_eval_%s(%s_context *c, const %s **out);", P, name, P, ctype)
  C:linef("int %s_eval_%s(%s_context *c, const %s **out)", P, name, P, ctype)
  C:line("{")
  C:linef("  int rc = %s__eval_%d(c);", P, e.index)
  C:linef("  if (out) *out = rc ? NULL : %s;", M.value_ref(K.F, e, "c"))
  C:line("  return rc;")
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
