-- coder/evals.lua: one static eval function per cache entry: a hit is one
-- bit test; a miss brings the entry's prerequisites up to date and
-- computes it.  An entry alone on its eval path (tickets/eval_paths.lua)
-- evaluates its deps and computes itself; an entry on a longer path hands
-- over to the path's function, which scans back to the last up-to-date
-- entry and computes forward from there.  The root diagram's built-in sums
-- run one flat schedule.  Adds nothing to the model.
local bit = require("bit")
local loops = require("diagc.tickets.loops")
local eval_paths = require("diagc.tickets.eval_paths")
local names = require("diagc.coder.names")
local args = require("diagc.coder.args")

local M = {}

-- steps per single-entry block of a path function
local BLOCK = 64

-- the statement that computes e's value: its calc, or the sum of its
-- parts (a diagram's energies); a diagram's xcdot is its children's
local function emit_value(K, e, indent)
  local C = K.C
  if e.calc then
    local a = {}
    for _, p in ipairs(e.params) do a[#a + 1] = args.expr(K.F, e.ctx, p, e) end
    C:linef("%sif (%s(%s) != 0) return DIAGC_E_CALC;", indent, names.calc_fn(K.P, e.ctx.type, e.calc),
      table.concat(a, ", "))
  elseif e.ticket ~= "xcdot" then
    local terms = {}
    for _, p in ipairs(e.parts) do terms[#terms + 1] = "c->cache[" .. p.offset .. "]" end
    C:linef("%sc->cache[%d] = %s;", indent, e.offset, table.concat(terms, " + "))
  end
end

-- the work of computing e once its predecessor (if skip) is up to date
local function emit_compute(K, e, indent, skip)
  local C, P = K.C, K.P
  if skip then C:linef("%s%s__CNT(c->n_eval[%d]++);", indent, P, skip.index) end
  for _, d in ipairs(e.deps) do
    if d.entry ~= skip then
      C:linef("%sif ((rc = %s__eval_%d(c)) != 0) return rc;", indent, P, d.entry.index)
    end
  end
  emit_value(K, e, indent)
  local w, b = names.word_bit(e)
  C:linef("%s%s__CNT(c->n_calc[%d]++);", indent, P, e.index)
  C:linef("%sc->valid[%d] |= %s;", indent, w, b)
end

-- whether a path's steps call evals (of deps other than the predecessor)
local function needs_rc(list)
  for i, e in ipairs(list) do
    local skip = i > 1 and e.pred or nil
    for _, d in ipairs(e.deps) do
      if d.entry ~= skip then return true end
    end
  end
  return false
end

local function prototypes(K)
  local C, P = K.C, K.P
  for _, e in ipairs(K.F.entries) do
    C:linef("static int %s__eval_%d(%s_context *c);", P, e.index, P)
  end
  for _, path in ipairs(K.F.eval_paths) do
    if #path.entries > 1 then
      C:linef("static int %s__path_%d(%s_context *c, int to);", P, path.id, P)
    end
  end
  C:line()
end

local function word_of(e) return math.floor(e.index / 64) end

-- where to start: the last up-to-date entry before `to`.  The scan tests
-- a run of entries whose valid bits share a word with one AND before
-- testing them one by one.
local function emit_scan(C, list)
  local n = #list
  C:line("  switch (to) {")
  for k = n - 1, 1, -1 do C:linef("  case %d: goto S%d;", k, k) end
  C:line("  default: goto B0;")
  C:line("  }")
  local run_start = {}
  for k = 0, n - 1 do
    local w = word_of(list[k + 1])
    run_start[k] = (k > 0 and word_of(list[k]) == w) and run_start[k - 1] or k
  end
  for k = n - 1, 1, -1 do
    C:linef("S%d:", k)
    local top, a = k - 1, run_start[k - 1]
    if top - a + 1 >= 4 and (k == n - 1 or run_start[k] ~= a) then
      local mask = 0ULL
      for j = a, top do mask = bit.bor(mask, bit.lshift(1ULL, list[j + 1].index % 64)) end
      C:linef("  if (!(c->valid[%d] & c->cache_on & UINT64_C(0x%s))) goto %s;", word_of(list[top + 1]),
        bit.tohex(mask, 16), a == 0 and "B0" or ("S" .. a))
    end
    C:linef("  if (%s) goto %s%d;", names.valid_test(list[k]), k % BLOCK == 0 and "B" or "L", k)
  end
end

-- Two copies of the steps.  The straight copy is entered only at its top
-- or at a block boundary (every BLOCK steps: label B<k>), so the compiler
-- keeps each value in registers for the next step instead of reloading it
-- from the cache.  The ladder copy (L<k>) starts just after the last
-- up-to-date entry and runs to the end of that block, then continues in
-- the straight copy.
local function emit_steps(K, list)
  local C, n = K.C, #list
  local function step(k, indent)
    local e = list[k + 1]
    emit_compute(K, e, indent, k > 0 and e.pred or nil)
    if k < n - 1 then C:linef("%sif (to == %d) return 0;", indent, k) end
  end
  for k = 0, n - 1 do
    if k % BLOCK == 0 then C:linef("B%d: /* %s */", k, loops.entry_path(list[k + 1]))
    else C:linef("  /* %s */", loops.entry_path(list[k + 1])) end
    step(k, "  ")
  end
  C:line("  return 0;")
  for k = 1, n - 1 do
    if k % BLOCK ~= 0 then
      C:linef("L%d: /* %s */", k, loops.entry_path(list[k + 1]))
      step(k, "  ")
      if k == n - 1 then C:line("  return 0;")
      elseif (k + 1) % BLOCK == 0 then C:linef("  goto B%d;", k + 1) end
    end
  end
end

local function emit_path(K, path)
  local C, P, list = K.C, K.P, path.entries
  local nm = {}
  for _, e in ipairs(list) do nm[#nm + 1] = loops.entry_path(e) end
  local text = table.concat(nm, " -> ")
  if #text > 200 then text = nm[1] .. " -> ... -> " .. nm[#nm] .. " (" .. #list .. " entries)" end
  C:linef("/* eval path %d: %s */", path.id, text)
  C:linef("static int %s__path_%d(%s_context *c, int to)", P, path.id, P)
  C:line("{")
  if needs_rc(list) then C:line("  int rc;") end
  emit_scan(C, list)
  emit_steps(K, list)
  C:line("}")
  C:line()
end

-- The root diagram's built-in sums (xcdot above all: the simulator's hot
-- path) read most of the model.  Their eval runs one flat schedule: every
-- entry they depend on, in prerequisite order, each computed if stale, and
-- the valid bits set at the end.  Because a stale entry's dependents are
-- always stale too, this computes exactly the entries a recursive lazy eval
-- would, with the same n_eval/n_calc counts, without the calls.
local function schedules(F)
  local scheduled = {}
  for _, k in ipairs({ "xcdot", "pe", "ke", "pc", "pnc" }) do
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
  local function step(x)
    for _, d in ipairs(x.deps) do C:linef("    %s__CNT(c->n_eval[%d]++);", P, d.entry.index) end
    emit_value(K, x, "    ")
    C:linef("    %s__CNT(c->n_calc[%d]++);", P, x.index)
  end
  C:linef("  if (!(%s)) {", table.concat(stale, " | "))
  for _, x in ipairs(order) do
    C:linef("    /* %s */", loops.entry_path(x))
    step(x)
  end
  C:line("  } else {")
  for _, x in ipairs(order) do
    local w, b = names.word_bit(x)
    C:linef("  if (!(v%d & %s)) { /* %s */", w, b, loops.entry_path(x))
    step(x)
    C:line("  }")
  end
  C:line("  }")
  for _, w in ipairs(wlist) do
    C:linef("  c->valid[%d] |= UINT64_C(0x%s);", w, bit.tohex(words[w], 16))
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
  if order then
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

-- slot `evals`
function M.emit(K)
  return function()
    local F = K.F
    prototypes(K)
    for _, path in ipairs(F.eval_paths) do
      if #path.entries > 1 then emit_path(K, path) end
    end
    local scheduled = schedules(F)
    for _, e in ipairs(F.entries) do emit_eval(K, e, scheduled[e]) end
  end
end

return M
