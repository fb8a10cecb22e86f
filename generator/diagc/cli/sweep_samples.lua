-- cli/sweep_samples.lua: what a sweep runs (docs/sweep.md, "Samples").
-- One of three sources of samples, each a table
--   { names = {name, ...}, kinds = {"param"|"state"|"input", ...}, n = runs,
--     value = function(i) -> {v1, ...} (run i, 1-based) }
--   grid    -p/--state/--input NAME=A:STEP:B axes, their Cartesian product
--           (the first axis varies slowest)
--   csv     --samples FILE.csv: a header of names, one run per row
--   random  --random N [--seed S] with --uniform NAME=LO:HI and
--           --normal NAME=MEAN:SD: run i's numbers come from its own
--           splitmix64 stream (seed, i), so they do not depend on how the
--           runs are split over threads or ranks
local bit = require("bit")
local ffi = require("ffi")
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")

local M = {}

-- the most runs one sweep takes (its summary is kept in memory)
M.MAX_RUNS = 1000000

local KIND_OPT = { param = "-p", state = "--state", input = "--input" }

-- "A:STEP:B" -> list of values, or nil when kv is not a range
local function range_values(cmd, opt, name, text)
  local a, s, b = text:match("^([^:]*):([^:]*):([^:]*)$")
  if not a then
    if text:find(":", 1, true) then
      errors.raise(nil, "%s: %s %s=%s: a range is START:STEP:STOP, as in %s=0:0.1:1", cmd, opt,
        cli.show(name), cli.show(text), cli.show(name))
    end
    return nil
  end
  local function num(x, what)
    local v = cli.decimal(x)
    if not v then
      errors.raise(nil, "%s: %s %s=%s: the %s '%s' is not a finite decimal number", cmd, opt, cli.show(name),
        cli.show(text), what, cli.show(x))
    end
    return v
  end
  local va, vs, vb = num(a, "start"), num(s, "step"), num(b, "stop")
  if not (vs > 0) then
    errors.raise(nil, "%s: %s %s=%s: the step must be > 0 (got %s)", cmd, opt, cli.show(name), cli.show(text),
      cli.show(s))
  end
  if vb < va then
    errors.raise(nil, "%s: %s %s=%s: the stop %s is below the start %s; the range would be empty", cmd, opt,
      cli.show(name), cli.show(text), cli.show(b), cli.show(a))
  end
  -- (vb - va) may overflow where vb / vs - va / vs does not
  local span = vb - va
  local count = math.floor((span < math.huge and span / vs or vb / vs - va / vs) * (1 + 1e-12) + 1e-9) + 1
  if count > M.MAX_RUNS then
    errors.raise(nil, "%s: %s %s=%s has %s values, more than the limit of %d runs of a sweep", cmd, opt,
      cli.show(name), cli.show(text), count < math.huge and string.format("%.0f", count) or "too many", M.MAX_RUNS)
  end
  local vals = {}
  for k = 0, count - 1 do
    vals[k + 1] = va + k * vs
    if not (math.abs(vals[k + 1]) < math.huge) then
      errors.raise(nil, "%s: %s %s=%s: value %d, %s + %d * %s, overflows a double", cmd, opt, cli.show(name),
        cli.show(text), k + 1, cli.show(a), k, cli.show(s))
    end
    -- a step below the spacing of doubles near the values repeats them
    if k > 0 and not (vals[k + 1] > vals[k]) then
      errors.raise(nil, "%s: %s %s=%s: values %d and %d are the same double (%s): the step %s is below the "
        .. "resolution of numbers near the start; use a larger step", cmd, opt, cli.show(name), cli.show(text), k,
        k + 1, string.format("%.17g", vals[k]), cli.show(s))
    end
  end
  return vals
end

-- Splits the -p/--state/--input options into fixed assignments (applied
-- to every run) and grid axes.  Returns fixed = {{kind, "name=v"}, ...},
-- axes = {{kind=, name=, values=}, ...}.
function M.options(cmd, o)
  local fixed, axes = {}, {}
  for _, kind in ipairs({ "param", "state", "input" }) do
    local opt = KIND_OPT[kind]
    for _, kv in ipairs(o[opt] or {}) do
      local name, text = kv:match("^([^=]+)=(.*)$")
      local vals = name and range_values(cmd, opt, name, text)
      if vals then
        axes[#axes + 1] = { kind = kind, name = name, values = vals }
      else
        fixed[#fixed + 1] = { kind, kv }
      end
    end
  end
  return fixed, axes
end

function M.grid(cmd, axes)
  local n = 1
  for _, a in ipairs(axes) do
    n = n * #a.values
    if n > M.MAX_RUNS then
      errors.raise(nil, "%s: the grid has more than %d runs (the limit of a sweep); use fewer values", cmd,
        M.MAX_RUNS)
    end
  end
  local names, kinds = {}, {}
  for j, a in ipairs(axes) do names[j], kinds[j] = a.name, a.kind end
  return { names = names, kinds = kinds, n = n, value = function(i)
    local r, out = i - 1, {}
    for j = #axes, 1, -1 do
      local len = #axes[j].values
      out[j] = axes[j].values[r % len + 1]
      r = math.floor(r / len)
    end
    return out
  end }
end

-- The kind of a name given without an option (CSV columns, --uniform,
-- --normal): a parameter, else a state, else an input; nil if none.
local kind_of
function kind_of(m, name)
  local assign = require("diagc.cli.assign")
  for _, kind in ipairs({ "param", "state", "input" }) do
    if assign.names(m, kind)[name] then return kind end
  end
  -- one element, NAME[i], of a value of several
  local b = require("diagc.cli.sweep_plan").indexed(name)
  if b then return kind_of(m, b) end
end

local function unknown_name(m, where, name)
  local assign = require("diagc.cli.assign")
  local all = {}
  for _, kind in ipairs({ "param", "state", "input" }) do
    for n in pairs(assign.names(m, kind)) do all[#all + 1] = n end
  end
  table.sort(all)
  errors.raise(where.loc, "%s%s: no parameter, state or input named '%s'%s", where.prefix or "", where.what or "",
    cli.show(name), cli.hint(name, all, "names"))
end

-- CSV cells of one line (RFC 4180 quotes allowed); nil, column on an
-- unterminated quote
local function split_csv(line)
  local cells, i, n = {}, 1, #line
  while true do
    if line:sub(i, i) == '"' then
      local buf, j = {}, i + 1
      while true do
        local q = line:find('"', j, true)
        if not q then return nil, i end
        buf[#buf + 1] = line:sub(j, q - 1)
        if line:sub(q + 1, q + 1) == '"' then
          buf[#buf + 1] = '"'
          j = q + 2
        else
          i = q + 1
          break
        end
      end
      cells[#cells + 1] = table.concat(buf)
      if i > n then return cells end
      if line:sub(i, i) ~= "," then return nil, i end
      i = i + 1
    else
      local c = line:find(",", i, true)
      if not c then
        cells[#cells + 1] = line:sub(i)
        return cells
      end
      cells[#cells + 1] = line:sub(i, c - 1)
      i = c + 1
    end
  end
end

-- --samples FILE.csv (read like a spec file: a regular file of at most
-- 16 MiB, never code)
function M.csv(cmd, m, path)
  local host = require("diagc_host")
  local text, why = host.read_source(path, 16 * 1024 * 1024)
  if not text then errors.raise(nil, "%s: --samples: cannot read '%s': %s", cmd, cli.show(path), why or "?") end
  local lines, names, kinds, rows, header_line = {}, nil, {}, {}, nil
  for line in (text:gsub("\r\n", "\n") .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = line end
  while #lines > 0 and lines[#lines]:match("^%s*$") do lines[#lines] = nil end
  for ln, line in ipairs(lines) do
    local loc = { file = path, line = ln }
    if not line:match("^%s*#") then
      local cells, col = split_csv(line)
      if not cells then errors.raise({ file = path, line = ln, col = col }, "a quoted cell is not closed properly") end
      if not names then
        names, header_line = {}, ln
        for j, c in ipairs(cells) do
          c = c:match("^%s*(.-)%s*$")
          if c == "" then errors.raise(loc, "column %d of the header has no name", j) end
          for k = 1, j - 1 do
            if names[k] == c then errors.raise(loc, "column '%s' is given twice (columns %d and %d)", cli.show(c), k, j) end
          end
          local kind = kind_of(m, c)
          if not kind then unknown_name(m, { loc = loc, what = "header column " .. j }, c) end
          names[j], kinds[j] = c, kind
        end
      else
        if #cells ~= #names then
          errors.raise(loc, "this row has %d value%s, the header %d column%s", #cells, #cells == 1 and "" or "s",
            #names, #names == 1 and "" or "s")
        end
        local vals = {}
        for j, c in ipairs(cells) do
          local v = cli.decimal(c:match("^%s*(.-)%s*$"))
          if not v then
            errors.raise(loc, "column %d ('%s'): '%s' is not a finite decimal number", j, cli.show(names[j]), cli.show(c))
          end
          vals[j] = v
        end
        if #rows >= M.MAX_RUNS then errors.raise(loc, "more than %d rows, the limit of runs of a sweep", M.MAX_RUNS) end
        rows[#rows + 1] = vals
      end
    end
  end
  if not names then errors.raise({ file = path, line = 1 }, "the file is empty; give a header of names, then one row per run") end
  if #rows == 0 then errors.raise({ file = path, line = #lines }, "the file has a header but no rows: nothing to run") end
  return { names = names, kinds = kinds, n = #rows, value = function(i) return rows[i] end,
    loc = { file = path, line = header_line },
    label = function(j) return string.format("header column %d", j) end }
end

-- splitmix64 (Steele, Lea, Flood 2014): run i's stream starts from
-- mix(seed + mix(i))
local U64 = ffi.typeof("uint64_t")
local GAMMA = 0x9E3779B97F4A7C15ULL
local function mix(z)
  z = bit.bxor(z, bit.rshift(z, 30)) * 0xBF58476D1CE4E5B9ULL
  z = bit.bxor(z, bit.rshift(z, 27)) * 0x94D049BB133111EBULL
  return bit.bxor(z, bit.rshift(z, 31))
end
local function stream(seed, i)
  local state = U64(seed) + mix(U64(i) + GAMMA)
  return function()
    state = state + GAMMA
    -- the top 53 bits: a double in [0, 1)
    return tonumber(bit.rshift(mix(state), 11)) * 2 ^ -53
  end
end
M.stream = stream

-- --random N with --uniform/--normal NAME=A:B
function M.random(cmd, m, o)
  local n = cli.number(cmd, "--random", o["--random"], { min = 1, integer = true })
  if n > M.MAX_RUNS then
    errors.raise(nil, "%s: --random %s: more runs than the limit of a sweep, %d", cmd, cli.show(o["--random"]), M.MAX_RUNS)
  end
  local seed = o["--seed"] and cli.number(cmd, "--seed", o["--seed"], { min = 0, max = 2 ^ 53, integer = true }) or 1
  local names, kinds, dist, opts = {}, {}, {}, {}
  for _, opt in ipairs({ "--uniform", "--normal" }) do
    for _, kv in ipairs(o[opt] or {}) do
      local name, a, b = kv:match("^([^=]+)=([^:]*):([^:]*)$")
      if not name then
        errors.raise(nil, "%s: %s expects NAME=%s, got '%s'", cmd, opt, opt == "--uniform" and "LOW:HIGH" or "MEAN:SD",
          cli.show(kv))
      end
      local va, vb = cli.decimal(a), cli.decimal(b)
      if not va or not vb then
        errors.raise(nil, "%s: %s %s: '%s' is not two finite decimal numbers A:B", cmd, opt, cli.show(name), cli.show(kv))
      end
      if opt == "--uniform" and not (vb > va) then
        errors.raise(nil, "%s: --uniform %s: the high end %s must be above the low end %s", cmd, cli.show(name),
          cli.show(b), cli.show(a))
      end
      if opt == "--normal" and not (vb >= 0) then
        errors.raise(nil, "%s: --normal %s: the standard deviation %s must be >= 0", cmd, cli.show(name), cli.show(b))
      end
      local kind = kind_of(m, name)
      if not kind then unknown_name(m, { prefix = cmd .. ": ", what = opt .. " " .. cli.show(name) }, name) end
      for _, prev in ipairs(names) do
        if prev == name then errors.raise(nil, "%s: %s is sampled twice; give it once", cmd, cli.show(name)) end
      end
      names[#names + 1], kinds[#kinds + 1], opts[#names + 1] = name, kind, opt
      dist[#dist + 1] = { normal = opt == "--normal", a = va, b = vb }
    end
  end
  if #names == 0 then
    errors.raise(nil, "%s: --random %s needs what to sample: --uniform NAME=LOW:HIGH or --normal NAME=MEAN:SD", cmd,
      cli.show(o["--random"]))
  end
  return { names = names, kinds = kinds, n = n, seed = seed,
    label = function(j) return opts[j] .. " " .. cli.show(names[j]) end, value = function(i)
    local u, out = stream(seed, i), {}
    for j, d in ipairs(dist) do
      if d.normal then
        -- Box-Muller, u1 in (0, 1]
        local u1, u2 = 1 - u(), u()
        out[j] = d.a + d.b * math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)
      else
        out[j] = d.a + (d.b - d.a) * u()
      end
    end
    return out
  end }
end

return M
