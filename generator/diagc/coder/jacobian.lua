-- coder/jacobian.lua: the Jacobian of the whole diagram's time derivatives
-- with respect to its continuous state, ∂ẋc/∂xc, composed by the chain
-- rule at compile time (coder/jacobian_chain.lua) over the local Jacobians
-- of the calcs on the derivative's evaluation path.  Emitted as
-- straight-line C over structural nonzeros only, with the pattern as a
-- constant compressed-column array in CasADi's layout {nrow, ncol,
-- colptr[ncol + 1], rowind[nnz]}.
--
-- When a calc on the path has no Jacobian (outside the differentiable
-- subset, or no host lexer), nothing is emitted: PU_HAS_JAC_XC is 0 and
-- the descriptor's jac_xc is NULL (the implicit integrators then use
-- finite differences).  Adds nothing to the model; sets K.jac.
local chain = require("diagc.coder.jacobian_chain")

local M = {}

local function path_entries(F)
  return chain.path_entries({ F.root.entries.xcdot })
end

-- Why the model has no d xcdot / d xc, or nil when it has one:
-- {loc=, message=} for the first calc on the derivative path outside the
-- differentiable subset (a command that needs the Jacobian raises it:
-- errors.raise(why.loc, "%s", why.message)), or {message=} when there is
-- no continuous state or no lexer ran.
function M.missing(F)
  if F.nxc == 0 then return { message = "the model has no continuous state" } end
  local list, e = path_entries(F)
  if list then return nil end
  local d, loops = e.calc.diff, require("diagc.tickets.loops")
  if not d then return { message = "calc bodies were not analyzed (no C lexer)" } end
  return { loc = d.loc, message = string.format("d xcdot / d xc needs the Jacobian of %s: %s", loops.entry_path(e),
    chain.why_missing(e, "run with finite differences (--jacobian fd)")) }
end

local function emit_function(K, list, locals)
  local C, P = K.C, K.P
  C:linef("static int %s__jac_xc_calc(%s_context *c, double *nz)", P, P)
  C:line("{")
  C:linef("  int rc = %s__eval_%d(c);", P, K.F.root.entries.xcdot.index)
  C:line("  if (rc != 0) return rc;")
  return chain.finish(K, (chain.emit_chain(K, list, locals, { xc = 0 })), K.F.nxc)
end

local function declare(K, nnz)
  local P = K.P
  K.api[#K.api + 1] = string.format("/* d xcdot / d xc: %d structural nonzeros in compressed columns; the", nnz)
  K.api[#K.api + 1] = " * pattern is {nrow, ncol, colptr[ncol + 1], rowind[nnz]} (CasADi's layout). */"
  K.api[#K.api + 1] = string.format("#define %s_JAC_XC_NNZ %d", K.PU, nnz)
  K.api[#K.api + 1] = string.format("extern const int %s_jac_xc_sparsity[];", P)
  K.api[#K.api + 1] = string.format("int %s_jac_xc(%s_context *c, double *nz);", P, P)
end

-- slot `jacobian`; sets K.jac = {nnz=} or nil
function M.emit(K)
  return function(C)
    local plan = K.jcache.by_tag.xc -- coder/jacobian_cache.lua: nil when there is none
    local list = plan and plan.list
    if not list then
      K.api[#K.api + 1] = string.format("/* No d xcdot / d xc: %s. */", K.F.nxc == 0
        and "no continuous state" or K.opts.no_jacobian and "generated with --no-jacobian"
        or "a calc on the derivative path is outside the differentiable subset")
      K.api[#K.api + 1] = string.format("#define %s_HAS_JAC_XC 0", K.PU)
      return
    end
    local locals = chain.local_jacobians(K, list, { xc = 0 })
    chain.emit_locals(K, list, locals)
    local s = emit_function(K, list, locals)
    chain.emit_pattern(K, "xc", K.F.nxc, K.F.nxc, s)
    K.api[#K.api + 1] = string.format("#define %s_HAS_JAC_XC 1", K.PU)
    declare(K, #s.rowind)
    K.jac = { nnz = #s.rowind }
  end
end

return M
