-- coder/jacobian_p.lua: the parameter Jacobian a spec asks for with
-- parameter_jacobian { "sys.param", ... } (F.jac_params): the derivatives
-- of the linearization's rows (coder/jacobian_lin.lua: xcdot, or x[n+1] of a
-- purely discrete model, then the outputs y) with respect to the elements
-- of those numeric parameters, the state and the inputs held fixed.
-- Composed by the chain rule at compile time (coder/jacobian_chain.lua,
-- with the parameters as the only columns; its local Jacobians are named
-- ..._jacp).  In C: PREFIX_jac_p(c, nz) over structural nonzeros, its
-- pattern PREFIX_jac_p_sparsity (CasADi's layout), the parameter columns
-- PREFIX__jac_params (indices into the sources table).  Adds nothing to the
-- model; sets K.jp.
local chain = require("diagc.coder.jacobian_chain")
local lin = require("diagc.coder.jacobian_lin")
local names = require("diagc.coder.names")

local M = {}

-- cols for jacobian_chain: p[ctx][name] = first column, p_of[lt][name]
-- (the state, discrete state and inputs are constants here)
local function columns(F)
  local cols, n = { p = {}, p_of = {} }, 0
  for _, jp in ipairs(F.jac_params) do
    cols.p[jp.ctx] = cols.p[jp.ctx] or {}
    cols.p[jp.ctx][jp.name] = n
    cols.p_of[jp.ctx.type] = cols.p_of[jp.ctx.type] or {}
    cols.p_of[jp.ctx.type][jp.name] = true
    n = n + jp.size
  end
  return cols, n
end

-- the index of each parameter's source in K.sources
local function param_sources(K)
  local idx, list = {}, {}
  for i, s in ipairs(K.sources) do
    if s.kind == "DIAGC_SRC_PN" then idx[s.name] = i - 1 end
  end
  for i, jp in ipairs(K.F.jac_params) do list[i] = tostring(assert(idx[jp.path], "coder/jacobian_p: no source")) end
  return list
end

local function emit_function(K, list, locals, cols, outs, updates, nx, ncol)
  local C, P = K.C, K.P
  C:linef("static int %s__jac_p_calc(%s_context *c, double *nz)", P, P)
  C:line("{")
  lin.emit_evals(K, outs, updates)
  local R, D = chain.emit_chain(K, list, locals, cols)
  lin.output_rows(nx, outs, R, D)
  return chain.finish(K, R, ncol)
end

local COMMENT = {
  "/* d(xcdot or x[n+1], y) / d p for the parameters of parameter_jacobian: rows as",
  " * P_jac_lin's, columns the elements of P_model.jac_params (pattern as P_jac_xc_sparsity). */",
}

-- slot `jacobian_p`; sets K.jp = {n=, nrow=, ncol=, nnz=} (nil: none asked
-- for; nnz nil: a calc it needs has no Jacobian)
function M.emit(K)
  return function(C)
    local F = K.F
    if #F.jac_params == 0 then return end
    local cols, ncol = columns(F)
    local outs, updates = lin.outputs(F), lin.discrete_updates(F)
    local nx = updates and F.nxd or F.nxc
    local ny = 0
    for _, y in ipairs(outs) do ny = ny + y.o.size end
    K.jp = { n = #F.jac_params, nrow = nx + ny, ncol = ncol }
    C:line("/* the parameter Jacobian's columns: sources of parameter_jacobian */")
    C:linef("static const int %s__jac_params[%d] = {%s};", K.P, #F.jac_params, table.concat(param_sources(K), ", "))
    C:line()
    local plan = K.jcache.by_tag.p -- coder/jacobian_cache.lua: nil when there is none
    local list = plan and plan.list
    if not list then
      K.api[#K.api + 1] = string.format("/* No d/dp: %s. */", K.opts.no_jacobian
        and "generated with --no-jacobian" or "a calc it needs is outside the differentiable subset")
      K.api[#K.api + 1] = string.format("#define %s_HAS_JAC_P 0", K.PU)
      return
    end
    local locals = chain.local_jacobians(K, list, cols)
    chain.emit_locals(K, list, locals)
    local s = emit_function(K, list, locals, cols, outs, updates, nx, ncol)
    chain.emit_pattern(K, "p", nx + ny, ncol, s)
    chain.declare(K, "p", COMMENT, #s.rowind, nx + ny, ncol)
    K.jp.nnz = #s.rowind
  end
end

return M
