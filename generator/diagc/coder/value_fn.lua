-- coder/value_fn.lua: the C function of a calc whose result is one double
-- in a local the body assigns (a witness's `value`, a next_update_time's
-- `t_next`).  Shared by coder/witness.lua and coder/next_update.lua; adds
-- nothing to the model, only emits text.
local loops = require("diagc.tickets.loops")

local M = {}

-- "const double *q, double t" from a calc's parameters (check/scope.lua)
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
-- f: {lt=, calc=, name=, var=, init=, out=, what=, in_leaf_scope=}
function M.emit(C, f)
  local ps = f.calc.params
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

-- The index of every event in the descriptor's events table, in the order
-- coder/events.lua lists them (leaf by leaf, each leaf type's events in order):
-- {[ctx] = {[event] = index}}.  `who` names the caller in the assertion.
function M.event_indices(F, n_events, who)
  local ev_index, n_ev = {}, 0
  for _, ctx in ipairs(F.leaves) do
    ev_index[ctx] = {}
    for _, ev in ipairs(ctx.type.events) do
      ev_index[ctx][ev] = n_ev
      n_ev = n_ev + 1
    end
  end
  assert(n_ev == n_events, who .. " coder: event order differs from the events table")
  return ev_index
end

-- Emits the descriptor's wrapper for one instance: `static int NAME(void
-- *vc, double *OUT)` evaluates the cache entries the calc reads, then
-- calls the calc function with the instance's arguments.
-- w: {P=, F=, ctx=, ps=, arg_expr=, comment=, name=, out=, callee=}
function M.emit_wrapper(C, w)
  local P = w.P
  C:linef("/* %s */", w.comment)
  C:linef("static int %s(void *vc, double *%s)", w.name, w.out)
  C:line("{")
  C:linef("  %s_context *c = (%s_context *)vc;", P, P)
  C:line("  (void)c;")
  for _, d in ipairs(loops.calc_deps(w.F, w.ctx, w.ps)) do
    C:linef("  if (%s__eval_%d(c) != 0) return DIAGC_E_CALC;", P, d.entry.index)
  end
  local args = {}
  for _, p in ipairs(w.ps) do args[#args + 1] = w.arg_expr(w.ctx, p, nil, "b") end
  args[#args + 1] = w.out
  C:linef("  return %s(%s);", w.callee, table.concat(args, ", "))
  C:line("}")
  C:line()
end

return M
