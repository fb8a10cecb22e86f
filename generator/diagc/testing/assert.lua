-- testing/assert.lua: assertions for test files.  Failures are raised at
-- the test file's line (error level 2) with both values.
local M = {}

local function fmt(v)
  if type(v) == "table" then
    local t = {}
    for i, x in ipairs(v) do t[i] = fmt(x) end
    local keys = {}
    for k in pairs(v) do
      if type(k) ~= "number" or k < 1 or k > #v or k ~= math.floor(k) then keys[#keys + 1] = k end
    end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    for _, k in ipairs(keys) do t[#t + 1] = tostring(k) .. "=" .. fmt(v[k]) end
    return "{" .. table.concat(t, ", ") .. "}"
  end
  if type(v) == "number" then return string.format("%.17g", v) end
  return tostring(v)
end
M.fmt = fmt

local function close(a, b, rtol, atol)
  if a == b then return true end
  if a ~= a or b ~= b then return false end
  return math.abs(a - b) <= atol + rtol * math.max(math.abs(a), math.abs(b))
end

local NEAR_OPTIONS = { { "rtol", range = { min = 0 } }, { "atol", range = { min = 0 } } }

-- near(a, b, {rtol=, atol=}); a and b may be numbers, vectors or matrices
function M.near(a, b, tol, level)
  local why = require("diagc.cli.optcheck").options("near", tol, NEAR_OPTIONS)
  if why then require("diagc.testing.usage").raise(why) end
  tol = tol or {}
  local rtol, atol = tol.rtol or 1e-9, tol.atol or 0
  level = (level or 1) + 1
  local function cmp(x, y, path)
    if type(x) == "table" or type(y) == "table" then
      if type(x) ~= "table" or type(y) ~= "table" or #x ~= #y then
        error(string.format("near: shapes differ at %s: %s vs %s", path, fmt(x), fmt(y)), 0)
      end
      for i = 1, #x do cmp(x[i], y[i], path .. "[" .. i .. "]") end
      return
    end
    if type(x) ~= "number" or type(y) ~= "number" or not close(x, y, rtol, atol) then
      error(string.format("near: %s: got %s, expected %s (rtol %g, atol %g)", path, fmt(x), fmt(y),
        rtol, atol), 0)
    end
  end
  local ok, e = pcall(cmp, a, b, "value")
  if not ok then error(e, level) end
end

function M.eq(a, b, what)
  local same = a == b
  if not same and type(a) == "table" and type(b) == "table" then same = fmt(a) == fmt(b) end
  if not same then
    error(string.format("%sgot %s, expected %s", what and (what .. ": ") or "", fmt(a), fmt(b)), 2)
  end
end

function M.truthy(v, what)
  if not v then error("expected true" .. (what and (": " .. what) or ""), 2) end
end

-- expect_error(fn, pattern): fn must raise an error whose text contains pattern
function M.expect_error(fn, pattern)
  if type(fn) ~= "function" then
    require("diagc.testing.usage").raise("expect_error(fn, text): fn must be a function, got %s",
      require("diagc.cli.optcheck").show(fn))
  end
  if pattern ~= nil and type(pattern) ~= "string" then
    require("diagc.testing.usage").raise("expect_error(fn, text): text must be a string, got %s",
      require("diagc.cli.optcheck").show(pattern))
  end
  local ok, e = pcall(fn)
  if ok then error("expected an error" .. (pattern and (" matching '" .. pattern .. "'") or ""), 2) end
  local msg = type(e) == "table" and require("diagc.errors").format(e) or tostring(e)
  if pattern and not msg:find(pattern, 1, true) then
    error(string.format("error '%s' does not contain '%s'", msg, pattern), 2)
  end
  return msg
end

return M
