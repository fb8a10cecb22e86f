-- coder/witness.lua: the C of witness functions (zero crossings).
-- Called by coder/c_model.lua after the events (coder/events.lua) are emitted: writes one
-- calc function per leaf type and witness (the spec's body, which sets the
-- double `value`), one descriptor-facing function per leaf instance that
-- brings the calc's cache prerequisites up to date and calls it, and the
-- diagc_witness_desc table.  A witness's event is an ordinary leaf event
-- (trigger "witness"), already emitted by coder/events.lua; the table refers to
-- it by its index in the events table.
local util = require("diagc.util")
local value_fn = require("diagc.coder.value_fn")
local names = require("diagc.coder.names")

local M = {}

-- C: the source emitter; F: the flattened model; a: {P=, opts=, arg_expr=,
-- n_events=}.  Returns {n = count, table = C name or "NULL"}.
function M.emit(C, F, a)
  local P, opts = a.P, a.opts
  local function fn_name(lt, w)
    return string.format("%s__L%d_%s__wit_%s", P, lt.id, lt.name, w.name)
  end

  -- calc functions, one per leaf type and witness
  local params = {}
  for _, lt in ipairs(opts.leaf_types) do
    for _, w in ipairs(lt.witnesses or {}) do
      params[w] = value_fn.emit(C, { lt = lt, calc = w.calc, name = fn_name(lt, w), var = "value",
        init = "0", out = "diagc_value_out", what = "a witness calc",
        in_leaf_scope = a.in_leaf_scope })
    end
  end

  -- event indices, in the order coder/events.lua lists them
  local ev_index = value_fn.event_indices(F, a.n_events, "witness")

  -- per-instance evaluation functions and the table rows
  local rows = {}
  for _, ctx in ipairs(F.leaves) do
    for _, w in ipairs(ctx.type.witnesses or {}) do
      local id = #rows
      local ps = params[w]
      value_fn.emit_wrapper(C, { P = P, F = F, ctx = ctx, ps = ps, arg_expr = a.arg_expr,
        comment = string.format("witness %s.%s", ctx.path, w.name),
        name = string.format("%s__wit_%d", P, id), out = "value", callee = fn_name(ctx.type, w) })
      rows[#rows + 1] = string.format("  {%s, %d, %s, %s__wit_%d, %d},",
        util.c_string(ctx.path .. "." .. w.name), ctx.leaf_index, w.c_direction, P, id,
        w.event and ev_index[ctx][w.event] or -1)
    end
  end
  local t = names.table_of(C, P, "diagc_witness_desc", "witnesses", rows)
  if #rows > 0 then C:line() end
  return { n = #rows, table = t }
end

return M
