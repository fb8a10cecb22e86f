-- coder/events.lua: per leaf instance and event, the handler the
-- simulator calls (PREFIX__ev_N: bring the calc's cache prerequisites up
-- to date, then run the leaf's event calc into the state buffer) and, for
-- updates, the function that applies the buffer's written parts to the
-- context and invalidates what they feed (PREFIX__apply_N).  Fills K.ev_rows,
-- the rows of the descriptor's events table.  Adds nothing to the model.
local util = require("diagc.util")
local loops = require("diagc.tickets.loops")
local names = require("diagc.coder.names")
local args = require("diagc.coder.args")
local invalidate = require("diagc.coder.invalidate")

local M = {}

local function emit_handler(K, ctx, ev, id)
  local C, P = K.C, K.P
  local ps = ev.params
  C:linef("/* event %s.%s */", ctx.path, ev.name)
  C:linef("static int %s__ev_%d(void *vc, void *vb)", P, id)
  C:line("{")
  C:linef("  %s_context *c = (%s_context *)vc;", P, P)
  C:linef("  %s_state *b = (%s_state *)vb;", P, P)
  C:line("  (void)c; (void)b;")
  for _, d in ipairs(loops.calc_deps(K.F, ctx, ps)) do
    C:linef("  if (%s__eval_%d(c) != 0) return DIAGC_FAILED;", P, d.entry.index)
  end
  local a = {}
  for _, p in ipairs(ps) do a[#a + 1] = args.expr(K.F, ctx, p, nil, "b") end
  C:linef("  return %s(%s);", names.calc_fn(P, ctx.type, ev), table.concat(a, ", "))
  C:line("}")
  C:line()
end

-- copies one written part from the buffer b into the context
local function emit_copy(C, ctx, w)
  local it = ctx.type.names[w]
  if w == "q" or w == "v" or w == "z" then
    local off = ctx["x" .. w]
    C:linef("  memcpy(c->x.xc + %d, b->xc + %d, %d * sizeof(double));", off, off, ctx["n" .. w])
  elseif it.kind == "xd" then
    local off = ctx.xd_off[w]
    C:linef("  memcpy(c->x.xd + %d, b->xd + %d, %d * sizeof(double));", off, off, it.size)
  else
    C:linef("  c->x.%s = b->%s;", ctx.xa_field[w], ctx.xa_field[w])
  end
end

local function emit_apply(K, ctx, ev, id)
  local C, P = K.C, K.P
  local apply = string.format("%s__apply_%d", P, id)
  C:linef("static void %s(void *vc, const void *vb)", apply)
  C:line("{")
  C:linef("  %s_context *c = (%s_context *)vc;", P, P)
  C:linef("  const %s_state *b = (const %s_state *)vb;", P, P)
  for _, w in ipairs(ev.writes) do
    emit_copy(C, ctx, w)
    C:line("  " .. invalidate.call(K, ctx.cpath .. "__" .. w))
  end
  C:line("}")
  C:line()
  return apply
end

-- slot `events`
function M.emit(K)
  return function()
    K.ev_rows = {}
    for _, ctx in ipairs(K.F.leaves) do
      for _, ev in ipairs(ctx.type.events) do
        local id = #K.ev_rows
        emit_handler(K, ctx, ev, id)
        local apply = ev.event_kind ~= "publish" and emit_apply(K, ctx, ev, id) or "NULL"
        K.ev_rows[#K.ev_rows + 1] = string.format('  {%s, %d, DIAGC_TRIGGER_%s, DIAGC_%s, %s, %s, %s__ev_%d, %s}',
          util.c_string(ctx.path .. "." .. ev.name), ctx.leaf_index, ev.trigger:upper(),
          ev.event_kind:upper(), util.c_double(ev.period or 0), util.c_double(ev.offset or 0), K.P, id, apply)
      end
    end
  end
end

return M
