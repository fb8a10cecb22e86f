-- errors.lua: the one error type every stage raises for bad input.
-- A diagc error carries a location (file, line, optional column) and a
-- message; the driver prints it as one line and exits with status 2.
-- Messages may hold text from a spec (names, error() arguments): format()
-- escapes control characters and bounds the length, so the printed error
-- is always one line of plain text.
local M = {}

M.MAX_MESSAGE = 500 -- characters of a formatted message, before eliding

local Error = {}
Error.__index = Error
Error.__tostring = function(e) return M.format(e) end
-- specs get diagc errors from pcall: they must not reach (and so change)
-- this metatable
Error.__metatable = false

-- loc: {file=, line=, col=, via=} or nil; via = {file=, line=}: where the
-- spec brings the located file in (a URDF's import), printed after the
-- message as "(imported at FILE:LINE)"
function M.new(loc, msg)
  return setmetatable({ diagc_error = true, loc = loc, msg = msg }, Error)
end

function M.raise(loc, fmt, ...)
  local msg = select("#", ...) > 0 and string.format(fmt, ...) or fmt
  error(M.new(loc, msg), 0)
end

-- raw access: an error value may be a spec's table with metamethods
function M.is(e) return type(e) == "table" and rawget(e, "diagc_error") == true end

local ESCAPES = { ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

-- One line of printable text: control characters (and DEL) become \n, \r,
-- \t or \xHH; longer than `max` characters, the middle is elided.
function M.sanitize(s, max)
  s = tostring(s):gsub("[%c\127]", function(c)
    return ESCAPES[c] or string.format("\\x%02x", c:byte())
  end)
  max = max or M.MAX_MESSAGE
  if #s > max then
    local head = math.floor(max * 0.7)
    s = s:sub(1, head) .. " ... " .. s:sub(#s - (max - head - 5) + 1)
  end
  return s
end

-- A short description of any value, never running its metamethods.
function M.describe(v)
  local t = type(v)
  if t == "string" then return v end
  if t == "number" or t == "boolean" or t == "nil" then return tostring(v) end
  return "a " .. t .. " value"
end

local function field(t, k)
  if type(t) ~= "table" then return nil end
  return rawget(t, k)
end

function M.format(e)
  local loc, msg = field(e, "loc"), field(e, "msg")
  msg = M.describe(msg)
  local file, line, col = field(loc, "file"), field(loc, "line"), field(loc, "col")
  if type(file) ~= "string" then return M.sanitize(msg) end
  -- (a location without a line: the file only)
  if line == nil and col == nil then return M.sanitize(file .. ": " .. msg) end
  local s = file .. ":" .. tostring(type(line) == "number" and line or 0)
  if type(col) == "number" then s = s .. ":" .. tostring(col) end
  local via = field(loc, "via")
  local vfile, vline = field(via, "file"), field(via, "line")
  local suffix = ""
  if type(vfile) == "string" and type(vline) == "number" then
    suffix = string.format(" (imported at %s:%d)", vfile, vline)
  end
  return M.sanitize(s .. ": " .. msg .. suffix)
end

return M
