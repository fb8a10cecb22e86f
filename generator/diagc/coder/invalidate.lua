-- coder/invalidate.lua: the invalidation of every entry point (a source
-- of change: time, a state part, a parameter, an input...) as data, and
-- the one function that applies it.  Entry point k clears, in the
-- context's valid words, the stale bits of masks/init.lua (ep.words):
-- runs {first word, number of words, mask} P__inv_runs[P__inv_first[k] ..
-- P__inv_first[k + 1]), consecutive words with the same mask in one run.
-- The cached Jacobians' bits (coder/jacobian_cache.lua: entries after
-- F.entries) are bits of the same words.  P__invalidate(c, k) walks them (word-wise ANDs), counting the
-- invalidations unless DIAGC_NO_COUNTERS.  One table instead of a
-- function per entry point keeps gcc's time on large models down (a few
-- milliseconds per function at -O2).  Adds nothing to the model; K.inv
-- maps an entry point (and its cname) to its index k.
local util = require("diagc.util")
local jcache = require("diagc.coder.jacobian_cache")
local masks = require("diagc.masks")

local M = {}

-- K.inv: the index of each entry point
function M.name_all(K)
  for i, ep in ipairs(K.eps) do
    K.inv[ep] = i - 1
    if ep.cname then K.inv[ep.cname] = i - 1 end
  end
end

-- the C statement invalidating for a change of entry point `key`
function M.call(K, key)
  local k = K.inv[key]
  assert(k, "coder/invalidate: no entry point")
  return string.format("%s__invalidate(c, %d);", K.P, k)
end

-- an entry point's words as runs {word, len, hex}
local function runs_of(words)
  local runs = {}
  for _, w in ipairs(words) do
    local r = runs[#runs]
    if r and r.hex == w.hex and r.word + r.len == w.word then
      r.len = r.len + 1
    else
      runs[#runs + 1] = { word = w.word, len = 1, hex = w.hex }
    end
  end
  return runs
end

-- ep's words: its entries' (masks/init.lua) with the bits of the
-- Jacobians it makes stale (coder/jacobian_cache.lua)
local function words_of(K, ep)
  local jac = jcache.stale(K, ep)
  if #jac == 0 then return ep.words end
  local all = {}
  for _, e in ipairs(ep.stale) do all[#all + 1] = e end
  for _, j in ipairs(jac) do all[#all + 1] = j end
  return masks.words(all)
end

local function emit_tables(C, K)
  local P, first, rows, n = K.P, {}, {}, 0
  for _, ep in ipairs(K.eps) do
    first[#first + 1] = n .. ","
    rows[#rows + 1] = string.format("  /* %d: %s */", #first - 1, util.c_comment(ep.name))
    for _, r in ipairs(runs_of(words_of(K, ep))) do
      rows[#rows + 1] = string.format("  {%d, %d, UINT64_C(%s)},", r.word, r.len, r.hex)
      n = n + 1
    end
  end
  first[#first + 1] = tostring(n)
  C:linef("typedef struct %s__inv_run { uint32_t word, len; uint64_t mask; } %s__inv_run;", P, P)
  C:line("/* the runs of valid words each entry point clears (the last row ends the table) */")
  C:linef("static const %s__inv_run %s__inv_runs[%d] = {", P, P, n + 1)
  for _, r in ipairs(rows) do C:line(r) end
  C:line("  {0, 0, UINT64_C(0)} /* end */")
  C:line("};")
  C:linef("/* entry point k's runs: [%s__inv_first[k], %s__inv_first[k + 1]) */", P, P)
  C:linef("static const uint32_t %s__inv_first[%d] = {", P, #K.eps + 1)
  for i = 1, #first, 16 do
    C:line("  " .. table.concat(first, " ", i, math.min(i + 15, #first)))
  end
  C:line("};")
  C:line()
end

-- slot `invalidations`
function M.emit(K)
  return function(C)
    local P = K.P
    emit_tables(C, K)
    C:linef("void %s__invalidate(%s_context *c, int k)", P, P)
    C:line("{")
    C:linef("  const %s__inv_run *r = %s__inv_runs + %s__inv_first[k];", P, P, P)
    C:linef("  const %s__inv_run *end = %s__inv_runs + %s__inv_first[k + 1];", P, P, P)
    C:line("  for (; r < end; ++r) {")
    C:line("    uint32_t w;")
    C:linef("    for (w = r->word; w < r->word + r->len; ++w) %s__INV(c, w, r->mask);", P)
    C:line("  }")
    C:line("}")
    C:line()
  end
end

return M
