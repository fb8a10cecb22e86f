-- coder/c_model.lua: the last stage: flattened diagram + masks -> the text
-- of model.h and model.c.  It reads what the earlier stages computed and
-- checks nothing (the spec's C was checked by check/c_text.lua); it adds
-- nothing to the model.  It renders templates/model.h.in and
-- templates/model.c.in (coder/template.lua), whose slots these modules
-- fill, one job each:
--   coder/header.lua       preambles, size macros, the context struct (model.h)
--   coder/defaults.lua     default values and PREFIX_init
--   coder/calcs.lua        one C function per leaf type and calc (the spec's C)
--   coder/evals.lua        one eval per cache entry, eval paths, the root's schedule
--   coder/invalidate.lua   one invalidation function per entry point
--   coder/setters.lua      the public setters and the sources list
--   coder/eval_api.lua     the public evals of output ports and cache entries
--   coder/jacobian.lua     d xcdot / d xc by the chain rule over the calcs' local Jacobians
--   coder/jacobian_lin.lua d(xcdot, y) / d(xc, u), the same way, for linearization
--   coder/jacobian_update.lua d x+ / d(xc, xd, u) of each periodic update timing
--   coder/jacobian_cache.lua  the Jacobians as cache entries (tickets, bits, counters)
--   coder/events.lua       event handlers and their apply functions
--   coder/witness.lua, coder/next_update.lua   zero crossings, timed events
--   coder/descriptor.lua   the diagc_model descriptor's functions and tables
-- Shared: coder/names.lua (the coder's state K and common names),
-- coder/args.lua (a calc's argument expressions), coder/emit.lua (a line
-- buffer that keeps #line directives right).
--
-- opts: {prefix=, header_name=, source_name=, spec_name=, version=,
-- leaf_types=, default_accuracy=, no_jacobian=, graph= (tickets/graph.lua)}.
-- Returns {header=, source=,
-- checked_source=, source_restore=, header_restore=, user_blocks=,
-- jac_xc_missing= (why there is no d xcdot / d xc: coder/jacobian.lua),
-- jac_lin_missing= (the same for d(xcdot, y) / d(xc, u): coder/jacobian_lin.lua),
-- jacobians= (the generated Jacobians as cache entries: coder/jacobian_cache.lua)}.
local util = require("diagc.util")
local emit = require("diagc.coder.emit")
local template = require("diagc.coder.template")
local names = require("diagc.coder.names")
local args = require("diagc.coder.args")
local header = require("diagc.coder.header")
local defaults = require("diagc.coder.defaults")
local calcs = require("diagc.coder.calcs")
local evals = require("diagc.coder.evals")
local invalidate = require("diagc.coder.invalidate")
local setters = require("diagc.coder.setters")
local eval_api = require("diagc.coder.eval_api")
local jacobian = require("diagc.coder.jacobian")
local jacobian_lin = require("diagc.coder.jacobian_lin")
local jacobian_fd = require("diagc.coder.jacobian_fd")
local jacobian_p = require("diagc.coder.jacobian_p")
local jacobian_cache = require("diagc.coder.jacobian_cache")
local jacobian_update = require("diagc.coder.jacobian_update")
local events = require("diagc.coder.events")
local descriptor = require("diagc.coder.descriptor")

local M = {}

-- witness and next_update_time items (each writes its own table)
local function timed_items(K, mod, key)
  return function(C)
    K[key] = require(mod).emit(C, K.F, { P = K.P, opts = K.opts, n_events = #K.ev_rows,
      in_leaf_scope = names.in_leaf_scope,
      arg_expr = function(ctx, p, target, buf) return args.expr(K.F, ctx, p, target, buf) end })
  end
end

-- values of the PREFIX_model initializer known once the blocks are emitted
local function later(K, f) return function() return f(K) end end

local function model_slots(K)
  local F, P, s = K.F, K.P, {}
  s.nq, s.nv, s.nz, s.nxc, s.nxd = F.nq, F.nv, F.nz, F.nxc, F.nxd
  s.name_string, s.default_accuracy = util.c_string(P), util.c_double(K.opts.default_accuracy)
  s.n_leaves, s.n_outputs, s.n_loggers = #F.leaves, #F.outputs, #F.logs
  s.n_cache = #F.entries + #K.jcache.list
  s.n_sources = later(K, function() return #K.sources end)
  s.n_events = later(K, function() return #K.ev_rows end)
  for _, t in ipairs({ "xc_names", "xd_names", "leaf_names", "outputs", "cache", "events_table", "loggers" }) do
    s[t] = later(K, function() return K.tables[t] end)
  end
  s.n_witnesses = later(K, function() return K.wit.n end)
  s.witnesses_table = later(K, function() return K.wit.table end)
  s.jac_xc_nnz = later(K, function() return K.jac and K.jac.nnz or 0 end)
  s.jac_xc_colptr = later(K, function() return K.jac and (P .. "_jac_xc_sparsity + 2") or "NULL" end)
  s.jac_xc_rowind = later(K, function()
    return K.jac and string.format("%s_jac_xc_sparsity + %d", P, 3 + F.nxc) or "NULL"
  end)
  s.jac_xc = later(K, function() return K.jac and (P .. "__v_jac_xc") or "NULL" end)
  s.lin_blocks = later(K, function()
    local l = K.lin
    return string.format("%d, %s__lin_outputs, %d, %s__lin_inputs, %d, %d, %d", l.n_outputs, P, l.n_inputs, P,
      l.nrow, l.ncol, l.nnz or 0)
  end)
  s.jac_p = later(K, function()
    local j = K.jp
    if not j then return "0, NULL, 0, 0, 0, NULL, NULL, NULL" end
    if not j.nnz then return string.format("%d, %s__jac_params, %d, %d, 0, NULL, NULL, NULL", j.n, P, j.nrow, j.ncol) end
    return string.format("%d, %s__jac_params, %d, %d, %d, %s_jac_p_sparsity + 2, %s_jac_p_sparsity + %d, %s__v_jac_p",
      j.n, P, j.nrow, j.ncol, j.nnz, P, P, 3 + j.ncol, P)
  end)
  s.lin_period = later(K, function() return util.c_double(K.lin.period) end)
  s.jac_fd = later(K, function() return string.format("%d, %s", #(K.jac_fd or {}), K.jac_fd_table) end)
  s.jac_lin = later(K, function()
    if not K.lin.nnz then return "NULL, NULL, NULL" end
    return string.format("%s_jac_lin_sparsity + 2, %s_jac_lin_sparsity + %d, %s__v_jac_lin", P, P, 3 + K.lin.ncol, P)
  end)
  s.jac_updates = later(K, function()
    return string.format("%d, %s, %d", K.jup.n, K.jup.n > 0 and (P .. "__jac_updates") or "NULL", #F.entries)
  end)
  s.n_timed = later(K, function() return K.nut.n end)
  s.timed_table = later(K, function() return K.nut.table end)
  return s
end

local function source_slots(K)
  local s = model_slots(K)
  s.P, s.version, s.spec, s.header_name = K.P, K.opts.version, K.spec_comment, K.opts.header_name
  s.defaults = defaults.arrays(K)
  s.end_of_prologue = function(C) K.prologue_last = #C.lines end
  s.calc_functions = calcs.emit(K)
  s.evals = evals.emit(K)
  s.invalidations = invalidate.emit(K)
  s.init_function = defaults.init_function(K)
  s.setters = setters.emit(K)
  s.eval_api = eval_api.emit(K)
  s.jacobian = jacobian.emit(K)
  s.jacobian_lin = jacobian_lin.emit(K)
  s.jacobian_p = jacobian_p.emit(K)
  s.jacobian_update = jacobian_update.emit(K)
  s.jacobian_fd_table = jacobian_fd.table(K)
  s.xcdot_entry, s.xcdot_base = K.F.root.entries.xcdot.index, K.F.xcdot_base
  s.events = events.emit(K)
  s.witnesses = timed_items(K, "diagc.coder.witness", "wit")
  s.next_update = timed_items(K, "diagc.coder.next_update", "nut")
  s.tables = descriptor.tables(K)
  s.index_tables = descriptor.index_tables(K)
  s.index_functions = descriptor.index_functions(K)
  return s
end

function M.generate(F, eps, opts)
  local C, H = emit.new(opts.source_name), emit.new(opts.header_name)
  local K = names.state(F, eps, opts, C, H)
  K.spec_comment = util.c_comment(opts.spec_name)
  K.defaults = defaults.values(F)
  invalidate.name_all(K)
  jacobian_cache.plan(K)
  template.render("model.c.in", C, source_slots(K))
  template.render("model.h.in", H, header.slots(K))
  local blocks = {}
  for _, b in ipairs(H.blocks) do blocks[#blocks + 1] = b end
  for _, b in ipairs(C.blocks) do blocks[#blocks + 1] = b end
  return { header = H:text(), source = C:text(), source_restore = C.restore,
    jac_xc_missing = K.jac == nil and jacobian.missing(F) or nil,
    jac_lin_missing = K.lin.nnz == nil and jacobian_lin.missing(F) or nil,
    jacobians = K.jcache.list,
    checked_source = C:checked_text(K.prologue_last, K.P .. "__checked_refs"),
    header_restore = H.restore, user_blocks = blocks }
end

return M
