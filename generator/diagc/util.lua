-- util.lua: small helpers shared by the stages.
local errors = require("diagc.errors")
local limits = require("diagc.vocab.limits")

local M = {}

function M.edit_distance(a, b)
  a, b = tostring(a), tostring(b)
  local la, lb = #a, #b
  if math.abs(la - lb) > 3 then return 99 end
  local prev = {}
  for j = 0, lb do prev[j] = j end
  for i = 1, la do
    local cur = { [0] = i }
    for j = 1, lb do
      local cost = (a:sub(i, i) == b:sub(j, j)) and 0 or 1
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    end
    prev = cur
  end
  return prev[lb]
end

-- closest candidate within distance 2, or nil
function M.suggest(name, candidates)
  -- within distance 2 (3 for long names); none for one- or two-letter names
  local limit = #name <= 2 and 0 or (#name >= 8 and 3 or 2)
  local best, bestd = nil, limit + 1
  for _, c in ipairs(candidates) do
    local d = M.edit_distance(name, c)
    if d < bestd then best, bestd = c, d end
  end
  return best
end

-- Shortest decimal that reads back as the same double, as a C literal.
function M.c_double(x)
  if x ~= x then error("NaN has no C literal") end
  if x == math.huge then return "HUGE_VAL" end
  if x == -math.huge then return "(-HUGE_VAL)" end
  if x == 0 then return (1 / x < 0) and "-0.0" or "0.0" end
  local s
  for p = 1, 17 do
    s = string.format("%." .. p .. "g", x)
    if tonumber(s) == x then break end
  end
  if not s:find("[%.eEn]") then s = s .. ".0" end
  return s
end

-- A C string literal holding the bytes of s: quotes and backslashes
-- escaped, control characters as three-digit octal escapes, and every '?'
-- escaped so no trigraph forms.
function M.c_string(s)
  local out = s:gsub('[\\"?]', "\\%0")
    :gsub("[%z\1-\31\127]", function(ch) return string.format("\\%03o", ch:byte()) end)
  -- the checks on names and paths (vocab/limits.lua) keep every literal
  -- within C99's length; a longer one is an error, never C that a strict
  -- compiler refuses
  local why = limits.literal_problem("a string", s)
  if why then errors.raise(nil, "%s", why) end
  return '"' .. out .. '"'
end

-- Text safe inside a C /* comment */ on one line: no comment end, no
-- control characters (newlines), no trigraphs, no line splices.
function M.c_comment(s)
  s = s:gsub("[%z\1-\31\127]", "?"):gsub("%*/", "* /"):gsub("\\", "/")
  while s:find("??", 1, true) do s = s:gsub("%?%?", "? ?") end
  return s
end

function M.sorted_keys(t)
  local ks = {}
  for k in pairs(t) do ks[#ks + 1] = k end
  table.sort(ks, function(a, b)
    if type(a) == "number" and type(b) == "number" then return a < b end
    return tostring(a) < tostring(b)
  end)
  return ks
end

-- A string quoted for the POSIX shell (os.execute, io.popen).
function M.shell_quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

function M.dirname(p)
  return p:match("^(.*)/[^/]*$") or "."
end

function M.basename(p)
  return p:match("([^/]*)$")
end

-- length of a valid UTF-8 sequence starting at byte i of s, or nil
function M.utf8_len(s, i)
  local c = s:byte(i)
  local n, min
  if c < 0x80 then return 1
  elseif c >= 0xC2 and c <= 0xDF then n, min = 2, 0x80
  elseif c >= 0xE0 and c <= 0xEF then n, min = 3, 0x800
  elseif c >= 0xF0 and c <= 0xF4 then n, min = 4, 0x10000
  else return nil end
  local cp = c % (2 ^ (7 - n))
  for k = 1, n - 1 do
    local b = s:byte(i + k)
    if not b or b < 0x80 or b > 0xBF then return nil end
    cp = cp * 64 + (b - 0x80)
  end
  if cp < min or cp > 0x10FFFF or (cp >= 0xD800 and cp <= 0xDFFF) then return nil end
  return n
end

return M
