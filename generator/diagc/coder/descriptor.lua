-- coder/descriptor.lua: the diagc_model descriptor the runtime reads
-- (runtime/include/diagc/model.h): the functions behind its void *
-- signatures that are not fixed text of templates/model.c.in (one per
-- source, cache entry and output port), its tables (names of the state
-- and leaves, outputs, cache entries, sources, events, loggers), and the
-- values of the PREFIX_model initializer.  Adds nothing to the model.
local util = require("diagc.util")
local loops = require("diagc.tickets.loops")
local eval_api = require("diagc.coder.eval_api")
local names = require("diagc.coder.names")

local M = {}

local function vwrap(C, P, name, sig, call)
  C:linef("static %s", (sig:gsub("NAME", P .. "__v_" .. name)))
  C:linef("{ %s }", call)
end

-- the descriptor's function for source i (time and accuracy have their own)
local function source_fn(s, i)
  return (s.fn == "set_time" and "src_time") or (s.fn == "set_accuracy" and "src_accuracy") or ("src" .. (i - 1))
end

-- slot `source_wrappers`
function M.source_wrappers(K)
  return function(C)
    local P = K.P
    for i, s in ipairs(K.sources) do
      local fn = source_fn(s, i)
      if fn ~= "src_time" and fn ~= "src_accuracy" then
        vwrap(C, P, fn, "void NAME(void *c, const void *v)",
          string.format("%s_%s((%s_context *)c, v);", P, s.fn, P))
      end
    end
  end
end

-- where entry e's value is, as the descriptor reports it (nil: nowhere,
-- as a diagram's xcdot below the root: it is its children's)
local function cache_ref(F, e)
  if e.kind == "diagram_computed" and e.ticket == "xcdot" and e.ctx == F.root then
    return "cc->cache + " .. F.xcdot_base
  end
  if e.field then return "(const double *)(const void *)&cc->" .. e.field end
  return e.offset and eval_api.value_ref(F, e, "cc") or nil
end

-- slot `value_wrappers`
function M.value_wrappers(K)
  return function(C)
    local F, P = K.F, K.P
    for _, e in ipairs(F.entries) do
      local ref = cache_ref(F, e)
      vwrap(C, P, "cache" .. e.index, "int NAME(void *c, const double **out)",
        string.format("%s_context *cc = (%s_context *)c; int rc = %s__eval_%d(cc); if (out) *out = %s; return rc;",
          P, P, P, e.index, ref and ("rc ? NULL : " .. ref) or "NULL"))
    end
    for i, o in ipairs(F.outputs) do
      vwrap(C, P, "out" .. (i - 1), "int NAME(void *c, const double **out)",
        string.format("return %s_eval_%s((%s_context *)c, out);", P, o.cname, P))
    end
  end
end

local function quoted_rows(list)
  local rows = {}
  for i, n in ipairs(list) do rows[i] = "  " .. util.c_string(n) .. "," end
  return rows
end

local function xc_names(F)
  local l = {}
  for _, part in ipairs({ "q", "v", "z" }) do
    for _, ctx in ipairs(F.leaves) do
      for _, n in ipairs(ctx.type[part]) do l[#l + 1] = ctx.path .. "." .. n end
    end
  end
  return l
end

local function xd_names(F)
  local l = {}
  for _, ctx in ipairs(F.leaves) do
    for _, g in ipairs(ctx.type.by_kind.xd) do
      for i = 1, g.size do
        l[#l + 1] = ctx.path .. "." .. g.name .. (g.size > 1 and ("[" .. (i - 1) .. "]") or "")
      end
    end
  end
  return l
end

local function leaf_names(F)
  local l = {}
  for _, ctx in ipairs(F.leaves) do l[#l + 1] = ctx.path end
  return l
end

local function output_rows(K)
  local rows = {}
  for i, o in ipairs(K.F.outputs) do
    rows[i] = string.format("  {%s, %d, %s__v_out%d},", util.c_string(o.path), o.size, K.P, i - 1)
  end
  return rows
end

local function cache_rows(K)
  local F, rows = K.F, {}
  for _, e in ipairs(F.entries) do
    local path = e.ctx.path == "" and ("." .. e.name) or loops.entry_path(e)
    local size = (e.field or not e.offset) and 0 or e.size
    if e.kind == "diagram_computed" and e.ticket == "xcdot" and e.ctx == F.root then size = F.nxc end
    rows[#rows + 1] = string.format("  {%s, %d, %s__v_cache%d},", util.c_string(path), size, K.P, e.index)
  end
  return rows
end

local function source_rows(K)
  local rows = {}
  for i, s in ipairs(K.sources) do
    rows[i] = string.format("  {%s, %s, %d, %s, %s, %s__v_%s},", util.c_string(s.name), s.kind, s.size,
      s.off, s.bytes, K.P, source_fn(s, i))
  end
  return rows
end

local function logger_rows(K)
  local rows = {}
  for i, l in ipairs(K.F.logs) do
    rows[i] = string.format("  {%s, %d, %d, %s},", util.c_string(l.name), l.output, l.size, util.c_double(l.period))
  end
  return rows
end

-- slot `tables`; fills K.tables with the names the initializer uses
function M.tables(K)
  return function(C)
    local F, P, t = K.F, K.P, {}
    t.xc_names = names.table_of(C, P, "char *const", "xc_names", quoted_rows(xc_names(F)))
    t.xd_names = names.table_of(C, P, "char *const", "xd_names", quoted_rows(xd_names(F)))
    t.leaf_names = names.table_of(C, P, "char *const", "leaf_names", quoted_rows(leaf_names(F)))
    t.outputs = names.table_of(C, P, "diagc_value_desc", "outputs", output_rows(K))
    t.cache = names.table_of(C, P, "diagc_cache_desc", "cache", cache_rows(K))
    names.table_of(C, P, "diagc_source_desc", "sources", source_rows(K))
    local ev = {}
    for i, r in ipairs(K.ev_rows) do ev[i] = r .. "," end
    t.events_table = names.table_of(C, P, "diagc_event_desc", "events", ev)
    t.loggers = names.table_of(C, P, "diagc_logger_desc", "loggers", logger_rows(K))
    K.tables = t
  end
end

return M
