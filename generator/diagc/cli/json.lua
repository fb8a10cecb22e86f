-- cli/json.lua: a small JSON encoder with a deterministic layout: object
-- keys sorted, numbers in their shortest round-trip form (that of `diagc run`), strings escaped
-- (quotes, backslashes, control characters; invalid UTF-8 bytes become
-- U+FFFD).  A table is an array when it has `n = 0`-style array content
-- (keys 1..#t only) or is marked with M.array(t); an empty table is {}
-- unless marked.
local M = {}

local ARRAY = setmetatable({}, { __mode = "k" })

-- marks t as a JSON array (so an empty one prints as [])
function M.array(t)
  t = t or {}
  ARRAY[t] = true
  return t
end

local ESC = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f", ["\n"] = "\\n",
  ["\r"] = "\\r", ["\t"] = "\\t" }

local utf8_len = require("diagc.util").utf8_len

function M.string(s)
  local out, i = { '"' }, 1
  while i <= #s do
    local c = s:sub(i, i)
    local b = c:byte()
    if ESC[c] then
      out[#out + 1] = ESC[c]; i = i + 1
    elseif b < 0x20 or b == 0x7F then
      out[#out + 1] = string.format("\\u%04x", b); i = i + 1
    else
      local n = utf8_len(s, i)
      if n then
        out[#out + 1] = s:sub(i, i + n - 1); i = i + n
      else
        out[#out + 1] = "\\ufffd"; i = i + 1
      end
    end
  end
  out[#out + 1] = '"'
  return table.concat(out)
end

-- a finite number as `diagc run` writes it (testing/ffi.lua number_text)
local function number(x)
  if x ~= x or x == math.huge or x == -math.huge then return "null" end
  return require("diagc.testing.ffi").number_text(x)
end

M.number = number

local function is_array(t)
  if ARRAY[t] then return true end
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n > 0 and n == #t
end

local function encode(v, indent, out)
  local tv = type(v)
  if tv == "string" then out[#out + 1] = M.string(v)
  elseif tv == "number" then out[#out + 1] = number(v)
  elseif tv == "boolean" then out[#out + 1] = tostring(v)
  elseif v == nil then out[#out + 1] = "null"
  elseif tv == "table" then
    local inner = indent .. "  "
    if is_array(v) then
      if #v == 0 then out[#out + 1] = "[]"; return end
      out[#out + 1] = "[\n"
      for i, x in ipairs(v) do
        out[#out + 1] = inner
        encode(x, inner, out)
        out[#out + 1] = i < #v and ",\n" or "\n"
      end
      out[#out + 1] = indent .. "]"
    else
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = tostring(k) end
      table.sort(keys)
      if #keys == 0 then out[#out + 1] = "{}"; return end
      out[#out + 1] = "{\n"
      for i, k in ipairs(keys) do
        out[#out + 1] = inner .. M.string(k) .. ": "
        encode(v[k], inner, out)
        out[#out + 1] = i < #keys and ",\n" or "\n"
      end
      out[#out + 1] = indent .. "}"
    end
  else
    error("json: cannot encode a " .. tv)
  end
end

function M.encode(v)
  local out = {}
  encode(v, "", out)
  return table.concat(out) .. "\n"
end

return M
