-- coder/names.lua: the names and small pieces of C every coder module
-- shares: the coder's state K (prefix, flattened model, line buffers), the
-- calc functions' names, a cache entry's valid bit, and a leaf's
-- c_preamble macro scope.  Adds nothing to the model.
local util = require("diagc.util")

local M = {}

-- K: what every coder module reads.  F: flattened model; eps: entry
-- points with masks; opts: see coder/c_model.lua.
function M.state(F, eps, opts, C, H)
  return {
    P = opts.prefix, PU = opts.prefix:upper(), F = F, eps = eps, opts = opts,
    C = C, H = H,
    api = {},     -- the header's prototypes, in the order the source defines them
    inv = {},     -- invalidation function of each entry point (and of its cname)
  }
end

-- an array length: C has no zero-length arrays
function M.arr(n) return n > 0 and n or 1 end

-- "{1, 2.5}" for a list of numbers
function M.dvec_init(v)
  local t = {}
  for i, x in ipairs(v) do t[i] = util.c_double(x) end
  return "{" .. table.concat(t, ", ") .. "}"
end

-- the C function holding a leaf type's calc
function M.calc_fn(P, lt, calc)
  local tag = calc.kind == "event" and ("ev_" .. calc.name)
    or (calc.kind == "output" and ("out_" .. calc.name))
    or (calc.kind == "cache" and ("cache_" .. calc.name)) or calc.kind
  return string.format("%s__L%d_%s__%s", P, lt.id, lt.name, tag)
end

-- a cache entry's valid bit: word index, C mask expression
function M.word_bit(e)
  return math.floor(e.index / 64), "(UINT64_C(1) << " .. (e.index % 64) .. ")"
end

-- the C test "entry e is up to date" (cache on)
function M.valid_test(e)
  local w, b = M.word_bit(e)
  return string.format("c->valid[%d] & c->cache_on & %s", w, b)
end

-- Emits a leaf's code through body() in its c_preambles' macro scope
-- (check/c_text.lua: lt.c_scope): the macros are defined again before it
-- and undefined after it.
function M.in_leaf_scope(buf, lt, body)
  local s = lt.c_scope
  if not s then return body() end
  for _, d in ipairs(s.directives) do buf:user_code(d.text, d.loc, "a c_preamble") end
  body()
  for _, m in ipairs(s.macros) do buf:linef("#undef %s", m) end
end

-- A const table of rows `static const CTYPE P__NAME[n] = {...};`, or
-- nothing when there are no rows; returns its C name, or "NULL".
function M.table_of(C, P, ctype, name, rows)
  if #rows == 0 then return "NULL" end
  C:linef("static const %s %s__%s[%d] = {", ctype, P, name, #rows)
  for _, r in ipairs(rows) do C:line(r) end
  C:line("};")
  return P .. "__" .. name
end

return M
