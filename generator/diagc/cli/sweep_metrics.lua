-- cli/sweep_metrics.lua: the user's metrics of a sweep (--metrics FILE.lua,
-- docs/sweep.md "Metrics").  The file is user code, loaded and run at
-- sweep time (never while generating C) in the spec sandbox
-- (docs/security.md: the spec language's environment, no io, os, require,
-- load, ffi...), read as a spec file is (a regular file, Lua source text).
-- It returns a table of named functions; each is called once per finished
-- run as f(log, sample) and must return a finite number or nil (no value):
--   log.t        the row times
--   log[column]  the column's values (the CSV's columns: "sys.port" or
--                "sys.port[i]"), NaN where its logger did not fire
--   sample[name] the run's swept values
-- An error in the file or a function, or a value that is not a number,
-- stops the sweep: one line with the file and line, exit status 2, and
-- nothing written.  Every call is bounded by the command's --timeout.
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")

local M = {}

-- file:line: msg -> a located diagc error
local function located(e, path, fallback_line)
  if errors.is(e) then return e end
  if e == "not enough memory" then
    return errors.new({ file = path, line = fallback_line }, "a metric used more memory than the Lua heap limit")
  end
  local msg = type(e) == "string" and e or errors.describe(e)
  local file, line, rest = msg:match("^([^:\n]+):(%d+): (.*)$")
  if file == path then return errors.new({ file = path, line = tonumber(line) }, rest) end
  return errors.new({ file = path, line = fallback_line }, msg)
end

-- Loads FILE.lua: a list {{name=, fn=, line=}, ...} sorted by name.
function M.load(cmd, path)
  local host = require("diagc_host")
  local text, why = host.read_source(path, 16 * 1024 * 1024)
  if not text then errors.raise(nil, "%s: --metrics: cannot read '%s': %s", cmd, cli.show(path), why or "?") end
  if text:sub(1, 1) == "\27" then
    errors.raise({ file = path, line = 1 }, "the metrics file is compiled Lua bytecode; give Lua source text")
  end
  local chunk, perr = load(text, "@" .. path, "t")
  if not chunk then
    local e = located(perr, path, 1)
    e.msg = "syntax error: " .. e.msg
    error(e, 0)
  end
  setfenv(chunk, require("diagc.spec.dsl").environment(function()
    errors.raise({ file = path, line = 1 }, "import is not available in a metrics file")
  end))
  local ok, res = pcall(chunk)
  if not ok then error(located(res, path, 1), 0) end
  if type(res) ~= "table" then
    errors.raise({ file = path, line = 1 }, "the metrics file must return a table of functions, as in: "
      .. "return { peak = function(log) ... end } (it returned %s)", type(res))
  end
  local list = {}
  for name, fn in pairs(res) do
    if type(name) ~= "string" or not name:match("^[%w_%.%[%]]+$") then
      errors.raise({ file = path, line = 1 }, "metric name %s: use letters, digits, '_', '.' (a CSV column name)",
        cli.show(tostring(name)))
    end
    if type(fn) ~= "function" then
      errors.raise({ file = path, line = 1 }, "metric '%s' is a %s, not a function(log, sample)", name, type(fn))
    end
    local info = debug.getinfo(fn, "S")
    list[#list + 1] = { name = name, fn = fn, line = info and info.linedefined or 1 }
  end
  table.sort(list, function(a, b) return a.name < b.name end)
  if #list == 0 then errors.raise({ file = path, line = 1 }, "the metrics file returned no metrics") end
  return list
end

-- Run k's log (slot k of the chunk in batch b's arrays: cli/sweep_batch.lua)
-- as the metrics see it: {t = {...}, [column] = {...}}, cols the column
-- names in log order.
function M.log(b, k, cols)
  local j, R, lw = b.job, b.max_rows, b.log_width
  local nrows = tonumber(j.rows[k])
  local log = { t = {} }
  for r = 0, nrows - 1 do log.t[r + 1] = j.t[k * R + r] end
  for c = 0, lw - 1 do
    local col = {}
    for r = 0, nrows - 1 do col[r + 1] = j.values[(k * R + r) * lw + c] end
    log[cols[c + 1]] = col
  end
  return log
end

-- The values of every metric for one run: {name = number or nil}.
-- timeout: the seconds each call may take (0: none).  A call runs
-- interpreted (JIT off) under a count hook that raises the timeout's
-- error, so the sweep stops through its error path (the output folder is
-- removed); the host's signal at twice the time is the backstop.
function M.evaluate(path, list, log, sample, timeout, run)
  local host = require("diagc_host")
  local out = {}
  for _, mt in ipairs(list) do
    local why = string.format("metric '%s' took more than %g s (run %d; a loop that never ends?); raise the "
      .. "limit with --timeout S (0: none)", mt.name, timeout, run)
    local expired = errors.new({ file = path, line = mt.line }, why)
    if timeout > 0 then
      local deadline = host.now() + timeout
      debug.sethook(function()
        if host.now() > deadline then error(expired, 0) end
      end, "", 10000)
      if host.set_timeout then
        host.set_timeout(2 * timeout, "diagc: " .. errors.sanitize(string.format("%s:%d: %s", path, mt.line, why)))
      end
    end
    jit.off()
    local ok, v = pcall(mt.fn, log, sample)
    jit.on()
    if timeout > 0 then
      debug.sethook()
      if host.set_timeout then host.set_timeout(0, "") end
    end
    if not ok and v == expired then error(expired, 0) end
    if not ok then
      local e = located(v, path, mt.line)
      e.msg = string.format("metric '%s' failed on run %d: %s", mt.name, run, e.msg)
      error(e, 0)
    end
    if v ~= nil and (type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge) then
      errors.raise({ file = path, line = mt.line }, "metric '%s' returned %s on run %d; return a finite number (or nil)",
        mt.name, type(v) == "number" and tostring(v) or "a " .. type(v), run)
    end
    out[mt.name] = v
  end
  return out
end

return M
