-- coder/next_update.lua: the C of next_update_time items (one-shot events
-- at a time a calc computes: Drake's DoCalcNextUpdateTime override).
-- Called by coder/c_model.lua after the events (coder/events.lua) are emitted: writes one calc
-- function per leaf type and item (the spec's body, which sets the double
-- `t_next`, INFINITY when left alone), one descriptor-facing function per
-- leaf instance that brings the calc's cache prerequisites up to date and
-- calls it, and the diagc_timed_desc table.  The item's event is an
-- ordinary leaf event (trigger "timed"), already emitted by coder/events.lua;
-- the table refers to it by its index in the events table.
local util = require("diagc.util")
local value_fn = require("diagc.coder.value_fn")
local names = require("diagc.coder.names")

local M = {}

local function fn_name(P, lt, d)
  return string.format("%s__L%d_%s__nut_%s", P, lt.id, lt.name, d.name)
end

-- one calc function per leaf type and item; returns {[item] = params}
local function emit_calcs(C, P, opts, in_leaf_scope)
  local params = {}
  for _, lt in ipairs(opts.leaf_types) do
    for _, d in ipairs(lt.timed or {}) do
      params[d] = value_fn.emit(C, { lt = lt, calc = d.calc, name = fn_name(P, lt, d), var = "t_next",
        init = "HUGE_VAL", out = "diagc_t_next_out", what = "a next_update_time calc",
        in_leaf_scope = in_leaf_scope })
    end
  end
  return params
end

-- C: the source emitter; F: the flattened model; a: {P=, opts=, arg_expr=,
-- n_events=, in_leaf_scope=}.  Returns {n = count, table = C name or "NULL"}.
function M.emit(C, F, a)
  local P = a.P
  local params = emit_calcs(C, P, a.opts, a.in_leaf_scope)

  -- event indices, in the order coder/events.lua lists them
  local ev_index = value_fn.event_indices(F, a.n_events, "next_update")

  local rows = {}
  for _, ctx in ipairs(F.leaves) do
    for _, d in ipairs(ctx.type.timed or {}) do
      local id = #rows
      local ps = params[d]
      value_fn.emit_wrapper(C, { P = P, F = F, ctx = ctx, ps = ps, arg_expr = a.arg_expr,
        comment = string.format("next_update_time %s.%s", ctx.path, d.name),
        name = string.format("%s__nut_%d", P, id), out = "t_next", callee = fn_name(P, ctx.type, d) })
      rows[#rows + 1] = string.format("  {%s, %d, %s__nut_%d, %d},",
        util.c_string(ctx.path .. "." .. d.name), ctx.leaf_index, P, id, ev_index[ctx][d.event])
    end
  end
  local t = names.table_of(C, P, "diagc_timed_desc", "timed", rows)
  if #rows > 0 then C:line() end
  return { n = #rows, table = t }
end

return M
