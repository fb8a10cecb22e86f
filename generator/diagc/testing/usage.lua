-- testing/usage.lua: where a misuse of `diagc test`'s APIs is reported.
-- An error in a test file's use of an API (a wrong size, an unknown
-- option, a NaN) is raised at the test file's line that called the API:
-- the first frame on the stack outside diagc's own modules (this folder's
-- parent, generator/diagc/) and outside C, however deep in diagc the check
-- ran.  The runner (testing/runner.lua) also puts that line in front of an
-- error that escapes from diagc's modules without one of its own.
--
--   usage.raise("vjp: lq has %d values, expected %d", n, nv)
--     -> error("t_test.lua:12: vjp: lq has 1 value, expected 2")
local M = {}

local HERE = debug.getinfo(1, "S").source
-- "@/.../generator/diagc/": every diagc module's source starts with it
local INTERNAL = HERE:match("^(@.*/)testing/usage%.lua$")

local function internal(info)
  if info.what == "C" then return true end
  local src = info.source or ""
  return INTERNAL ~= nil and src:sub(1, #INTERNAL) == INTERNAL
end

-- The level (as error() counts from the function at level `from`) and the
-- debug info of the first frame outside diagc, starting at level `from`
-- (>= 2) of the caller; nil when every frame is diagc's (a command).
function M.user_frame(from)
  for lv = from + 1, 200 do
    local info = debug.getinfo(lv, "Sl")
    if not info then return nil end
    if not internal(info) then return lv - 1, info end
  end
  return nil
end

-- Raises fmt (with string.format's arguments) at the user's line.
function M.raise(fmt, ...)
  local msg = select("#", ...) > 0 and string.format(fmt, ...) or fmt
  local lv = M.user_frame(1)
  -- error(msg, lv) counts from this function: lv frames up from here
  error(msg, lv and lv or 0)
end

-- "FILE:LINE: " of the user's frame, for an error handler running on the
-- stack of the error (xpcall), or "" when there is none.
function M.where()
  local _, info = M.user_frame(2)
  if not info or not info.currentline or info.currentline < 1 then return "" end
  local src = info.source or ""
  local file = src:sub(1, 1) == "@" and src:sub(2) or info.short_src
  return file .. ":" .. info.currentline .. ": "
end

-- Whether the text of a string error starts at a diagc module's line
-- ("/.../generator/diagc/testing/rollout.lua:49: ...").
function M.from_internal(msg)
  return INTERNAL ~= nil and type(msg) == "string" and msg:sub(1, #INTERNAL - 1) == INTERNAL:sub(2)
end

-- The text of an error raised by diagc's modules, shortened to the module
-- ("testing/rollout.lua:49: ...").
function M.strip_internal(msg)
  if not M.from_internal(msg) then return msg end
  return msg:sub(#INTERNAL)
end

return M
