-- cli/output.lua: every file the commands write goes through here.
-- Each write and close is checked; a failure is one error line naming the
-- path and the reason.  Regular files are replaced atomically: the text
-- goes to a hidden temporary file beside the target, renamed over it only
-- when everything succeeded (several files: all written first, then all
-- renamed), so a failure leaves the old files as they were.  Devices and
-- FIFOs (/dev/null, /dev/stdout) are written in place.  An output that is
-- the same file as an input (the spec) is refused.
local errors = require("diagc.errors")
local util = require("diagc.util")

local M = {}

local function host()
  local ok, h = pcall(require, "diagc_host")
  return ok and h or nil
end

local function strerror(code, fallback)
  if not code then return fallback end
  local ffi = require("ffi")
  require("diagc.testing.ffi").stdio()
  return ffi.string(ffi.C.strerror(code))
end

-- The reason of a failed io call (nil, "path: reason", errno) without the path.
local function reason(err, code)
  return strerror(code, (tostring(err or "error"):gsub("^.*: ", "")))
end

local function show(p) return require("diagc.cli.main").show(p) end

local function fail(cmd, path, why)
  errors.raise(nil, "%scannot write '%s': %s", require("diagc.cli.main").prefix(cmd), show(path), why)
end

-- stat of a path: {kind=, dev=, ino=} or nil (does not exist or no host)
local function stat(path)
  local h = host()
  if not h or not h.stat then return nil end
  return (h.stat(path))
end
M.stat = stat

local function same(a, b) return a and b and a.dev == b.dev and a.ino == b.ino end

-- Writes text to an open file, flushes and closes it; true or nil, reason.
local function put(f, text)
  local ok, err, code = f:write(text)
  if ok then ok, err, code = f:flush() end
  if not ok then
    f:close()
    return nil, reason(err, code)
  end
  ok, err, code = f:close()
  if not ok then return nil, reason(err, code) end
  return true
end

-- The file a path names, symbolic links resolved (so replacing it keeps
-- the link); the path itself when it does not exist yet.
function M.real(path)
  local ok, r = pcall(function()
    local ffi = require("ffi")
    require("diagc.testing.ffi").stdio()
    local p = ffi.C.realpath(path, nil)
    if p == nil then return nil end
    local s = ffi.string(p)
    ffi.C.free(p)
    return s
  end)
  return ok and r or path
end

-- Tells the host which temporary files a timeout must remove (on = true)
-- or leave (on = false: renamed or removed already).
function M.track(tmp, on)
  local ok, host = pcall(require, "diagc_host")
  if ok and host.track_temp then host.track_temp(tmp, on) end
end

-- A new hidden file beside `path`: its name and an open handle, or nil, reason.
function M.temp_beside(path)
  local dir, base = util.dirname(path), util.basename(path)
  local pid = 0
  pcall(function()
    local ffi = require("ffi")
    require("diagc.testing.ffi").stdio()
    pid = ffi.C.getpid()
  end)
  for n = 0, 99 do
    local tmp = string.format("%s/.%s.tmp%d.%d", dir, base, pid, n)
    local f, err, code = io.open(tmp, "wx")
    if f then M.track(tmp, true); return tmp, f end
    if code ~= 17 then return nil, reason(err, code) end -- 17: EEXIST
  end
  return nil, "cannot create a temporary file"
end

-- A new, empty private file in $TMPDIR (default /tmp), named after `suffix`
-- (".csv", ".png": what it holds): its path.  A timeout or a
-- signal removes it (the host's list) until M.remove_temp(path).  Not
-- os.tmpname: that ignores TMPDIR and is removed by nobody on a signal.
function M.temp(cmd, suffix)
  local dir = os.getenv("TMPDIR")
  if not dir or dir == "" then dir = "/tmp" end
  local tmp, f = M.temp_beside(dir .. "/diagc" .. (suffix or ""))
  if not tmp then fail(cmd, dir .. "/diagc" .. (suffix or ""), f) end
  f:close()
  return tmp
end

function M.remove_temp(path)
  if not path then return end
  os.remove(path)
  M.track(path, false)
end

-- Checks an output path before anything is written: not a directory, not
-- one of the inputs (list of paths).
function M.check_target(cmd, path, inputs)
  if path == "" then fail(cmd, path, "empty file name") end
  local st = stat(path)
  if st and st.kind == "directory" then
    fail(cmd, path, "it is a directory; name a file")
  end
  if path:sub(-1) == "/" then fail(cmd, path, "it names a directory; name a file") end
  if st then
    for _, inp in ipairs(inputs or {}) do
      if same(st, stat(inp)) then
        fail(cmd, path, "it is the input file " .. show(inp) .. "; choose another output name")
      end
    end
  end
  return st
end

-- Writes files = {{path, text}, ...}: all or none (see the top).
-- inputs: paths that must not be overwritten.
function M.write_files(cmd, files, inputs)
  local seen = {}
  for _, fl in ipairs(files) do
    if seen[fl[1]] then fail(cmd, fl[1], "the same file is named twice") end
    seen[fl[1]] = true
    fl.st = M.check_target(cmd, fl[1], inputs)
  end
  local temps = {}
  local function cleanup()
    for _, t in ipairs(temps) do os.remove(t); M.track(t, false) end
  end
  -- 1. regular files (and new files) to temporary files beside them
  for _, fl in ipairs(files) do
    if not fl.st or fl.st.kind == "file" then
      fl.real = fl.st and M.real(fl[1]) or fl[1]
      local tmp, f = M.temp_beside(fl.real)
      if not tmp then cleanup(); fail(cmd, fl[1], f) end
      temps[#temps + 1] = tmp
      fl.tmp = tmp
      local ok, why = put(f, fl[2])
      if not ok then cleanup(); fail(cmd, fl[1], why) end
    end
  end
  -- 2. devices and FIFOs in place
  for _, fl in ipairs(files) do
    if not fl.tmp then
      local f, err, code = io.open(fl[1], "wb")
      if not f then cleanup(); fail(cmd, fl[1], reason(err, code)) end
      local ok, why = put(f, fl[2])
      if not ok then cleanup(); fail(cmd, fl[1], why) end
    end
  end
  -- 3. rename
  for _, fl in ipairs(files) do
    if fl.tmp then
      local ok, err, code = os.rename(fl.tmp, fl.real)
      if not ok then cleanup(); fail(cmd, fl[1], reason(err, code)) end
      M.track(fl.tmp, false)
    end
  end
end

function M.write_file(cmd, path, text, inputs)
  M.write_files(cmd, { { path, text } }, inputs)
end

-- Moves a finished temporary file over its target (see run's CSV).
function M.commit(cmd, tmp, path, shown)
  local ok, err, code = os.rename(tmp, path)
  M.track(tmp, false)
  if not ok then
    os.remove(tmp)
    fail(cmd, shown or path, reason(err, code))
  end
end

-- Writes text to standard output and flushes it; a failure (a full disk, a
-- closed pipe) is an error naming standard output.
function M.stdout(cmd, text)
  local ok, err, code = io.stdout:write(text)
  if ok then ok, err, code = io.stdout:flush() end
  if not ok then
    errors.raise(nil, "%scannot write to standard output: %s", require("diagc.cli.main").prefix(cmd), reason(err, code))
  end
end

-- A command's report: to the file `path` (-o, written as write_file
-- does; inputs() gives the files it must not overwrite) or, without one,
-- to standard output.
function M.report(cmd, path, text, inputs)
  if path then M.write_file(cmd, path, text, inputs()) else M.stdout(cmd, text) end
end

-- For the driver's --help and --version (outside the error handler): writes
-- and returns `code`, or prints the error and returns 1.
function M.stdout_status(text, code)
  local ok, e = pcall(M.stdout, nil, text)
  if ok then return code end
  io.stderr:write("diagc: " .. (errors.is(e) and errors.format(e) or tostring(e)) .. "\n")
  return 1
end

return M
