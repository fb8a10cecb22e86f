-- coder/jacobian_update.lua: the Jacobians of the periodic discrete
-- updates, one per timing (period, offset) of the model's periodic discrete
-- update events, for any model (continuous, discrete or both).  Drake's
-- semantics: at an instant where the events of one timing fire, each of
-- them reads the state before the instant, and x+ = (xc unchanged, the
-- groups those events write updated, every other xd unchanged); an element
-- an update leaves unassigned keeps its value.  PREFIX_jac_update<k>(c,
-- nz) gives ∂x+/∂(xc, xd, u): rows xc then xd (identity rows for what the
-- timing does not change), columns xc, xd, then the root's exported inputs
-- (the descriptor's lin_inputs), composed by the chain rule at compile
-- time (coder/jacobian_chain.lua) through the entries the update calcs read
-- and the calcs themselves; structural nonzeros only, its pattern
-- PREFIX_jac_update<k>_sparsity in CasADi's layout, cached like the other
-- Jacobians (coder/jacobian_cache.lua).  A timing shared by an
-- unrestricted update, or with a calc outside the differentiable subset,
-- has no function (the descriptor's jac NULL, the header says why).  The
-- descriptor lists every timing (PREFIX__jac_updates).  Adds nothing to
-- the model; sets K.jup = {n=, rows=}.
local chain = require("diagc.coder.jacobian_chain")
local lin = require("diagc.coder.jacobian_lin")
local util = require("diagc.util")

local M = {}

-- the timings of the periodic discrete updates, in order of their first
-- event (leaves in order, events in declaration order): {tag=, period=,
-- offset=, updates = {{ctx=, ev=}}, unrestricted= (the path of an
-- unrestricted update of the same timing, or nil)}
function M.timings(F)
  local list, by, unrestricted = {}, {}, {}
  for _, ctx in ipairs(F.leaves) do
    for _, ev in ipairs(ctx.type.events) do
      if ev.trigger == "periodic" and ev.event_kind ~= "publish" then
        local key = util.c_double(ev.period) .. "/" .. util.c_double(ev.offset or 0)
        if ev.event_kind == "unrestricted_update" then
          unrestricted[key] = unrestricted[key] or (ctx.path .. "." .. ev.name)
        else
          local t = by[key]
          if not t then
            t = { tag = "update" .. #list, period = ev.period, offset = ev.offset or 0, updates = {}, key = key }
            by[key] = t
            list[#list + 1] = t
          end
          t.updates[#t.updates + 1] = { ctx = ctx, ev = ev }
        end
      end
    end
  end
  for _, t in ipairs(list) do t.unrestricted = unrestricted[t.key] end
  return list
end

-- the entries the update calcs of a timing read (the handlers evaluate
-- them first)
function M.reads(F, updates)
  local list, seen = {}, {}
  for _, u in ipairs(updates) do
    for _, d in ipairs(chain.update_deps(F, u)) do
      if not seen[d.entry] then seen[d.entry] = true; list[#list + 1] = d.entry end
    end
  end
  return list
end

-- the chain of timing t (coder/jacobian_lin.lua's update_chain), or nil
-- and the entry or update without a Jacobian
function M.chain_list(F, t)
  if t.unrestricted then return nil end
  return lin.update_chain(M.reads(F, t.updates), t.updates)
end

-- the column blocks: xc, xd, u; the updates' x_next rows after xc
function M.columns(F)
  return { xc = F.nxc > 0 and 0 or nil, xd = F.nxc, u = F.nxc + F.nxd, row_xd = F.nxc }
end

-- the number of exported input elements (the columns after xc and xd)
local function n_inputs(F)
  local n = 0
  for _, s in ipairs(lin.inputs(F)) do n = n + s.size end
  return n
end

local function emit_function(K, t, list, locals)
  local C, P, F = K.C, K.P, K.F
  C:linef("/* d x+ / d(xc, xd, u) of the periodic updates at period %s, offset %s */",
    util.c_double(t.period), util.c_double(t.offset))
  C:linef("static int %s__jac_%s_calc(%s_context *c, double *nz)", P, t.tag, P)
  C:line("{")
  local reads, calls = M.reads(F, t.updates), false
  for _, e in ipairs(list) do calls = calls or #locals[e.calc].pattern > 0 end
  if #reads > 0 then C:line("  int rc;") end
  if #reads == 0 and not calls then C:line("  (void)c;") end
  for _, e in ipairs(reads) do
    C:linef("  rc = %s__eval_%d(c);", P, e.index)
    C:line("  if (rc != 0) return rc;")
  end
  local R = chain.emit_chain(K, list, locals, M.columns(F))
  for r = 0, F.nxc - 1 do R[r] = { [r] = "1.0" } end
  lin.identity_rows(F, t.updates, R, F.nxc)
  return chain.finish(K, R, F.nxc + F.nxd + n_inputs(F))
end

local function why_none(K, t)
  if K.opts.no_jacobian then return "generated with --no-jacobian" end
  if t.unrestricted then return "the unrestricted update " .. t.unrestricted .. " has the same timing" end
  return "a calc it needs is outside the differentiable subset"
end

local function comment(t)
  return {
    string.format("/* d x+ / d(xc, xd, u) at the periodic discrete updates of period %s, offset %s:",
      util.c_double(t.period), util.c_double(t.offset)),
    " * rows xc then xd, columns xc, xd, then the inputs of P_model.lin_inputs;",
    " * structural nonzeros in compressed columns (pattern as P_jac_xc_sparsity). */",
  }
end

-- one timing: its function, pattern and declarations; the descriptor row
local function emit_timing(K, t)
  local F, P = K.F, K.P
  local nrow, ncol = F.nxc + F.nxd, F.nxc + F.nxd + n_inputs(F)
  local plan = K.jcache.by_tag[t.tag] -- coder/jacobian_cache.lua: nil when there is none
  local head = string.format("  {\"jac_%s\", %s, %s, %d, %d, ", t.tag, util.c_double(t.period),
    util.c_double(t.offset), nrow, ncol)
  if not plan then
    K.api[#K.api + 1] = string.format("/* No d x+ / d(xc, xd, u) at period %s, offset %s: %s. */",
      util.c_double(t.period), util.c_double(t.offset), why_none(K, t))
    K.api[#K.api + 1] = string.format("#define %s_HAS_JAC_%s 0", K.PU, t.tag:upper())
    return head .. "0, NULL, NULL, NULL},"
  end
  local cols = M.columns(F)
  local locals = chain.local_jacobians(K, plan.list, cols)
  chain.emit_locals(K, plan.list, locals)
  local s = emit_function(K, t, plan.list, locals)
  chain.emit_pattern(K, t.tag, nrow, ncol, s)
  chain.declare(K, t.tag, comment(t), #s.rowind, nrow, ncol)
  return head .. string.format("%d, %s_jac_%s_sparsity + 2, %s_jac_%s_sparsity + %d, %s__v_jac_%s},",
    #s.rowind, P, t.tag, P, t.tag, 3 + ncol, P, t.tag)
end

-- slot `jacobian_update`; sets K.jup
function M.emit(K)
  return function(C)
    local timings = M.timings(K.F)
    K.jup = { n = #timings }
    if #timings == 0 then return end
    local rows = {}
    for _, t in ipairs(timings) do rows[#rows + 1] = emit_timing(K, t) end
    C:line("/* the periodic discrete updates' Jacobians, one per timing */")
    C:linef("static const diagc_jac_update_desc %s__jac_updates[%d] = {", K.P, #rows)
    for _, r in ipairs(rows) do C:line(r) end
    C:line("};")
    C:line()
  end
end

return M
