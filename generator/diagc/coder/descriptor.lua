-- coder/descriptor.lua: the diagc_model descriptor the runtime reads
-- (runtime/include/diagc/model.h): its tables (names of the state and
-- leaves, outputs, cache entries (the generated Jacobians' last: coder/
-- jacobian_cache.lua), sources, events, loggers), the index
-- tables its set_source, eval_output and eval_cache read (fixed text of
-- templates/model.c.in), and the values of the PREFIX_model initializer.
-- Adds nothing to the model.
local util = require("diagc.util")
local loops = require("diagc.tickets.loops")
local names = require("diagc.coder.names")
local jcache = require("diagc.coder.jacobian_cache")

local M = {}

-- where entry e's value is, as a byte offset into the context (-1:
-- nowhere, as a diagram's xcdot below the root: it is its children's)
local function cache_at(K, e)
  local F, P = K.F, K.P
  local function in_cache(off)
    return string.format("(long)(offsetof(%s_context, cache) + %d * sizeof(double))", P, off)
  end
  if e.kind == "diagram_computed" and e.ticket == "xcdot" and e.ctx == F.root then
    return in_cache(F.xcdot_base)
  end
  if e.field then return string.format("(long)offsetof(%s_context, %s)", P, e.field) end
  return e.offset and in_cache(e.offset) or "-1"
end

-- a table of `n` values row(i) (i from 1); none when n is 0 (nothing
-- reads it then: see guard)
local function index_table(C, ctype, name, n, row)
  if n == 0 then return end
  C:linef("static const %s %s[%d] = {", ctype, name, n)
  for i = 1, n do C:line("  " .. row(i) .. ",") end
  C:line("};")
end

-- `if (i < 0 || i >= n) return FAIL;`, or for an empty table (where the
-- test would be a tautology compilers warn about) no index at all
local function guard(C, n, fail)
  if n == 0 then
    C:linef("  (void)c; (void)i; (void)%s;", fail == "" and "v" or "out")
    C:linef("  return%s;", fail == "" and "" or (" " .. fail))
    return false
  end
  C:linef("  if (i < 0 || i >= %d) return%s;", n, fail == "" and "" or (" " .. fail))
  return true
end

-- slot `index_functions`: the descriptor's set_source, eval_output and
-- eval_cache, reading the tables of index_tables
function M.index_functions(K)
  return function(C)
    local P, F = K.P, K.F
    C:linef("static void %s__v_set_source(void *c, int i, const void *v)", P)
    C:line("{")
    if guard(C, #K.sources, "") then
      C:linef("  memcpy((char *)c + %s__sources[i].offset, v, %s__sources[i].byte_size);", P, P)
      C:linef("  %s__invalidate((%s_context *)c, (int)%s__source_ep[i]);", P, P, P)
    end
    C:line("}")
    C:linef("static int %s__v_eval_cache(void *c, int i, const double **out)", P)
    C:line("{")
    if #F.entries + #K.jcache.list > 0 then C:line("  int rc;") end
    if guard(C, #F.entries + #K.jcache.list, "DIAGC_E_INDEX") then
      C:linef("  rc = %s__eval_entry((%s_context *)c, i);", P, P)
      C:linef("  if (out) *out = (rc || %s__cache_at[i] < 0) ? NULL : (const double *)(const void *)((char *)c + %s__cache_at[i]);", P, P)
      C:line("  return rc;")
    end
    C:line("}")
    C:linef("static int %s__v_eval_output(void *c, int i, const double **out)", P)
    C:line("{")
    if guard(C, #F.outputs, "DIAGC_E_INDEX") then
      C:linef("  return %s__v_eval_cache(c, (int)%s__output_entry[i], out);", P, P)
    end
    C:line("}")
  end
end

-- slot `index_tables`: what set_source, eval_output and eval_cache read
function M.index_tables(K)
  return function(C)
    local F, P = K.F, K.P
    for i, e in ipairs(F.entries) do assert(e.index == i - 1, "coder/descriptor: entries out of order") end
    C:line("/* entry point of each source (an index of the invalidation tables) */")
    index_table(C, "uint32_t", P .. "__source_ep", #K.sources, function(i) return tostring(K.sources[i].ep) end)
    C:line("/* where each cache entry's value is: a byte offset into the context, or -1 */")
    local n, jl = #F.entries, K.jcache.list
    index_table(C, "long", P .. "__cache_at", n + #jl, function(i)
      return i <= n and cache_at(K, F.entries[i]) or jcache.cache_at(K, jl[i - n])
    end)
    C:line("/* the cache entry of each output port */")
    index_table(C, "uint32_t", P .. "__output_entry", #F.outputs, function(i) return tostring(F.outputs[i].entry.index) end)
    C:line()
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
        -- named elements are "sys.theta", as continuous state's are
        l[#l + 1] = ctx.path .. "." .. (g.elements and g.elements[i]
          or (g.name .. (g.size > 1 and ("[" .. (i - 1) .. "]") or "")))
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

-- each output's row; the element names of the outputs that have them as
-- tables of their own (one per list of names, shared by equal lists)
local function output_rows(K, C, P)
  local rows, tables = {}, {}
  for i, o in ipairs(K.F.outputs) do
    local el = "NULL"
    if o.elements then
      local key = table.concat(o.elements, "\n")
      if not tables[key] then
        tables[key] = names.table_of(C, P, "char *const", "elements" .. i, quoted_rows(o.elements))
      end
      el = tables[key]
    end
    rows[i] = string.format("  {%s, %d, %s},", util.c_string(o.path), o.size, el)
  end
  return rows
end

local function cache_rows(K)
  local F, rows = K.F, {}
  for _, e in ipairs(F.entries) do
    local path = e.ctx.path == "" and ("." .. e.name) or loops.entry_path(e)
    local size = (e.field or not e.offset) and 0 or e.size
    if e.kind == "diagram_computed" and e.ticket == "xcdot" and e.ctx == F.root then size = F.nxc end
    rows[#rows + 1] = string.format("  {%s, %d},", util.c_string(path), size)
  end
  for _, r in ipairs(jcache.cache_rows(K)) do rows[#rows + 1] = r end
  return rows
end

local function source_rows(K)
  local rows = {}
  for i, s in ipairs(K.sources) do
    rows[i] = string.format("  {%s, %s, %d, %s, %s},", util.c_string(s.name), s.kind, s.size, s.off, s.bytes)
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
    t.outputs = names.table_of(C, P, "diagc_value_desc", "outputs", output_rows(K, C, P))
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
