-- world/json_read.lua: a strict JSON reader (RFC 8259) for the JSON of a
-- glTF mesh file (world/mesh_gltf.lua).  A mesh file is data, not code:
-- nesting is bounded (M.MAX_DEPTH), every error names the line and column,
-- and nothing but JSON is accepted (no comments, no trailing commas, no
-- NaN; a number too large for a double is refused, not read as inf).
--
--   M.decode(text) -> value | nil, why
--     objects -> Lua tables keyed by string; arrays -> Lua tables 1..n whose
--     metatable is M.ARRAY (M.is_array(v)); null -> M.NULL; numbers ->
--     Lua numbers; strings -> Lua strings (\u escapes as UTF-8)
local M = {}

M.MAX_DEPTH = 64 -- arrays and objects nested in one another
M.ARRAY = {}
M.NULL = setmetatable({}, { __tostring = function() return "null" end })

function M.is_array(v) return type(v) == "table" and getmetatable(v) == M.ARRAY end
function M.is_object(v) return type(v) == "table" and getmetatable(v) == nil end

local ESC = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

local function utf8(c)
  if c < 0x80 then return string.char(c) end
  if c < 0x800 then return string.char(0xC0 + math.floor(c / 64), 0x80 + c % 64) end
  if c < 0x10000 then
    return string.char(0xE0 + math.floor(c / 4096), 0x80 + math.floor(c / 64) % 64, 0x80 + c % 64)
  end
  return string.char(0xF0 + math.floor(c / 262144), 0x80 + math.floor(c / 4096) % 64,
    0x80 + math.floor(c / 64) % 64, 0x80 + c % 64)
end

function M.decode(text)
  local pos = 1
  local function where(at)
    local line, last = 1, 0
    for nl in text:sub(1, at - 1):gmatch("()\n") do line, last = line + 1, nl end
    return line, at - last
  end
  local function bad(at, fmt, ...)
    local line, col = where(at)
    error({ json = string.format("line %d, column %d: " .. fmt, line, col, ...) }, 0)
  end
  local function skip()
    pos = text:find("[^ \t\r\n]", pos) or #text + 1
  end
  local value
  local function str()
    local start, parts = pos, {}
    pos = pos + 1
    while true do
      local at = text:find('["\\%z\1-\31]', pos)
      if not at then bad(start, "a string is not closed") end
      parts[#parts + 1] = text:sub(pos, at - 1)
      local c = text:sub(at, at)
      if c == '"' then pos = at + 1 return table.concat(parts) end
      if c ~= "\\" then bad(at, "a control character inside a string (write it as an escape)") end
      local e = text:sub(at + 1, at + 1)
      if ESC[e] then
        parts[#parts + 1] = ESC[e]
        pos = at + 2
      elseif e == "u" then
        local hex = text:match("^%x%x%x%x", at + 2)
        if not hex then bad(at, "\\u needs four hexadecimal digits") end
        local cp = tonumber(hex, 16)
        pos = at + 6
        if cp >= 0xD800 and cp <= 0xDBFF then
          local lo = text:match("^\\u(%x%x%x%x)", pos)
          lo = lo and tonumber(lo, 16)
          if lo and lo >= 0xDC00 and lo <= 0xDFFF then
            cp = 0x10000 + (cp - 0xD800) * 1024 + (lo - 0xDC00)
            pos = pos + 6
          end
        end
        parts[#parts + 1] = utf8(cp)
      else
        bad(at, "'\\%s' is not a JSON escape", e == "" and "end of file" or e)
      end
    end
  end
  local function num()
    local s = text:match("^-?%d+%.?%d*[eE]?[+-]?%d*", pos)
    if not s or not (s:match("^-?0$") or s:match("^-?0[.eE]") or s:match("^-?[1-9]"))
      or not (s:match("^-?%d+$") or s:match("^-?%d+%.%d+$") or s:match("^-?%d+[eE][+-]?%d+$")
        or s:match("^-?%d+%.%d+[eE][+-]?%d+$")) then
      bad(pos, "'%s' is not a JSON number", (text:match("^[^%s,%]}]*", pos) or ""):sub(1, 40))
    end
    local v = tonumber(s)
    if v == math.huge or v == -math.huge then bad(pos, "the number %s is too large for a double", s:sub(1, 40)) end
    pos = pos + #s
    return v
  end
  local function container(depth, close, item)
    if depth > M.MAX_DEPTH then bad(pos, "arrays and objects nest deeper than %d", M.MAX_DEPTH) end
    pos = pos + 1
    skip()
    if text:sub(pos, pos) == close then pos = pos + 1 return end
    while true do
      item()
      skip()
      local c = text:sub(pos, pos)
      if c == close then pos = pos + 1 return end
      if c ~= "," then bad(pos, "expected ',' or '%s', found %s", close, c == "" and "the end of the file" or "'" .. c .. "'") end
      pos = pos + 1
      skip()
    end
  end
  function value(depth)
    skip()
    local c = text:sub(pos, pos)
    if c == "{" then
      local out = {}
      container(depth + 1, "}", function()
        if text:sub(pos, pos) ~= '"' then bad(pos, "an object's key must be a string") end
        local k = str()
        skip()
        if text:sub(pos, pos) ~= ":" then bad(pos, "expected ':' after the key \"%s\"", k:sub(1, 40)) end
        pos = pos + 1
        out[k] = value(depth + 1)
      end)
      return out
    elseif c == "[" then
      local out = setmetatable({}, M.ARRAY)
      container(depth + 1, "]", function() out[#out + 1] = value(depth + 1) end)
      return out
    elseif c == '"' then
      return str()
    elseif c == "-" or c:match("%d") then
      return num()
    end
    for word, v in pairs({ ["true"] = true, ["false"] = false, null = M.NULL }) do
      if text:sub(pos, pos + #word - 1) == word then pos = pos + #word return v end
    end
    if c == "" then bad(pos, "the JSON ends where a value was expected") end
    bad(pos, "'%s' does not begin a JSON value", (text:match("^[^%s,%]}]*", pos) or c):sub(1, 40))
  end
  local ok, v = pcall(function()
    if text:sub(1, 3) == "\239\187\191" then pos = 4 end -- a UTF-8 byte order mark
    local out = value(0)
    skip()
    if pos <= #text then bad(pos, "text after the end of the JSON value") end
    return out
  end)
  if ok then return v end
  if type(v) == "table" and v.json then return nil, v.json end
  error(v, 0)
end

return M
