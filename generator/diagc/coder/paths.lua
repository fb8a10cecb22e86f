-- coder/paths.lua: the functions of the eval paths (tickets/eval_paths.lua).
-- A path is cut into segments of at most SEG steps, one function each;
-- a path of several segments also gets a dispatching function and one eval
-- function shared by its entries (P__peval_<path>(c, position)).  Adds
-- nothing to the model.
local bit = require("bit")
local loops = require("diagc.tickets.loops")
local names = require("diagc.coder.names")
local steps = require("diagc.coder.steps")

local M = {}

local SEG, word_of = steps.SEG, steps.word_of

-- whether steps a..b (0-based positions) of a path call evals of deps
-- other than their predecessor
local function needs_rc(list, a, b)
  for k = a, b do
    local e = list[k + 1]
    local skip = k > 0 and e.pred or nil
    for _, d in ipairs(e.deps) do
      if d.entry ~= skip then return true end
    end
  end
  return false
end

function M.nsegments(path) return math.ceil(#path.entries / SEG) end

-- the function of segment s of a path: the path's own name when it has one
-- segment; else the path's function dispatches to its segments
function M.segment_name(P, path, s)
  if M.nsegments(path) == 1 then return string.format("%s__path_%d", P, path.id) end
  return string.format("%s__path_%d_%d", P, path.id, s)
end

local function noinline(K, path)
  return M.nsegments(path) > 1 and (K.P .. "__NOINLINE ") or ""
end

-- The scan back from step b to the first stale entry of a..b (the one
-- after the last up-to-date entry; entries before a are up to date): at
-- S<k>, entry k is stale; if k-1 is up to date, the steps start at L<k>
-- (at B if no entry of the segment is up to date).
-- A run of entries whose valid bits share a word is tested with one AND
-- first.  S<b> is where the switch on `to` lands by default.
local function emit_scan(C, list, a, b)
  local run_start = {}
  for k = a, b do
    local w = word_of(list[k + 1])
    run_start[k] = (k > a and word_of(list[k]) == w) and run_start[k - 1] or k
  end
  for k = b, a + 1, -1 do
    if k < b then C:linef("S%d:", k) end
    local top, ra = k - 1, run_start[k - 1]
    if top - ra + 1 >= 4 and (k == b or run_start[k] ~= ra) then
      local mask = 0ULL
      for j = ra, top do mask = bit.bor(mask, bit.lshift(1ULL, list[j + 1].index % 64)) end
      C:linef("  if (!(c->valid[%d] & c->cache_on & UINT64_C(0x%s))) goto %s;", word_of(list[top + 1]),
        bit.tohex(mask, 16), ra == a and "B" or ("S" .. ra))
    end
    C:linef("  if (%s) goto L%d;", names.valid_test(list[k]), k)
  end
end

-- The valid bits of a segment's steps go to local words m<w> until
-- flushed: declares them and returns the statement that flushes them.
local function declare_valid_words(C, list, a, b)
  local words, seen = {}, {}
  for k = a, b do
    local w = word_of(list[k + 1])
    if not seen[w] then seen[w] = true; words[#words + 1] = w end
  end
  table.sort(words)
  local fl = {}
  for _, w in ipairs(words) do
    C:linef("  uint64_t m%d = 0;", w)
    fl[#fl + 1] = string.format("c->valid[%d] |= m%d;", w, w)
  end
  return table.concat(fl, " ")
end

-- where a segment starts: the switch on `to`, and the scan back
local function emit_entry(C, list, a, b)
  if a < b then
    C:line("  switch (to) {")
    C:linef("  case %d: goto B;", a)
    for k = a + 1, b - 1 do C:linef("  case %d: goto S%d;", k, k) end
    C:line("  default: break;")
    C:line("  }")
  end
  -- asked for an entry past this segment: nothing to do here if its last
  -- entry is up to date
  if b < #list - 1 then C:linef("  if (%s) return 0;", names.valid_test(list[b + 1])) end
  if a < b then C:line("  /* scan back to the first stale entry */") end
  emit_scan(C, list, a, b)
end

-- Segment s of a path: steps a..b.  Called with every entry before a up
-- to date, it computes the stale entries among a..min(to, b), in order.
-- Two copies of the steps, each commented where it starts in the C: the
-- straight copy (B) runs the segment from its first step and has no
-- labels inside, so the compiler keeps each value in registers for the
-- next step; the ladder copy (L<k>) starts just after the last up-to-date
-- entry.  Both leave through D (done) or F (a calc failed).
local function emit_segment(K, path, s)
  local C, P, list = K.C, K.P, path.entries
  local a = s * SEG
  local b = math.min(#list - 1, a + SEG - 1)
  C:linef("static %sint %s(%s_context *c, int to)", noinline(K, path), M.segment_name(P, path, s), P)
  C:line("{")
  if needs_rc(list, a, b) then C:line("  int rc;") end
  local flush = declare_valid_words(C, list, a, b)
  -- (in the straight copy an early return flushes in place, where the
  -- bits are constants to the compiler)
  local function step(k, straight)
    local e = list[k + 1]
    steps.compute(K, e, "  ", k > 0 and e.pred or nil, flush)
    if k < b and straight then C:linef("  if (to == %d) { %s return 0; }", k, flush)
    elseif k < b then C:linef("  if (to == %d) goto D;", k) end
  end
  emit_entry(C, list, a, b)
  if a < b then C:linef("B: /* the steps from the first (the ladder copy below repeats steps %d-%d) */", a + 1, b) end
  for k = a, b do
    C:linef("  /* %s */", loops.entry_path(list[k + 1]))
    step(k, true)
  end
  if a < b then C:line("D:") end
  C:linef("  %s", flush)
  C:line("  return 0;")
  if a < b then C:line("  /* ladder copy of the steps above: entered after the last up-to-date entry */") end
  for k = a + 1, b do
    C:linef("L%d: /* %s */", k, loops.entry_path(list[k + 1]))
    step(k)
  end
  if a < b then C:line("  goto D;") end
  local can_fail = false
  for k = a, b do can_fail = can_fail or list[k + 1].calc ~= nil end
  if can_fail then
    C:line("F:")
    C:linef("  %s", flush)
    C:line("  return DIAGC_E_CALC;")
  end
  C:line("}")
  C:line()
end

-- A path of several segments: find the segment holding the first stale
-- entry (testing each segment's first entry, from `to`'s segment down),
-- then run the segments from there up to `to`'s, one after the other.
local function emit_dispatch(K, path)
  local C, P, list = K.C, K.P, path.entries
  local nseg = M.nsegments(path)
  C:linef("static %s__NOINLINE int %s__path_%d(%s_context *c, int to)", P, P, path.id, P)
  C:line("{")
  C:line("  int rc;")
  C:linef("  switch (to / %d) {", SEG)
  for s = nseg - 1, 1, -1 do C:linef("  case %d: goto T%d;", s, s) end
  C:line("  default: goto G0;")
  C:line("  }")
  for s = nseg - 1, 1, -1 do
    C:linef("T%d:", s)
    C:linef("  if (%s) goto G%d;", names.valid_test(list[s * SEG + 1]), s)
  end
  for s = 0, nseg - 2 do
    C:linef("G%d:", s)
    C:linef("  if ((rc = %s(c, to)) != 0 || to < %d) return rc;", M.segment_name(P, path, s), (s + 1) * SEG)
  end
  C:linef("G%d:", nseg - 1)
  C:linef("  return %s(c, to);", M.segment_name(P, path, nseg - 1))
  C:line("}")
  C:line()
end

-- the eval function shared by the entries of a path of several segments:
-- the entry at position k is P__path_<id>_entries[k]
local function emit_shared_eval(K, path)
  local C, P = K.C, K.P
  local idx = {}
  for i, e in ipairs(path.entries) do idx[i] = tostring(e.index) end
  C:linef("static const unsigned %s__path_%d_entries[%d] = {", P, path.id, #idx)
  for i = 1, #idx, 16 do
    C:linef("  %s%s", table.concat(idx, ", ", i, math.min(#idx, i + 15)), i + 15 < #idx and "," or "")
  end
  C:line("};")
  C:line()
  C:linef("/* eval of the entry at position k of path %d */", path.id)
  C:linef("static %s__NOINLINE int %s__peval_%d(%s_context *c, int k)", P, P, path.id, P)
  C:line("{")
  C:linef("  const unsigned e = %s__path_%d_entries[k];", P, path.id)
  C:linef("  %s__CNT(c->n_eval[e]++);", P)
  C:line("  if (c->valid[e / 64] & c->cache_on & (UINT64_C(1) << (e % 64))) return 0;")
  C:line("  if (c->frozen) return DIAGC_E_FROZEN;")
  C:linef("  return %s__path_%d(c, k);", P, path.id)
  C:line("}")
  C:line()
end

-- all the functions of a path of more than one entry
function M.emit(K, path)
  local C, list = K.C, path.entries
  local nm = {}
  for _, e in ipairs(list) do nm[#nm + 1] = loops.entry_path(e) end
  local text = table.concat(nm, " -> ")
  if #text > 200 then text = nm[1] .. " -> ... -> " .. nm[#nm] .. " (" .. #list .. " entries)" end
  C:linef("/* eval path %d: %s */", path.id, text)
  for s = 0, M.nsegments(path) - 1 do emit_segment(K, path, s) end
  if M.nsegments(path) > 1 then
    emit_dispatch(K, path)
    emit_shared_eval(K, path)
  end
end


-- prototypes of a path's functions
function M.prototypes(K, path)
  local C, P = K.C, K.P
  for s = 0, M.nsegments(path) - 1 do
    C:linef("static %sint %s(%s_context *c, int to);", noinline(K, path), M.segment_name(P, path, s), P)
  end
  if M.nsegments(path) > 1 then
    C:linef("static %s__NOINLINE int %s__path_%d(%s_context *c, int to);", P, P, path.id, P)
  end
end

return M
