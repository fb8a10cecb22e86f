-- cli/main.lua: the command line shared by every subcommand: option
-- parsing (with "did you mean"), strict number parsing with ranges, and
-- name=values assignments (-p, --state, --input).
local errors = require("diagc.errors")
local util = require("diagc.util")

local M = {}

-- "diagc run: " before a message; nothing for the generator ("diagc" or nil),
-- since the driver already prints "diagc: ".
local function pre(cmd)
  if cmd == nil or cmd == "diagc" then return "" end
  return cmd .. ": "
end
M.prefix = pre

-- A suggestion suffix: "; did you mean 'x'?" and, when the valid names are
-- few, "(valid: a, b, c)".
function M.hint(name, candidates, what)
  local best = util.suggest(name, candidates)
  local s = best and string.format("; did you mean '%s'?", best) or ""
  if #candidates == 0 then return s .. string.format(" (there are no %s)", what or "names") end
  if #candidates <= 12 then
    local sorted = {}
    for i, c in ipairs(candidates) do sorted[i] = c end
    table.sort(sorted)
    s = s .. string.format(" (%s: %s)", what or "valid", table.concat(sorted, ", "))
  end
  return s
end

-- Shows a value from the command line safely on one line.
function M.show(s)
  s = tostring(s)
  if #s > 80 then s = s:sub(1, 77) .. "..." end
  return (s:gsub("[%c\127]", function(c) return string.format("\\%03d", c:byte()) end))
end

-- spec: {flags = {name = true (takes a value) | false (a switch)},
--        multi = {name = true}: the option may repeat (values in a list)}
-- "--" ends the options; "-" alone is a positional argument.  An option
-- given twice (unless multi) is an error.
-- Whether a path names something on disk, without opening it (opening a
-- FIFO for reading would block until a writer comes).
function M.exists(path)
  local ok, host = pcall(require, "diagc_host")
  if ok and host.stat then return host.stat(path) ~= nil end
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

function M.parse(args, spec, cmd)
  local out, pos = {}, {}
  local names = {}
  for n in pairs(spec.flags) do names[#names + 1] = n end
  local i, only_pos = 1, false
  while i <= #args do
    local a = args[i]
    if only_pos or a:sub(1, 1) ~= "-" or a == "-" then
      pos[#pos + 1] = a
    elseif a == "--" then
      only_pos = true
    else
      local name, val = a:match("^(%-%-?[^=]+)=(.*)$")
      name = name or a
      local takes = spec.flags[name]
      if takes == nil then
        local f = M.exists(a)
        errors.raise(nil, "%sunknown option '%s'%s", pre(cmd), M.show(name), f
          and string.format("; to name the file '%s', write -- before it or ./%s", M.show(a), M.show(a))
          or M.hint(name, names, "options"))
      end
      if takes then
        if val == nil then
          i = i + 1
          val = args[i]
          if val == nil then errors.raise(nil, "%soption %s needs a value", pre(cmd), name) end
        end
        if spec.multi and spec.multi[name] then
          out[name] = out[name] or {}
          table.insert(out[name], val)
        else
          if out[name] ~= nil then
            errors.raise(nil, "%soption %s is given twice; give it once", pre(cmd), name)
          end
          out[name] = val
        end
      else
        if val ~= nil then errors.raise(nil, "%soption %s takes no value (got '%s')", pre(cmd), name, M.show(val)) end
        out[name] = true
      end
    end
    i = i + 1
  end
  return out, pos
end

-- A plain decimal number: digits with an optional point and exponent.  No
-- hexadecimal, no inf/nan, no spaces (tonumber accepts all of those).
local function decimal(s)
  if type(s) ~= "string" then return nil end
  local mant, exp = s:match("^[+-]?([%d%.]+)([eE]?[+-]?%d*)$")
  if not mant or not mant:match("^%d*%.?%d*$") or not mant:match("%d") then return nil end
  if exp ~= "" and not exp:match("^[eE][+-]?%d+$") then return nil end
  local v = tonumber(s)
  if not v or v ~= v or v == math.huge or v == -math.huge then return nil end
  return v
end
M.decimal = decimal

local function fmt(x)
  if x ~= x or x == math.huge or x == -math.huge then return tostring(x) end
  if x == math.floor(x) and math.abs(x) < 1e15 then return string.format("%d", x) end
  for p = 1, 17 do
    local s = string.format("%." .. p .. "g", x)
    if tonumber(s) == x then return s end
  end
  return string.format("%.17g", x)
end

M.show_number = fmt

-- The range in words: "a number > 0 and <= 1e+06", "a whole number in [0, 256]".
function M.describe(range)
  range = range or {}
  local what = range.integer and "a whole number" or "a finite decimal number"
  local lo, hi = range.min, range.max
  if range.integer and lo and hi and not range.min_open then
    return string.format("%s in [%s, %s]", what, fmt(lo), fmt(hi))
  end
  local parts = {}
  if lo then parts[#parts + 1] = (range.min_open and "> " or ">= ") .. fmt(lo) end
  if hi then parts[#parts + 1] = "<= " .. fmt(hi) end
  if #parts == 0 then return what end
  return what .. " " .. table.concat(parts, " and ")
end

-- Whether the number v is finite and in `range` ({min=, min_open=, max=,
-- integer=}): the one range check of the commands' options and of the
-- option tables of diagc test's APIs (cli/optcheck.lua).
function M.in_range(v, range)
  range = range or {}
  if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then return false end
  if range.integer and v ~= math.floor(v) then return false end
  if range.min and (v < range.min or (range.min_open and v == range.min)) then return false end
  if range.max and v > range.max then return false end
  return true
end

-- Parses the value `s` of option `name` as a number in `range`
-- ({min=, min_open=, max=, integer=}); otherwise one error line naming the
-- option, the value and the valid range.
function M.number(cmd, name, s, range)
  local v = decimal(s)
  if not (v and M.in_range(v, range)) then
    errors.raise(nil, "%sinvalid %s '%s': expected %s", pre(cmd), name, M.show(s), M.describe(range))
  end
  return v
end

-- "a,b,c" -> {a, b, c} as finite decimals; `what` names the assignment in
-- errors.
function M.numbers(cmd, what, s)
  if s == "" then errors.raise(nil, "%s%s: no value after '='; give numbers separated by commas", pre(cmd), M.show(what)) end
  local vals, k = {}, 0
  for x in (s .. ","):gmatch("([^,]*),") do
    k = k + 1
    local v = decimal(x)
    if not v then
      errors.raise(nil, "%s%s: value %d '%s' is not a finite decimal number", pre(cmd), M.show(what), k, M.show(x))
    end
    vals[#vals + 1] = v
  end
  return vals
end

-- "name=v1,v2" -> name, {v1, v2}
function M.assignment(cmd, opt, kv)
  local name, val = kv:match("^([^=]+)=(.*)$")
  if not name then
    errors.raise(nil, "%s%s expects NAME=VALUE[,VALUE...], got '%s'", pre(cmd), opt, M.show(kv))
  end
  return name, M.numbers(cmd, opt .. " " .. name, val)
end

return M
