-- coder/value_fn.lua: the C function of a calc whose result is one double
-- in a local the body assigns (a witness's `value`, a next_update_time's
-- `t_next`).  Shared by coder/witness.lua and coder/next_update.lua; adds
-- nothing to the model, only emits text.
local scope = require("diagc.tickets.scope")

local M = {}

-- "const double *q, double t" from a calc's parameters (tickets/scope.lua)
function M.declarations(ps)
  local args = {}
  for _, p in ipairs(ps) do
    local sep = p.ctype:sub(-1) == "*" and "" or " "
    args[#args + 1] = p.ctype .. sep .. p.name
  end
  return args
end

-- Emits `static int NAME(params..., double *OUT)` computing the local
-- `var` (starting at `init`) with the calc's body, in its leaf's macro
-- scope; returns the calc's parameters.
-- f: {lt=, calc=, name=, var=, init=, out=, what=, lex=, in_leaf_scope=}
function M.emit(C, f)
  local ps = scope.params(f.lt, f.calc)
  scope.check_body(f.lt, f.calc, ps, f.lex)
  local args = M.declarations(ps)
  args[#args + 1] = "double *" .. f.out
  C:begin_checked()
  C:linef("static int %s(%s)", f.name, table.concat(args, ", "))
  C:line("{")
  C:linef("  double %s = %s;", f.var, f.init)
  for _, p in ipairs(ps) do C:linef("  (void)%s;", p.name) end
  C:line("  {")
  f.in_leaf_scope(C, f.lt, function() C:user_code(f.calc.body, f.calc.body_loc, f.what) end)
  C:line("  }")
  C:linef("  *%s = %s;", f.out, f.var)
  C:line("  return 0;")
  C:line("}")
  C:end_checked(f.name)
  C:line()
  return ps
end

return M
