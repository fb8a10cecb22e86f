-- coder/jacobian.lua: the Jacobian of the whole diagram's time derivatives
-- with respect to its continuous state, ∂ẋc/∂xc, composed by the chain
-- rule at compile time.  Each leaf calc on the derivative's evaluation
-- path has a local Jacobian (cdiff/stage.lua: calc.diff, the structural
-- nonzeros with respect to its inputs); through connections an input is
-- another entry's value, so an entry element's total derivative is its
-- direct q/v/z partials plus the local partials times the total
-- derivatives of the entries it reads.  Emitted as straight-line C over
-- structural nonzeros only (each total derivative computed once, in a
-- local), with the pattern as a constant compressed-column array in
-- CasADi's layout {nrow, ncol, colptr[ncol + 1], rowind[nnz]}.
--
-- When a calc on the path has no Jacobian (outside the differentiable
-- subset, or no host lexer), nothing is emitted: PU_HAS_JAC_XC is 0 and
-- the descriptor's jac_xc is NULL (the implicit integrators then use
-- finite differences).  Adds nothing to the model; sets K.jac.
local util = require("diagc.util")
local eval_paths = require("diagc.tickets.eval_paths")
local names = require("diagc.coder.names")
local args = require("diagc.coder.args")
local value_fn = require("diagc.coder.value_fn")

local M = {}

local XC = { q = "xq", v = "xv", z = "xz" }

-- the inputs of a calc that can depend on the continuous state
local function state_inputs(calc)
  local set = {}
  for _, p in ipairs(calc.params) do
    if not p.write and (XC[p.key] or p.key:match("^input:") or p.key:match("^cache:")
        or (p.key:match("^builtin:") and not p.key:match("^builtin:xcdot"))) then
      set[p.name] = true
    end
  end
  return set
end

-- the leaf entries the root's xcdot reads, deps first; nil and the first
-- entry whose calc has no Jacobian
local function path_entries(F)
  local list = {}
  for _, e in ipairs(eval_paths.post_order({ F.root.entries.xcdot })) do
    if e.calc then
      if not (e.calc.diff and e.calc.diff.r) then return nil, e end
      list[#list + 1] = e
    end
  end
  return list
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
  return { loc = d.loc, message = string.format("d xcdot / d xc needs the Jacobian of %s: %s; "
    .. "or run with finite differences (--jacobian fd)", loops.entry_path(e), d.why) }
end

-- one local Jacobian per leaf type and calc: {name=, pattern=, code=}
local function local_jacobians(K, list)
  local by_calc = {}
  for _, e in ipairs(list) do
    local calc = e.calc
    if not by_calc[calc] then
      local j = calc.diff.r.jacobian({ inputs = state_inputs(calc), outputs = false, jac = "diagc_jac" })
      by_calc[calc] = { name = names.calc_fn(K.P, e.ctx.type, calc) .. "_jac", pattern = j.pattern,
        code = j.code, lt = e.ctx.type, calc = calc }
    end
  end
  return by_calc
end

local function emit_local(C, lj)
  local ps = lj.calc.params
  local decl = value_fn.declarations(ps)
  decl[#decl + 1] = "double *diagc_jac"
  C:begin_checked()
  C:linef("static int %s(%s)", lj.name, table.concat(decl, ", "))
  C:line("{")
  for _, p in ipairs(ps) do C:linef("  (void)%s;", p.name) end
  C:line("  (void)diagc_jac;")
  C:line("  {")
  names.in_leaf_scope(C, lj.lt, function()
    for l in (lj.code .. "\n"):gmatch("(.-)\n") do
      if l ~= "" then C:line("    " .. l) end
    end
  end)
  C:line("  }")
  C:line("  return 0;")
  C:line("}")
  C:end_checked(lj.name)
  C:line()
end

-- where an input element comes from: {col = xc index} | {entry=, elem=} |
-- {} (not state-dependent)
local function source(F, e, key, index)
  local ctx = e.ctx
  if XC[key] then return { col = ctx[XC[key]] + index } end
  local name = key:match("^input:(.*)$")
  if name then
    local r = F.resolve_input(ctx, name)
    return r.entry and { entry = r.entry, elem = index } or {}
  end
  if key:match("^cache:") then return { entry = ctx.entries[key], elem = index } end
  local b = key:match("^builtin:(.*)$")
  if b then return { entry = ctx.entries[b], elem = index } end
  return {}
end

-- the element a local output writes: {entry=, elem=} or {row = xc index}
local function target(e, key, index)
  local part = key:match("^self:(%a)$")
  if part then return { row = e.ctx[XC[part]] + index } end
  return { entry = e, elem = index }
end

-- the terms of each target element of entry e, by column
local function terms_of(F, D, e, lj, arr)
  local key_of, out = {}, {}
  for _, p in ipairs(e.calc.params) do key_of[p.name] = p.key end
  for k, nz in ipairs(lj.pattern) do
    local t = target(e, key_of[nz.out], nz.out_index)
    local tkey = t.row and ("r" .. t.row) or ("e" .. t.elem)
    local slot = out[tkey] or { t = t, cols = {} }
    out[tkey] = slot
    local s, ref = source(F, e, key_of[nz.input], nz.in_index), string.format("%s[%d]", arr, k - 1)
    if s.col then
      local c = slot.cols[s.col] or {}
      c[#c + 1] = ref
      slot.cols[s.col] = c
    elseif s.entry then
      local dd = D[s.entry] and D[s.entry][s.elem] or {}
      for _, col in ipairs(util.sorted_keys(dd)) do
        local c = slot.cols[col] or {}
        c[#c + 1] = ref .. " * " .. dd[col]
        slot.cols[col] = c
      end
    end
  end
  local list = {}
  for _, tk in ipairs(util.sorted_keys(out)) do list[#list + 1] = out[tk] end
  return list
end

-- the call of e's local Jacobian into the array `arr`
local function emit_call(K, e, lj, arr)
  local a = {}
  for _, p in ipairs(e.calc.params) do a[#a + 1] = args.expr(K.F, e.ctx, p, e) end
  a[#a + 1] = arr
  K.C:linef("  double %s[%d];", arr, math.max(#lj.pattern, 1))
  K.C:linef("  if (%s(%s) != 0) return DIAGC_E_CALC;", lj.name, table.concat(a, ", "))
end

-- the body of PREFIX_jac_xc: fills R[row][col] with the name of each
-- nonzero's local
local function emit_chain(K, list, locals)
  local D, R, n = {}, {}, 0
  for _, e in ipairs(list) do
    local lj, arr = locals[e.calc], "jl" .. e.index
    if #lj.pattern > 0 then emit_call(K, e, lj, arr) end
    for _, slot in ipairs(terms_of(K.F, D, e, lj, arr)) do
      local t, vals = slot.t, {}
      for _, col in ipairs(util.sorted_keys(slot.cols)) do
        K.C:linef("  const double d%d = %s;", n, table.concat(slot.cols[col], " + "))
        vals[col] = "d" .. n
        n = n + 1
      end
      if t.row then R[t.row] = vals
      else D[t.entry] = D[t.entry] or {}; D[t.entry][t.elem] = vals end
    end
  end
  return R
end

-- CSC of R: {colptr=, rowind=, vals=}
local function csc(R, nxc)
  local cols = {}
  for row, vals in pairs(R) do
    for col, v in pairs(vals) do
      cols[col] = cols[col] or {}
      cols[col][#cols[col] + 1] = { row = row, v = v }
    end
  end
  local colptr, rowind, vals = { 0 }, {}, {}
  for col = 0, nxc - 1 do
    local list = cols[col] or {}
    table.sort(list, function(a, b) return a.row < b.row end)
    for _, x in ipairs(list) do rowind[#rowind + 1] = x.row; vals[#vals + 1] = x.v end
    colptr[#colptr + 1] = #rowind
  end
  return { colptr = colptr, rowind = rowind, vals = vals }
end

local function emit_sparsity(K, s)
  local F, P = K.F, K.P
  local all = { F.nxc, F.nxc }
  for _, x in ipairs(s.colptr) do all[#all + 1] = x end
  for _, x in ipairs(s.rowind) do all[#all + 1] = x end
  K.C:linef("const int %s_jac_xc_sparsity[%d] = {%s};", P, #all, table.concat(all, ", "))
  K.C:line()
end

local function emit_function(K, list, locals)
  local C, P = K.C, K.P
  C:linef("int %s_jac_xc(%s_context *c, double *nz)", P, P)
  C:line("{")
  C:linef("  int rc = %s__eval_%d(c);", P, K.F.root.entries.xcdot.index)
  C:line("  if (rc != 0) return rc;")
  local s = csc(emit_chain(K, list, locals), K.F.nxc)
  for k, v in ipairs(s.vals) do C:linef("  nz[%d] = %s;", k - 1, v) end
  if #s.vals == 0 then C:line("  (void)nz;") end
  C:line("  return 0;")
  C:line("}")
  C:line()
  return s
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
    local list = K.F.nxc > 0 and not K.opts.no_jacobian and path_entries(K.F)
    if not list then
      K.api[#K.api + 1] = string.format("/* No d xcdot / d xc: %s. */", K.F.nxc == 0
        and "no continuous state" or K.opts.no_jacobian and "generated with --no-jacobian"
        or "a calc on the derivative path is outside the differentiable subset")
      K.api[#K.api + 1] = string.format("#define %s_HAS_JAC_XC 0", K.PU)
      return
    end
    local locals = local_jacobians(K, list)
    for _, e in ipairs(list) do
      local lj = locals[e.calc]
      if not lj.emitted and #lj.pattern > 0 then lj.emitted = true; emit_local(C, lj) end
    end
    local s = emit_function(K, list, locals)
    emit_sparsity(K, s)
    C:linef("static int %s__v_jac_xc(void *c, double *nz)", K.P)
    C:linef("{ return %s_jac_xc((%s_context *)c, nz); }", K.P, K.P)
    C:line()
    K.api[#K.api + 1] = string.format("#define %s_HAS_JAC_XC 1", K.PU)
    declare(K, #s.rowind)
    K.jac = { nnz = #s.rowind }
  end
end

return M
