-- coder/evals.lua: the eval functions of the cache entries (a hit is one
-- bit test; a miss brings the entry's prerequisites up to date and
-- computes it), the eval paths and the root's schedules.  An entry alone
-- on its eval path (tickets/eval_paths.lua) evaluates its deps and
-- computes itself; an entry on a longer path hands over to the path's
-- functions, which find the first stale entry and compute forward from
-- there, iteratively.  The root diagram's built-in sums run a flat
-- schedule.  Long paths and schedules are cut into pieces of at most SEG
-- steps, one function each, so that no generated function grows with the
-- model (gcc's optimizer is superlinear in a function's size); the entries
-- of such a path share one eval function.  Adds nothing to the model.
local bit = require("bit")
local loops = require("diagc.tickets.loops")
local eval_paths = require("diagc.tickets.eval_paths")
local names = require("diagc.coder.names")
local args = require("diagc.coder.args")

local M = {}

-- steps per path segment and entries per schedule part
local SEG = 64

-- the statement that computes e's value: its calc, or the sum of its
-- parts (a diagram's energies); a diagram's xcdot is its children's
-- (fail: the statement for a failed calc, by default a return)
local function emit_value(K, e, indent, fail)
  local C = K.C
  if e.calc then
    local a = {}
    for _, p in ipairs(e.params) do a[#a + 1] = args.expr(K.F, e.ctx, p, e) end
    C:linef("%sif (%s(%s) != 0) %s", indent, names.calc_fn(K.P, e.ctx.type, e.calc),
      table.concat(a, ", "), fail or "return DIAGC_E_CALC;")
  elseif e.ticket ~= "xcdot" then
    local terms = {}
    for _, p in ipairs(e.parts) do terms[#terms + 1] = "c->cache[" .. p.offset .. "]" end
    C:linef("%sc->cache[%d] = %s;", indent, e.offset, table.concat(terms, " + "))
  end
end

-- The work of computing e once its predecessor (if skip) is up to date.
-- With flush (a path segment's steps), e's valid bit goes to the local
-- word m<w>, and flush (which ORs those into c->valid) runs before any
-- other eval is called, and a failed calc jumps to F, which flushes too:
-- the steps then store no valid word each (the C compiler cannot sink
-- those stores itself).
local function emit_compute(K, e, indent, skip, flush)
  local C, P = K.C, K.P
  if skip then C:linef("%s%s__CNT(c->n_eval[%d]++);", indent, P, skip.index) end
  local flushed = false
  for _, d in ipairs(e.deps) do
    if d.entry ~= skip then
      if flush and not flushed then C:linef("%s%s", indent, flush); flushed = true end
      C:linef("%sif ((rc = %s__eval_%d(c)) != 0) return rc;", indent, P, d.entry.index)
    end
  end
  emit_value(K, e, indent, flush and "goto F;")
  local w, b = names.word_bit(e)
  C:linef("%s%s__CNT(c->n_calc[%d]++);", indent, P, e.index)
  if flush then C:linef("%sm%d |= %s;", indent, w, b)
  else C:linef("%sc->valid[%d] |= %s;", indent, w, b) end
end

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

local function nsegments(path) return math.ceil(#path.entries / SEG) end

-- the function of segment s of a path: the path's own name when it has one
-- segment; else the path's function dispatches to its segments
local function segment_name(P, path, s)
  if nsegments(path) == 1 then return string.format("%s__path_%d", P, path.id) end
  return string.format("%s__path_%d_%d", P, path.id, s)
end

local function word_of(e) return math.floor(e.index / 64) end

-- The pieces of a long path or schedule stay functions of their own
-- (inlined into their callers, they would make those long again).
local function emit_noinline_macro(C, P)
  C:line("#if defined(__GNUC__)")
  C:linef("#define %s__NOINLINE __attribute__((noinline))", P)
  C:line("#else")
  C:linef("#define %s__NOINLINE", P)
  C:line("#endif")
end
local function noinline(K, path)
  return nsegments(path) > 1 and (K.P .. "__NOINLINE ") or ""
end

-- The entries of a path of several segments share one eval function,
-- P__peval_<path>(c, position); their P__eval_<index> are macros calling it
-- (except a scheduled entry, which has its own).
local function shared_eval(e, scheduled) return nsegments(e.path) > 1 and not scheduled[e] end

local function prototypes(K, scheduled)
  local C, P = K.C, K.P
  for _, path in ipairs(K.F.eval_paths) do
    if nsegments(path) > 1 then
      C:linef("static %s__NOINLINE int %s__peval_%d(%s_context *c, int k);", P, P, path.id, P)
    end
  end
  for _, e in ipairs(K.F.entries) do
    if shared_eval(e, scheduled) then
      C:linef("#define %s__eval_%d(c) %s__peval_%d((c), %d)", P, e.index, P, e.path.id, e.pos)
    else
      C:linef("static int %s__eval_%d(%s_context *c);", P, e.index, P)
    end
  end
  for _, path in ipairs(K.F.eval_paths) do
    if #path.entries > 1 then
      for s = 0, nsegments(path) - 1 do
        C:linef("static %sint %s(%s_context *c, int to);", noinline(K, path), segment_name(P, path, s), P)
      end
      if nsegments(path) > 1 then
        C:linef("static %s__NOINLINE int %s__path_%d(%s_context *c, int to);", P, P, path.id, P)
      end
    end
  end
  C:line()
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

-- Segment s of a path: steps a..b.  Called with every entry before a up
-- to date, it computes the stale entries among a..min(to, b), in order.
-- Two copies of the steps, each commented where it starts in the C: the
-- straight copy (B) runs the segment from its first step and has no
-- labels inside, so the compiler keeps each value in registers for the
-- next step; the ladder copy (L<k>) starts just after the last up-to-date
-- entry.
local function emit_segment(K, path, s)
  local C, P, list = K.C, K.P, path.entries
  local n = #list
  local a = s * SEG
  local b = math.min(n - 1, a + SEG - 1)
  C:linef("static %sint %s(%s_context *c, int to)", noinline(K, path), segment_name(P, path, s), P)
  C:line("{")
  if needs_rc(list, a, b) then C:line("  int rc;") end
  -- the valid bits of the steps done, per word, until flushed
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
  local flush = table.concat(fl, " ")
  -- (in the straight copy an early return flushes in place, where the
  -- bits are constants to the compiler)
  local function step(k, straight)
    local e = list[k + 1]
    emit_compute(K, e, "  ", k > 0 and e.pred or nil, flush)
    if k < b and straight then C:linef("  if (to == %d) { %s return 0; }", k, flush)
    elseif k < b then C:linef("  if (to == %d) goto D;", k) end
  end
  if a < b then
    C:line("  switch (to) {")
    C:linef("  case %d: goto B;", a)
    for k = a + 1, b - 1 do C:linef("  case %d: goto S%d;", k, k) end
    C:line("  default: break;")
    C:line("  }")
  end
  -- asked for an entry past this segment: nothing to do here if its last
  -- entry is up to date
  if b < n - 1 then C:linef("  if (%s) return 0;", names.valid_test(list[b + 1])) end
  if a < b then C:line("  /* scan back to the first stale entry */") end
  emit_scan(C, list, a, b)
  if a < b then C:linef("B: /* the steps from the first (the ladder copy below repeats steps %d-%d) */", a + 1, b) end
  for k = a, b do
    C:linef("  /* %s */", loops.entry_path(list[k + 1]))
    step(k, true)
  end
  if a < b then C:line("D:") end
  C:linef("  %s", flush)
  C:line("  return 0;")
  for k = a + 1, b do
    if k == a + 1 then
      C:line("  /* ladder copy of the steps above: entered after the last up-to-date entry */")
    end
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
  local nseg = nsegments(path)
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
    C:linef("  if ((rc = %s(c, to)) != 0 || to < %d) return rc;", segment_name(P, path, s), (s + 1) * SEG)
  end
  C:linef("G%d:", nseg - 1)
  C:linef("  return %s(c, to);", segment_name(P, path, nseg - 1))
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

local function emit_path(K, path)
  local C, list = K.C, path.entries
  local nm = {}
  for _, e in ipairs(list) do nm[#nm + 1] = loops.entry_path(e) end
  local text = table.concat(nm, " -> ")
  if #text > 200 then text = nm[1] .. " -> ... -> " .. nm[#nm] .. " (" .. #list .. " entries)" end
  C:linef("/* eval path %d: %s */", path.id, text)
  for s = 0, nsegments(path) - 1 do emit_segment(K, path, s) end
  if nsegments(path) > 1 then
    emit_dispatch(K, path)
    emit_shared_eval(K, path)
  end
end

-- The root diagram's built-in sums (xcdot above all: the simulator's hot
-- path) read most of the model.  Their eval runs one flat schedule: every
-- entry they depend on, in prerequisite order, each computed if stale, and
-- the valid bits set at the end.  Because a stale entry's dependents are
-- always stale too, this computes exactly the entries a recursive lazy eval
-- would, with the same n_eval/n_calc counts, without the calls.
local SCHEDULED = { "xcdot", "pe", "ke", "pc", "pnc" }
local function schedules(F)
  local scheduled = {}
  for _, k in ipairs(SCHEDULED) do
    local e = F.root.entries[k]
    if e and #e.deps > 0 then scheduled[e] = eval_paths.post_order({ e }) end
  end
  return scheduled
end

local function schedule_words(order)
  local words, wlist = {}, {}
  for _, x in ipairs(order) do
    local w = word_of(x)
    if not words[w] then words[w] = 0ULL; wlist[#wlist + 1] = w end
    words[w] = bit.bor(words[w], bit.lshift(1ULL, x.index % 64))
  end
  table.sort(wlist)
  return words, wlist
end

-- A schedule longer than SEG entries runs as parts of SEG entries, in
-- order, one function each; each part sets its own valid bits at its end.
local function schedule_parts(order)
  local parts = {}
  for i = 1, #order, SEG do
    local part = {}
    for j = i, math.min(#order, i + SEG - 1) do part[#part + 1] = order[j] end
    parts[#parts + 1] = part
  end
  return parts
end

local function part_name(P, e, k) return string.format("%s__sched_%d_%d", P, e.index, k) end

local function emit_schedule(K, order)
  local C, P = K.C, K.P
  local words, wlist = schedule_words(order)
  for _, w in ipairs(wlist) do
    C:linef("  const uint64_t v%d = c->valid[%d] & c->cache_on;", w, w)
  end
  -- When every entry of the schedule is stale (the simulator's case: it
  -- changes xc before each derivative), the same steps run with no tests:
  -- one straight block the C compiler schedules as a whole.
  local stale = {}
  for _, w in ipairs(wlist) do
    stale[#stale + 1] = string.format("(v%d & UINT64_C(0x%s))", w, bit.tohex(words[w], 16))
  end
  local function step(x, indent)
    for _, d in ipairs(x.deps) do C:linef("%s%s__CNT(c->n_eval[%d]++);", indent, P, d.entry.index) end
    emit_value(K, x, indent)
    C:linef("%s%s__CNT(c->n_calc[%d]++);", indent, P, x.index)
  end
  -- the same steps twice: with no tests (all stale) and each under its
  -- valid-bit test
  C:linef("  if (!(%s)) {", table.concat(stale, " | "))
  C:line("    /* all stale: every step, untested (the same steps as below) */")
  for _, x in ipairs(order) do
    C:linef("    /* %s */", loops.entry_path(x))
    step(x, "    ")
  end
  C:line("  } else {")
  C:line("    /* some up to date: each step if its entry is stale */")
  for _, x in ipairs(order) do
    local w, b = names.word_bit(x)
    C:linef("    if (!(v%d & %s)) { /* %s */", w, b, loops.entry_path(x))
    step(x, "      ")
    C:line("    }")
  end
  C:line("  }")
  for _, w in ipairs(wlist) do
    C:linef("  c->valid[%d] |= UINT64_C(0x%s);", w, bit.tohex(words[w], 16))
  end
end

local function emit_schedule_parts(K, e, order)
  local C, P = K.C, K.P
  local parts = schedule_parts(order)
  for i = 1, #parts do C:linef("static %s__NOINLINE int %s(%s_context *c);", P, part_name(P, e, i - 1), P) end
  C:line()
  for i, part in ipairs(parts) do
    C:linef("/* %s: schedule part %d of %d (%s ... %s) */", loops.entry_path(e), i, #parts,
      loops.entry_path(part[1]), loops.entry_path(part[#part]))
    C:linef("static %s__NOINLINE int %s(%s_context *c)", P, part_name(P, e, i - 1), P)
    C:line("{")
    emit_schedule(K, part)
    C:line("  return 0;")
    C:line("}")
    C:line()
  end
end

local function emit_eval(K, e, order)
  local C, P = K.C, K.P
  C:linef("/* %s */", loops.entry_path(e))
  C:linef("static int %s__eval_%d(%s_context *c)", P, e.index, P)
  C:line("{")
  C:linef("  %s__CNT(c->n_eval[%d]++);", P, e.index)
  C:linef("  if (%s) return 0;", names.valid_test(e))
  C:line("  if (c->frozen) return DIAGC_E_FROZEN;")
  if order and #order > SEG then
    local n = #schedule_parts(order)
    C:line("  {")
    C:line("    int rc;")
    for i = 0, n - 2 do C:linef("    if ((rc = %s(c)) != 0) return rc;", part_name(P, e, i)) end
    C:line("  }")
    C:linef("  return %s(c);", part_name(P, e, n - 1))
  elseif order then
    emit_schedule(K, order)
    C:line("  return 0;")
  elseif #e.path.entries > 1 then
    C:linef("  return %s__path_%d(c, %d);", P, e.path.id, e.pos)
  else
    if #e.deps > 0 then C:line("  {") C:line("    int rc;") end
    emit_compute(K, e, #e.deps > 0 and "    " or "  ", nil)
    if #e.deps > 0 then C:line("  }") end
    C:line("  return 0;")
  end
  C:line("}")
  C:line()
end

-- whether anything needs the NOINLINE macro
local function needs_noinline(F, scheduled)
  for _, path in ipairs(F.eval_paths) do
    if nsegments(path) > 1 then return true end
  end
  for _, order in pairs(scheduled) do
    if #order > SEG then return true end
  end
  return false
end

-- slot `evals`
function M.emit(K)
  return function()
    local F = K.F
    local scheduled = schedules(F)
    if needs_noinline(F, scheduled) then emit_noinline_macro(K.C, K.P) end
    prototypes(K, scheduled)
    for _, path in ipairs(F.eval_paths) do
      if #path.entries > 1 then emit_path(K, path) end
    end
    for _, k in ipairs(SCHEDULED) do
      local e = F.root.entries[k]
      if e and scheduled[e] and #scheduled[e] > SEG then emit_schedule_parts(K, e, scheduled[e]) end
    end
    for _, e in ipairs(F.entries) do
      if not shared_eval(e, scheduled) then emit_eval(K, e, scheduled[e]) end
    end
  end
end

return M
