-- coder/evals.lua: the eval functions of the cache entries: a hit is one
-- bit test; a miss brings the entry's prerequisites up to date and
-- computes it.  An entry alone on its eval path (tickets/eval_paths.lua)
-- evaluates its deps and computes itself; an entry on a longer path hands
-- over to the path's functions (coder/paths.lua), which find the first
-- stale entry and compute forward from there, iteratively; the root's
-- built-in sums run flat schedules (coder/schedules.lua).  Long paths and
-- schedules are cut into pieces of at most SEG steps, one function each,
-- so that no generated function grows with the model (gcc's optimizer is
-- superlinear in a function's size).  Adds nothing to the model.
local loops = require("diagc.tickets.loops")
local names = require("diagc.coder.names")
local steps = require("diagc.coder.steps")
local paths = require("diagc.coder.paths")
local schedules = require("diagc.coder.schedules")

local M = {}

-- The entries of a path of several segments share one eval function,
-- P__peval_<path>(c, position); their P__eval_<index> are macros calling it
-- (except a scheduled entry, which has its own).
local function shared_eval(e, scheduled) return paths.nsegments(e.path) > 1 and not scheduled[e] end

local function prototypes(K, scheduled)
  local C, P = K.C, K.P
  for _, path in ipairs(K.F.eval_paths) do
    if paths.nsegments(path) > 1 then
      C:linef("static %s__NOINLINE int %s__peval_%d(%s_context *c, int k);", P, P, path.id, P)
    end
  end
  for _, e in ipairs(K.F.entries) do
    if shared_eval(e, scheduled) then
      C:linef("#define %s__eval_%d(c) %s__peval_%d((c), %d)", P, e.index, P, e.path.id, e.pos)
    else
      C:linef("static int %s__eval_%d(%s_context *c);", P, e.index, P)
    end
  end
  for _, path in ipairs(K.F.eval_paths) do
    if #path.entries > 1 then paths.prototypes(K, path) end
  end
  C:line()
end

local function emit_eval(K, e, order)
  local C, P = K.C, K.P
  C:linef("/* %s */", loops.entry_path(e))
  C:linef("static int %s__eval_%d(%s_context *c)", P, e.index, P)
  C:line("{")
  C:linef("  %s__CNT(c->n_eval[%d]++);", P, e.index)
  C:linef("  if (%s) return 0;", names.valid_test(e))
  C:line("  if (c->frozen) return DIAGC_E_FROZEN;")
  if order then
    schedules.emit_body(K, e, order)
  elseif #e.path.entries > 1 then
    C:linef("  return %s__path_%d(c, %d);", P, e.path.id, e.pos)
  else
    if #e.deps > 0 then C:line("  {") C:line("    int rc;") end
    steps.compute(K, e, #e.deps > 0 and "    " or "  ", nil)
    if #e.deps > 0 then C:line("  }") end
    C:line("  return 0;")
  end
  C:line("}")
  C:line()
end

-- whether anything needs the NOINLINE macro
local function needs_noinline(F, scheduled)
  for _, path in ipairs(F.eval_paths) do
    if paths.nsegments(path) > 1 then return true end
  end
  for _, order in pairs(scheduled) do
    if #order > steps.SEG then return true end
  end
  return false
end

-- slot `evals`
function M.emit(K)
  return function()
    local F = K.F
    local scheduled = schedules.compute(F)
    if needs_noinline(F, scheduled) then steps.noinline_macro(K.C, K.P) end
    prototypes(K, scheduled)
    for _, path in ipairs(F.eval_paths) do
      if #path.entries > 1 then paths.emit(K, path) end
    end
    schedules.emit_parts(K, scheduled)
    for _, e in ipairs(F.entries) do
      if not shared_eval(e, scheduled) then emit_eval(K, e, scheduled[e]) end
    end
  end
end

return M
