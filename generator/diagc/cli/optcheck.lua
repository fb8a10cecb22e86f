-- cli/optcheck.lua: the checks of option tables and of vectors that
-- `diagc test`'s APIs take (c:linearize{...}, m:simulator{...},
-- c:rollout{...}, traj:vjp(lq, lv), ...), with the commands' own rules:
-- the numeric ranges are the ones the commands' flags use (cli.number and
-- cli.in_range: a spec entry names its flag, so `diagc linearize
-- --tolerance -1` and `c:linearize{tolerance = -1}` give the same reason).
-- Each function returns nil when the value is fine, else the reason (one
-- line, without a location: the caller raises it where the user called).
--
-- A spec is a list of options:
--   { "name", range = {min=, min_open=, max=, integer=} }  a finite number
--   { "name", one_of = {"a", "b"} }                        a string of the list
--     (word = "jacobian source", words = "sources": the message's words)
--   { "name", type = "string" | "table" | "function" | ... }
--   { "name", flag = true }                                0, 1, false or true
--   { "name", check = function(v) -> nil | reason }        anything else
local cli = require("diagc.cli.main")

local M = {}

local function show(v)
  if type(v) == "number" then return cli.show_number(v) end
  if type(v) == "string" then return "'" .. cli.show(v) .. "'" end
  return type(v) == "nil" and "nil" or ("a " .. type(v))
end
M.show = show

local function names(spec)
  local out = {}
  for _, e in ipairs(spec) do out[#out + 1] = e[1] end
  return out
end

-- why option `e` (a spec entry) cannot take value v, or nil
local function value(e, v)
  local name = e[1]
  if e.range then
    if type(v) ~= "number" then
      return string.format("%s must be a number (%s), got %s", name, cli.describe(e.range), show(v))
    end
    if not cli.in_range(v, e.range) then
      return string.format("invalid %s %s: expected %s", name, show(v), cli.describe(e.range))
    end
  elseif e.one_of then
    for _, x in ipairs(e.one_of) do if v == x then return nil end end
    if type(v) ~= "string" then
      return string.format("%s must be one of %s, got %s", name, table.concat(e.one_of, ", "), show(v))
    end
    if e.word then return string.format("unknown %s %s%s", e.word, show(v), cli.hint(v, e.one_of, e.words)) end
    return string.format("%s: unknown value %s%s", name, show(v), cli.hint(v, e.one_of, "values"))
  elseif e.flag then
    if not (v == 0 or v == 1 or v == true or v == false) then
      return string.format("%s must be 0, 1, false or true, got %s", name, show(v))
    end
  elseif e.type then
    if type(v) ~= e.type then return string.format("%s must be a %s, got %s", name, e.type, show(v)) end
  end
  if e.check then return e.check(v) end
  return nil
end

-- Checks the options table `opts` (nil: no options) of API `api` ("linearize")
-- against `spec`: known keys only (with "did you mean"), each value as its
-- entry says.  Returns nil or "api: reason".
function M.options(api, opts, spec)
  if opts == nil then return nil end
  if type(opts) ~= "table" then
    return string.format("%s expects a table of options {%s = ...}, got %s", api, spec[1] and spec[1][1] or "", show(opts))
  end
  local by = {}
  for _, e in ipairs(spec) do by[e[1]] = e end
  local keys = {}
  for k in pairs(opts) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    local e = by[k]
    if not e then
      return string.format("%s: unknown option %s%s", api, show(k),
        type(k) == "string" and cli.hint(k, names(spec), "options") or
          (" (options: " .. table.concat(names(spec), ", ") .. ")"))
    end
    local why = value(e, opts[k])
    if why then return api .. ": " .. why end
  end
  return nil
end

-- A flag's value as the C int it sets (0 or 1), after options() accepted it.
function M.flag(v)
  return (v == true or v == 1) and 1 or 0
end

-- Why `v` is not a list of n finite numbers (a number for n = 1 too), or
-- nil; `what` names it ("lq", "effort[3]").  Elements are named in Lua's
-- 1-based indexing, as the caller wrote them.
function M.vector(what, v, n, fix)
  fix = fix and ("; " .. fix) or ""
  if type(v) == "number" and n == 1 then v = { v } end
  if type(v) ~= "table" then
    return string.format("%s must be a list of %d number%s, got %s%s", what, n, n == 1 and "" or "s", show(v), fix)
  end
  if #v ~= n then
    return string.format("%s has %d value%s, expected %d%s", what, #v, #v == 1 and "" or "s", n, fix)
  end
  for i = 1, n do
    local x = v[i]
    if type(x) ~= "number" then return string.format("%s[%d] is %s, not a number", what, i, show(x)) end
    if x ~= x then return string.format("%s[%d] is NaN", what, i) end
    if x == math.huge or x == -math.huge then return string.format("%s[%d] is %s", what, i, show(x)) end
  end
  return nil
end

return M
