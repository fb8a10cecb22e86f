-- coder/calcs.lua: one static C function per leaf type and calc (output
-- ports, cache entries, derivatives, events): the spec's body at its spec
-- location (#line), inside its leaf's macro scope, with the calc's
-- parameters (check/scope.lua) as arguments.  These functions form the
-- checked unit (coder/emit.lua) with the prologue.  Adds nothing to the
-- model.
local names = require("diagc.coder.names")
local value_fn = require("diagc.coder.value_fn")

local M = {}

local function emit_calc(C, P, lt, calc)
  local name = names.calc_fn(P, lt, calc)
  local ps = calc.params
  local args = value_fn.declarations(ps)
  C:begin_checked()
  C:linef("static int %s(%s)", name, #args > 0 and table.concat(args, ", ") or "void")
  C:line("{")
  for _, p in ipairs(ps) do C:linef("  (void)%s;", p.name) end
  C:line("  {")
  names.in_leaf_scope(C, lt, function() C:user_code(calc.body, calc.body_loc, "a calc body") end)
  C:line("  }")
  C:linef("  return %s;", calc.kind == "event" and "DIAGC_SUCCEEDED" or "0")
  C:line("}")
  C:end_checked(name)
  C:line()
end

-- slot `calc_functions`
function M.emit(K)
  return function(C)
    for _, lt in ipairs(K.opts.leaf_types) do
      for _, calc in ipairs(lt.calcs) do emit_calc(C, K.P, lt, calc) end
    end
  end
end

return M
