-- coder/schedules.lua: the root diagram's built-in sums (xcdot, energies
-- and powers) evaluated by flat schedules; a schedule longer than SEG
-- entries runs as parts of SEG entries, one function each.  Adds nothing
-- to the model.
local bit = require("bit")
local loops = require("diagc.tickets.loops")
local eval_paths = require("diagc.tickets.eval_paths")
local names = require("diagc.coder.names")
local steps = require("diagc.coder.steps")

local M = {}

local SEG, word_of = steps.SEG, steps.word_of

-- The root diagram's built-in sums (xcdot above all: the simulator's hot
-- path) read most of the model.  Their eval runs one flat schedule: every
-- entry they depend on, in prerequisite order, each computed if stale, and
-- the valid bits set at the end.  Because a stale entry's dependents are
-- always stale too, this computes exactly the entries a recursive lazy eval
-- would, with the same n_eval/n_calc counts, without the calls.
local SCHEDULED = { "xcdot", "pe", "ke", "pc", "pnc" }
-- entry -> its schedule (the entries it reads, deps first)
function M.compute(F)
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
    steps.value(K, x, indent)
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

local function emit_parts(K, e, order)
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

-- the part functions of the long schedules
function M.emit_parts(K, scheduled)
  for _, k in ipairs(SCHEDULED) do
    local e = K.F.root.entries[k]
    if e and scheduled[e] and #scheduled[e] > SEG then emit_parts(K, e, scheduled[e]) end
  end
end

-- the body of a scheduled entry's eval function, after its hit test
function M.emit_body(K, e, order)
  local C, P = K.C, K.P
  if #order > SEG then
    local n = #schedule_parts(order)
    C:line("  {")
    C:line("    int rc;")
    for i = 0, n - 2 do C:linef("    if ((rc = %s(c)) != 0) return rc;", part_name(P, e, i)) end
    C:line("  }")
    C:linef("  return %s(c);", part_name(P, e, n - 1))
  else
    emit_schedule(K, order)
    C:line("  return 0;")
  end
end

return M
