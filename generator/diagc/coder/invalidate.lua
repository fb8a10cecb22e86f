-- coder/invalidate.lua: one static function per entry point (a source of
-- change: time, a state part, a parameter, an input...) clearing the valid
-- bits of every cache entry its change makes stale (masks/init.lua: the
-- words of ep.words), counting the invalidations unless
-- DIAGC_NO_COUNTERS.  Functions are numbered by entry point (paths are
-- arbitrary text, so names built from them could collide).  Adds nothing
-- to the model; K.inv maps an entry point (and its cname) to its function.
local M = {}

-- A run of all-ones words at least this long becomes a loop.
local RUN_LOOP = 8

-- K.inv: the name of each entry point's function
function M.name_all(K)
  for i, ep in ipairs(K.eps) do
    K.inv[ep] = string.format("%s__inv_%d", K.P, i - 1)
    if ep.cname then K.inv[ep.cname] = K.inv[ep] end
  end
end

-- the last word of a run of full, consecutive words starting at i
local function run_end(words, i)
  local j = i
  while words[i].full and j + 1 <= #words and words[j + 1].full
      and words[j + 1].word == words[j].word + 1 do
    j = j + 1
  end
  return j
end

local function emit_words(C, P, words)
  local i = 1
  while i <= #words do
    local r, j = words[i], run_end(words, i)
    if j - i + 1 >= RUN_LOOP then
      C:linef("  { int w; for (w = %d; w <= %d; ++w) %s__INV(c, w, ~UINT64_C(0)); }", r.word, words[j].word, P)
      i = j + 1
    else
      C:linef("  %s__INV(c, %d, UINT64_C(%s));", P, r.word, r.hex)
      i = i + 1
    end
  end
end

-- slot `invalidations`
function M.emit(K)
  return function(C)
    for _, ep in ipairs(K.eps) do
      C:linef("/* invalidation for a change of %s */", ep.name)
      C:linef("static void %s(%s_context *c)", K.inv[ep], K.P)
      C:line("{")
      if #ep.words == 0 then C:line("  (void)c;") end
      emit_words(C, K.P, ep.words)
      C:line("}")
      C:line()
    end
  end
end

return M
