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

-- name -> {src = source index, first = element (0-based), size =}
local function locate(m, name)
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
local function plan(m, base, S)
  local assign = require("diagc.cli.assign")
  local loc, set, pos = {}, {}, {}
  for j, name in ipairs(S.names) do
    -- the name is checked (did you mean) with a value it already has
    local scratch = m:context()
    ffi.copy(scratch.ptr, base.ptr, m.desc.context_size)
    local l = locate(m, name)
    if not l then assign.set(m, scratch, S.kinds[j], name, { 0 }, CMD) end
    l = l or locate(m, name)
    if not l or l.size ~= 1 then
      errors.raise(nil, "%s: %s %s: a sweep varies single numbers, and '%s' has %d; sweep one element "
        .. "(as in %s[0] or its element name)", CMD, KIND_OPT[S.kinds[j]], cli.show(name), cli.show(name),
        l and l.size or 0, cli.show(name))
    end
    loc[j] = l
    if not pos[l.src] then
      set[#set + 1] = l.src
      pos[l.src] = true
    end
  end
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
      local ok, e = pcall(assign.set, m, scratch, S.kinds[j], name, { vals[j] }, CMD)
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
