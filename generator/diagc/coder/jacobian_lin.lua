-- coder/jacobian_lin.lua: the Jacobian a linearization needs,
-- ∂(ẋc, y)/∂(xc, u), composed by the chain rule at compile time
-- (coder/jacobian_chain.lua).  Rows: the nxc time derivatives, then the
-- elements of the linearization outputs y (the root diagram's exported
-- output ports and the logged ports, in the order of the descriptor's
-- outputs table); columns: the nxc continuous state elements, then the
-- elements of the root's exported inputs u (in u order); a sampled loop
-- (M.sampled: xc under one periodic discrete update) has the nxd discrete
-- state columns between xc and u.  In C:
-- PREFIX_jac_lin(c, nz) over structural nonzeros only, its pattern
-- PREFIX_jac_lin_sparsity in CasADi's layout, and the row and column
-- blocks PREFIX__lin_outputs (indices into the outputs table) and
-- PREFIX__lin_inputs (indices into the sources table), which the
-- descriptor publishes whether or not the Jacobian exists (finite
-- differences use them too).  Adds nothing to the model; sets K.lin.
local chain = require("diagc.coder.jacobian_chain")
local names = require("diagc.coder.names")
local loops = require("diagc.tickets.loops")

local M = {}

-- the linearization outputs: {o=, index= (0-based in F.outputs)}
function M.outputs(F)
  local logged, list = {}, {}
  for _, l in ipairs(F.logs) do logged[l.output] = true end
  for i, o in ipairs(F.outputs) do
    if o.ctx == F.root or logged[i - 1] then list[#list + 1] = { o = o, index = i - 1 } end
  end
  return list
end

-- the exported input slots, in u order
function M.inputs(F)
  local list = {}
  for _, s in ipairs(F.u_slots) do
    if s.kind == "input" then list[#list + 1] = s end
  end
  return list
end

-- A purely discrete model with one periodic discrete update (Drake's
-- unique periodic update: every leaf's discrete updates share one period
-- and offset; no other event writes state) is linearized in x[n+1]:
-- returns {ctx=, ev=} of each update, the period and the offset, or nil.
function M.discrete_updates(F)
  if F.nxc > 0 or F.nxd == 0 then return nil end
  local list, period, offset = {}, nil, nil
  for _, ctx in ipairs(F.leaves) do
    for _, ev in ipairs(ctx.type.events) do
      if ev.event_kind ~= "publish" then
        if ev.event_kind ~= "discrete_update" or ev.trigger ~= "periodic" then return nil end
        if period and (ev.period ~= period or (ev.offset or 0) ~= offset) then return nil end
        period, offset = ev.period, ev.offset or 0
        list[#list + 1] = { ctx = ctx, ev = ev }
      end
    end
  end
  if #list == 0 then return nil end
  return list, period, offset
end

local function roots(F, outs, updates)
  local r = { F.root.entries.xcdot }
  for _, y in ipairs(outs) do r[#r + 1] = y.o.entry end
  for _, u in ipairs(updates or {}) do
    for _, d in ipairs(chain.update_deps(F, u)) do r[#r + 1] = d.entry end
  end
  return r
end

-- the leaf entries the roots read, deps first, then the updates as
-- pseudo-entries {ctx=, calc=, index=}; nil and the entry or update
-- without a Jacobian (shared with coder/jacobian_update.lua)
function M.update_chain(roots_list, updates)
  local list, bad = chain.path_entries(roots_list)
  if not list then return nil, bad end
  for k, u in ipairs(updates or {}) do
    if not chain.update_has_jacobian(u.ev) then return nil, { ctx = u.ctx, calc = u.ev, event = true } end
    list[#list + 1] = { ctx = u.ctx, calc = u.ev, index = "u" .. (k - 1) }
  end
  return list
end

-- A model with continuous state and one periodic discrete update (every
-- leaf's discrete updates share one period and offset, no other event
-- writes state) is linearized as a sampled loop (runtime/src/linearize.c):
-- jac_lin then has the xd columns too, ∂(ẋc, y)/∂(xc, xd, u), and the
-- period is published.  Returns the period and the offset, or nil.
function M.sampled(F)
  if F.nxc == 0 or F.nxd == 0 then return nil end
  local period, offset
  for _, ctx in ipairs(F.leaves) do
    for _, ev in ipairs(ctx.type.events) do
      if ev.event_kind ~= "publish" then
        if ev.event_kind ~= "discrete_update" or ev.trigger ~= "periodic" then return nil end
        if period and (ev.period ~= period or (ev.offset or 0) ~= offset) then return nil end
        period, offset = ev.period, ev.offset or 0
      end
    end
  end
  if not period then return nil end
  return period, offset
end

-- the chain of the linearization's rows (M.update_chain)
function M.chain_list(F, outs, updates)
  return M.update_chain(roots(F, outs, updates), updates)
end

-- Why the model has no ∂(ẋc, y)/∂(xc, u), or nil when it has one
-- ({loc=, message=} as coder/jacobian.lua's missing)
function M.missing(F)
  local list, e = M.chain_list(F, M.outputs(F), (M.discrete_updates(F)))
  if list then return nil end
  local d = e.calc.diff
  if not d then return { message = "calc bodies were not analyzed (no C lexer)" } end
  local what = e.event and (e.ctx.path .. "." .. e.calc.name) or loops.entry_path(e)
  return { loc = d.loc, message = string.format("the linearization needs the Jacobian of %s: %s", what,
    chain.why_missing(e, "use finite differences (--jacobian fd)")) }
end

-- the column blocks (coder/jacobian_chain.lua): the state (xd for a
-- purely discrete model, xc and xd for a sampled loop, else xc), then the
-- exported inputs
function M.columns(F, updates)
  if updates then return { xd = 0, u = F.nxd } end
  if M.sampled(F) then return { xc = 0, xd = F.nxc, u = F.nxc + F.nxd } end
  return { xc = 0, u = F.nxc }
end

local function sizes(nx, outs, ins)
  local ny, nu = 0, 0
  for _, y in ipairs(outs) do ny = ny + y.o.size end
  for _, s in ipairs(ins) do nu = nu + s.size end
  return nx + ny, nx + nu
end

-- the rows of y: R[nx + offset + elem] from the entries' totals D
function M.output_rows(nx, outs, R, D)
  local off = nx
  for _, y in ipairs(outs) do
    local d = D[y.o.entry] or {}
    for k = 0, y.o.size - 1 do R[off + k] = d[k] end
    off = off + y.o.size
  end
end

-- discrete: x[n+1] = x[n] for the groups no update writes; their rows
-- and columns start at `base` (shared with coder/jacobian_update.lua)
function M.identity_rows(F, updates, R, base)
  local written = {}
  for _, u in ipairs(updates) do
    for _, p in ipairs(u.ev.params) do
      local g = p.key:match("^next:xd:(.*)$")
      if g then
        for i = 0, u.ctx.type.names[g].size - 1 do written[u.ctx.xd_off[g] + i] = true end
      end
    end
  end
  for r = 0, F.nxd - 1 do
    if not written[r] then R[base + r] = { [base + r] = "1.0" } end
  end
end

-- the evals a Jacobian of the linearization's rows starts with: the
-- root's xcdot, the output entries and (discrete) what the update calcs
-- read; they bring every entry its local Jacobians read up to date
function M.emit_evals(K, outs, updates)
  local C, P = K.C, K.P
  C:linef("  int rc = %s__eval_%d(c);", P, K.F.root.entries.xcdot.index)
  C:line("  if (rc != 0) return rc;")
  local done, evals = { [K.F.root.entries.xcdot] = true }, {}
  for _, y in ipairs(outs) do evals[#evals + 1] = y.o.entry end
  -- a discrete update's calc reads these (the handler evaluates them first)
  for _, u in ipairs(updates or {}) do
    for _, d in ipairs(loops.calc_deps(K.F, u.ctx, u.ev.params)) do evals[#evals + 1] = d.entry end
  end
  for _, e in ipairs(evals) do
    if not done[e] then
      done[e] = true
      C:linef("  rc = %s__eval_%d(c);", P, e.index)
      C:line("  if (rc != 0) return rc;")
    end
  end
end

local function emit_function(K, list, locals, outs, ncol, updates)
  local C, P = K.C, K.P
  C:linef("static int %s__jac_lin_calc(%s_context *c, double *nz)", P, P)
  C:line("{")
  M.emit_evals(K, outs, updates)
  local R, D = chain.emit_chain(K, list, locals, M.columns(K.F, updates))
  if updates then M.identity_rows(K.F, updates, R, 0) end
  M.output_rows(updates and K.F.nxd or K.F.nxc, outs, R, D)
  return chain.finish(K, R, ncol)
end

-- the index of each exported input's source in K.sources
local function input_sources(K, ins)
  local idx = {}
  for i, s in ipairs(K.sources) do
    if s.kind == "DIAGC_SRC_INPUT" then idx[s.name] = i - 1 end
  end
  local list = {}
  for i, s in ipairs(ins) do list[i] = assert(idx[s.name], "coder/jacobian_lin: no source for an input") end
  return list
end

local function emit_blocks(K, outs, ins)
  local C, P, o, u = K.C, K.P, {}, {}
  for i, y in ipairs(outs) do o[i] = tostring(y.index) end
  for i, s in ipairs(input_sources(K, ins)) do u[i] = tostring(s) end
  C:line("/* the linearization's output ports (rows after xcdot) and exported inputs (columns after xc) */")
  C:linef("static const int %s__lin_outputs[%d] = {%s};", P, names.arr(#o), #o > 0 and table.concat(o, ", ") or "0")
  C:linef("static const int %s__lin_inputs[%d] = {%s};", P, names.arr(#u), #u > 0 and table.concat(u, ", ") or "0")
  C:line()
end

local COMMENT = {
  "/* d(xcdot, y) / d(xc, u) for linearization: rows xcdot then the outputs of",
  " * P_model.lin_outputs, columns xc (then xd for a sampled loop: P_model.",
  " * lin_time_period > 0 with nxc > 0) then the inputs of P_model.lin_inputs;",
  " * structural nonzeros in compressed columns (pattern as P_jac_xc_sparsity). */",
}

-- slot `jacobian_lin`; sets K.lin = {n_outputs=, n_inputs=, nrow=, ncol=,
-- period=, nnz=} (nnz nil: no Jacobian; period 0: continuous)
function M.emit(K)
  return function(C)
    local F = K.F
    local outs, ins = M.outputs(F), M.inputs(F)
    local updates, period = M.discrete_updates(F)
    local sampled = M.sampled(F)
    local nrow, ncol = sizes(updates and F.nxd or F.nxc, outs, ins)
    if sampled then ncol, period = ncol + F.nxd, sampled end
    emit_blocks(K, outs, ins)
    K.lin = { n_outputs = #outs, n_inputs = #ins, nrow = nrow, ncol = ncol, period = period or 0 }
    local plan = K.jcache.by_tag.lin -- coder/jacobian_cache.lua: nil when there is none
    local list = plan and plan.list
    if not list then
      K.api[#K.api + 1] = string.format("/* No d(xcdot, y) / d(xc, u): %s. */", K.opts.no_jacobian
        and "generated with --no-jacobian" or "a calc it needs is outside the differentiable subset")
      K.api[#K.api + 1] = string.format("#define %s_HAS_JAC_LIN 0", K.PU)
      return
    end
    local locals = chain.local_jacobians(K, list, M.columns(F, updates))
    chain.emit_locals(K, list, locals)
    local s = emit_function(K, list, locals, outs, ncol, updates)
    chain.emit_pattern(K, "lin", nrow, ncol, s)
    chain.declare(K, "lin", COMMENT, #s.rowind, nrow, ncol)
    K.lin.nnz = #s.rowind
  end
end

return M
