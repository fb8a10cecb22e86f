-- masks/init.lua: ticket graph -> invalidation masks.
-- For every entry point, the exact set of cache entries to mark stale,
-- as 64-bit words of the context's valid-bit array (only nonzero words).
--
-- Stage contract: F (flatten) and G (tickets/graph.lua) -> the entry
-- points (M.compute), a list in the order masks/entry_points.lua gives:
--   {name=, cname= (C name part; nil for input slots), kind= ("time",
--    "accuracy", "bulk", "leaf_q" "leaf_v" "leaf_z", "xd" "xa" "pn" "pa",
--    "input" "fixed"), noted= (the G trackers the mutation notes), ctx=,
--    item= (per-source points), slot=, api= (input slots: "set_input_u" or
--    "fix_a__u"),
--    stale= (the F.entries entries it marks stale, by index),
--    words= (stale as 64-bit words: {word= (0-based), lo=, hi= (32-bit
--    halves, LuaJIT bit values), hex= ("0x%016x"), full= (all 64 bits)},
--    nonzero words only, by word)}
-- and sets slot.ep (its entry point) on every F.u_slots slot.
local graph = require("diagc.tickets.graph")
local entry_points = require("diagc.masks.entry_points")
local bit = require("bit")

local M = {}

-- A set of entry bit indices -> list of {word=, lo=, hi=, full=} where lo/hi
-- are the 32-bit halves of the word mask (LuaJIT numbers are doubles).
function M.words(entries)
  local words, by_word = {}, {}
  for _, e in ipairs(entries) do
    local w = math.floor(e.index / 64)
    local b = e.index % 64
    local rec = by_word[w]
    if not rec then
      rec = { word = w, lo = 0, hi = 0 }
      by_word[w] = rec
      words[#words + 1] = rec
    end
    if b < 32 then rec.lo = bit.bor(rec.lo, bit.lshift(1, b))
    else rec.hi = bit.bor(rec.hi, bit.lshift(1, b - 32)) end
  end
  table.sort(words, function(a, b) return a.word < b.word end)
  for _, r in ipairs(words) do
    r.full = (r.lo == -1 and r.hi == -1)
    r.hex = string.format("0x%08x%08x", bit.band(r.hi, 0xffffffff) % 2^32, bit.band(r.lo, 0xffffffff) % 2^32)
  end
  return words
end

function M.compute(F, G)
  local eps = entry_points.list(F, G)
  for _, ep in ipairs(eps) do
    ep.stale = graph.stale_set(G, ep.noted)
    ep.words = M.words(ep.stale)
  end
  return eps
end

return M
