-- cli/sweep_plan.lua: which of the model's sources a sweep's samples set
-- (a name -> its source and element), and each run's values checked by
-- the rules of run's -p/--state/--input (cli/assign.lua) and written
-- into the batch's per-run source values.
local ffi = require("ffi")
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local dffi = require("diagc.testing.ffi")

local M = {}
local CMD = "diagc sweep"

-- "NAME[i]" -> NAME, i (0-based); nil for a name without an index
local function indexed(name)
  local b, i = name:match("^(.+)%[(%d+)%]$")
  if b and #i <= 9 then return b, tonumber(i) end
end
M.indexed = indexed

-- name -> {src = source index, first = element (0-based), size =}; for
-- "NAME[i]", element i of NAME (base = NAME, index = i; size 0 past its end)
local locate
function locate(m, name)
  local b, i = indexed(name)
  if b and not m.sources[name] then
    local l = locate(m, b)
    if not l then return nil end
    return { src = l.src, first = l.first + i, size = i < l.size and 1 or 0, base = b, index = i, of = l.size }
  end
  local s = m.sources[name]
  if s then return { src = m.source_index[name], first = 0, size = s.size } end
  local g = m.groups[name]
  if g then return { src = m.source_index[g.source], first = g.first, size = g.size } end
  local off = m.elements[name]
  if off then
    for sname, src in pairs(m.sources) do
      local so = tonumber(src.offset)
      if src.size > 0 and off >= so and off < so + 8 * src.size
          and src.kind >= dffi.const.DIAGC_SRC_Q and src.kind <= dffi.const.DIAGC_SRC_XD then
        return { src = m.source_index[sname], first = (off - so) / 8, size = 1 }
      end
    end
  end
end

local KIND_OPT = { param = "-p", state = "--state", input = "--input" }

-- The sources the samples set, each run's values checked by the same
-- rules as run's -p/--state/--input (names, ranges) on a scratch copy of
-- the base context.  Returns set (0-based source list), width, fill(i, dst).
-- How sample j was given ("-p s.k", "--uniform s.k", "header column 2
-- ('s.k')"), and a refusal located there (a CSV's header line, or the
-- option).
local function who(S, j)
  return S.label and S.label(j) or KIND_OPT[S.kinds[j]] .. " " .. cli.show(S.names[j])
end
local function refuse(S, j, fmt, ...)
  if S.loc then errors.raise(S.loc, "%s: " .. fmt, who(S, j), ...) end
  errors.raise(nil, "%s: %s: " .. fmt, CMD, who(S, j), ...)
end

-- Refuses two samples of one value (the same name twice, or two names of
-- one element: a leaf's group q and its element x, a world's joint and its
-- coordinate), and a sample of a value a fixed option also sets.
local function check_overlaps(m, S, loc, fixed)
  for j = 1, #loc do
    for k = 1, j - 1 do
      if loc[k].src == loc[j].src and loc[k].first == loc[j].first then
        if S.names[k] == S.names[j] then refuse(S, j, "'%s' is sampled twice; give it once", cli.show(S.names[j])) end
        refuse(S, j, "'%s' is the same value as '%s' (%s); sample it once", cli.show(S.names[j]),
          cli.show(S.names[k]), who(S, k))
      end
    end
    for _, f in ipairs(fixed or {}) do
      local name = f[2]:match("^([^=]+)=")
      local fl = name and locate(m, name)
      if fl and fl.src == loc[j].src and loc[j].first >= fl.first and loc[j].first < fl.first + fl.size then
        refuse(S, j, "'%s' is also set to one value by %s %s; give it either as one value or as samples, not both",
          cli.show(S.names[j]), KIND_OPT[f[1]], cli.show(name))
      end
    end
  end
end

local function as_list(v)
  if type(v) ~= "table" then return { v } end
  local out = {}
  for i, x in ipairs(v) do out[i] = x end
  return out
end

local function plan(m, base, S, fixed)
  local assign = require("diagc.cli.assign")
  local loc, set, pos = {}, {}, {}
  for j, name in ipairs(S.names) do
    -- the name is checked (did you mean) with a value it already has
    local scratch = m:context()
    ffi.copy(scratch.ptr, base.ptr, m.desc.context_size)
    local l = locate(m, name)
    if not l then assign.set(m, scratch, S.kinds[j], indexed(name) or name, { 0 }, CMD) end
    l = l or locate(m, name)
    if l and l.base and l.size == 0 then
      refuse(S, j, "'%s' has %d element%s (%s[0] to %s[%d]); there is no element %d", cli.show(l.base), l.of,
        l.of == 1 and "" or "s", cli.show(l.base), cli.show(l.base), l.of - 1, l.index)
    end
    if not l or l.size ~= 1 then
      refuse(S, j, "a sweep varies single numbers, and '%s' has %d; sweep one element (as in %s[0] or its "
        .. "element name)", cli.show(name), l and l.size or 0, cli.show(name))
    end
    if l.base then
      -- the kind is checked on the whole (run's rules): -p for a parameter
      assign.set(m, scratch, S.kinds[j], l.base, as_list(scratch:get(l.base)), CMD)
    end
    loc[j] = l
    if not pos[l.src] then
      set[#set + 1] = l.src
      pos[l.src] = true
    end
  end
  check_overlaps(m, S, loc, fixed)
  local off, width = {}, 0
  for _, src in ipairs(set) do
    off[src] = width
    width = width + m.desc.sources[src].size
  end
  -- the base values of the sources set
  local basev = {}
  for _, src in ipairs(set) do
    local d = m.desc.sources[src]
    local p = ffi.cast("const double *", ffi.cast("const char *", base.ptr) + d.offset)
    for e = 0, d.size - 1 do basev[off[src] + e] = p[e] end
  end
  local scratch = m:context()
  local function check(i, vals)
    ffi.copy(scratch.ptr, base.ptr, m.desc.context_size)
    for j, name in ipairs(S.names) do
      local l, target, v = loc[j], name, { vals[j] }
      if l.base then
        -- element i of a larger value: the whole, with element i replaced
        target, v = l.base, as_list(scratch:get(l.base))
        v[l.index + 1] = vals[j]
      end
      local ok, e = pcall(assign.set, m, scratch, S.kinds[j], target, v, CMD)
      if not ok then
        if errors.is(e) and type(e.msg) == "string" then
          e.msg = e.msg:gsub("^(" .. CMD .. ": )", "%1run " .. i .. ": ", 1)
        end
        error(e, 0)
      end
    end
  end
  local function fill(vals, dst)
    for k = 0, width - 1 do dst[k] = basev[k] end
    for j, l in ipairs(loc) do dst[off[l.src] + l.first] = vals[j] end
  end
  return set, width, check, fill
end

M.plan = plan
return M
