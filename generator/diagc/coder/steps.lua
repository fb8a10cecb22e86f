-- coder/steps.lua: the C of computing one cache entry (its calc call or
-- sum, its counters, its valid bit), shared by the eval functions, the eval
-- paths and the schedules; the bound on the steps of one generated
-- function (SEG) and the macro that keeps the pieces of long paths and
-- schedules out of line.  Adds nothing to the model.
local names = require("diagc.coder.names")
local args = require("diagc.coder.args")

local M = {}

-- steps per path segment and entries per schedule part
M.SEG = 64

function M.word_of(e) return math.floor(e.index / 64) end

-- The pieces of a long path or schedule stay functions of their own
-- (inlined into their callers, they would make those long again).
function M.noinline_macro(C, P)
  C:line("#if defined(__GNUC__)")
  C:linef("#define %s__NOINLINE __attribute__((noinline))", P)
  C:line("#else")
  C:linef("#define %s__NOINLINE", P)
  C:line("#endif")
end

-- the statement that computes e's value: its calc, or the sum of its
-- parts (a diagram's energies); a diagram's xcdot is its children's
-- (fail: the statement for a failed calc, by default a return)
function M.value(K, e, indent, fail)
  local C = K.C
  if e.calc then
    local a = {}
    for _, p in ipairs(e.params) do a[#a + 1] = args.expr(K.F, e.ctx, p, e) end
    C:linef("%sif (%s(%s) != 0) %s", indent, names.calc_fn(K.P, e.ctx.type, e.calc),
      table.concat(a, ", "), fail or "return DIAGC_E_CALC;")
  elseif e.ticket ~= "xcdot" then
    local terms = {}
    for _, p in ipairs(e.parts) do terms[#terms + 1] = "c->cache[" .. p.offset .. "]" end
    C:linef("%sc->cache[%d] = %s;", indent, e.offset, table.concat(terms, " + "))
  end
end

-- The work of computing e once its predecessor (if skip) is up to date.
-- With flush (a path segment's steps), e's valid bit goes to the local
-- word m<w>, and flush (which ORs those into c->valid) runs before any
-- other eval is called, and a failed calc jumps to F, which flushes too:
-- the steps then store no valid word each (the C compiler cannot sink
-- those stores itself).
function M.compute(K, e, indent, skip, flush)
  local C, P = K.C, K.P
  if skip then C:linef("%s%s__CNT(c->n_eval[%d]++);", indent, P, skip.index) end
  local flushed = false
  for _, d in ipairs(e.deps) do
    if d.entry ~= skip then
      if flush and not flushed then C:linef("%s%s", indent, flush); flushed = true end
      C:linef("%sif ((rc = %s__eval_%d(c)) != 0) return rc;", indent, P, d.entry.index)
    end
  end
  M.value(K, e, indent, flush and "goto F;")
  local w, b = names.word_bit(e)
  C:linef("%s%s__CNT(c->n_calc[%d]++);", indent, P, e.index)
  if flush then C:linef("%sm%d |= %s;", indent, w, b)
  else C:linef("%sc->valid[%d] |= %s;", indent, w, b) end
end

return M
