-- errors.lua: the one error type every stage raises for bad input.
-- A diagc error carries a location (file, line, optional column) and a
-- message; the driver prints it as one line and exits with status 2.
local M = {}

local Error = {}
Error.__index = Error
Error.__tostring = function(e) return M.format(e) end

-- loc: {file=, line=, col=} or nil
function M.new(loc, msg)
  return setmetatable({ diagc_error = true, loc = loc, msg = msg }, Error)
end

function M.raise(loc, fmt, ...)
  local msg = select("#", ...) > 0 and string.format(fmt, ...) or fmt
  error(M.new(loc, msg), 0)
end

function M.is(e) return type(e) == "table" and e.diagc_error == true end

function M.format(e)
  local loc = e.loc
  if not loc or not loc.file then return e.msg end
  local s = loc.file .. ":" .. tostring(loc.line or 0)
  if loc.col then s = s .. ":" .. tostring(loc.col) end
  return s .. ": " .. e.msg
end

return M
