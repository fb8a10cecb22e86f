-- cli/sweep_out.lua: the folder a sweep writes (docs/sweep.md, "Output"):
--   DIR/runs/NNN.csv   each run's log, as `diagc run --csv` writes it
--                      (written by the batch's output step, diagc/batch.h:
--                      this module names the folder and cleans up)
--   DIR/summary.csv    one row per run: its number, status, sampled values,
--                      end time, each logged column's final, min and max,
--                      the metrics, and the failure message
-- Everything is written into a hidden folder beside DIR, renamed to DIR
-- when the sweep finished; on an error it is removed, so DIR is either
-- the whole result or untouched.  DIR must not exist, or be empty.
local ffi = require("ffi")
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local dffi = require("diagc.testing.ffi")
local util = require("diagc.util")

local M = {}

local declared = false
local function declare()
  if declared then return end
  declared = true
  dffi.stdio()
  ffi.cdef [[
int mkdir(const char *, unsigned int);
int rmdir(const char *);
int rename(const char *, const char *);
]]
end

local function why() return ffi.string(ffi.C.strerror(ffi.errno())) end

-- RFC 4180 cell
function M.cell(s)
  if s:find('[,"\r\n]') then return '"' .. s:gsub('"', '""') .. '"' end
  return s
end

-- Checks DIR and creates the hidden folder beside it: a writer object
-- for n_runs runs.
function M.open(cmd, dir, n_runs)
  declare()
  local host = require("diagc_host")
  if dir == "" then errors.raise(nil, "%s: --out: empty folder name", cmd) end
  dir = dir:gsub("/+$", "")
  if dir == "" then dir = "/" end
  local st = host.stat(dir)
  if st and st.kind ~= "directory" then
    errors.raise(nil, "%s: --out %s: it exists and is not a folder; name a new folder", cmd, cli.show(dir))
  end
  if st then
    -- only an empty folder is taken (probed by removing and recreating it)
    if ffi.C.rmdir(dir) ~= 0 then
      errors.raise(nil, "%s: --out %s: the folder exists and is not empty (%s); a sweep writes a new folder, "
        .. "it never overwrites one: name another or remove it", cmd, cli.show(dir), why())
    end
    ffi.C.mkdir(dir, tonumber("755", 8))
  end
  local parent = util.dirname(dir)
  local pst = host.stat(parent)
  if not pst or pst.kind ~= "directory" then
    errors.raise(nil, "%s: --out %s: its parent folder '%s' does not exist", cmd, cli.show(dir), cli.show(parent))
  end
  local tmp
  for n = 0, 99 do
    local cand = string.format("%s/.%s.tmp%d.%d", parent, util.basename(dir), ffi.C.getpid(), n)
    if ffi.C.mkdir(cand, tonumber("755", 8)) == 0 then tmp = cand; break end
    if ffi.errno() ~= 17 then errors.raise(nil, "%s: --out %s: cannot create a folder beside it: %s", cmd, cli.show(dir), why()) end
  end
  if not tmp then errors.raise(nil, "%s: --out %s: cannot create a temporary folder beside it", cmd, cli.show(dir)) end
  local w = { cmd = cmd, dir = dir, tmp = tmp, files = {}, ranges = {}, n_runs = n_runs,
    existed = st ~= nil }
  if ffi.C.mkdir(tmp .. "/runs", tonumber("755", 8)) ~= 0 then
    local e = why()
    M.abandon(w)
    errors.raise(nil, "%s: --out %s: cannot create a folder: %s", cmd, cli.show(dir), e)
  end
  return w
end

-- Removes everything written (an error stopped the sweep).
function M.abandon(w)
  if not w or w.done then return end
  w.done = true
  for _, f in ipairs(w.files) do os.remove(f) end
  for _, r in ipairs(w.ranges) do
    for i = r[1], r[1] + r[2] - 1 do
      local name = M.run_name(w.n_runs, i)
      os.remove(w.tmp .. "/" .. name)
      os.remove(w.tmp .. "/" .. name:gsub("^runs/", "runs/.") .. ".tmp")
    end
  end
  ffi.C.rmdir(w.tmp .. "/runs")
  ffi.C.rmdir(w.tmp)
end

function M.run_name(n_runs, i)
  local digits = math.max(1, #tostring(n_runs))
  return string.format("runs/%0" .. digits .. "d.csv", i)
end

-- The folder the batch's output step writes the runs into (diagc/batch.h,
-- diagc_batch_output: runs/N.csv by way of runs/.N.csv.tmp), and its name
-- in messages.
function M.runs_dir(w)
  return w.tmp .. "/runs", w.dir .. "/runs"
end

-- Runs [first, first + count) (1-based) are being written: abandon
-- removes them.
function M.track(w, first, count)
  w.ranges[#w.ranges + 1] = { first, count }
end

-- summary.csv and the rename into place.
function M.finish(w, header, rows)
  local path = w.tmp .. "/summary.csv"
  local f, err = io.open(path, "wb")
  if not f then
    M.abandon(w)
    errors.raise(nil, "%s: cannot write '%s': %s", w.cmd, cli.show(w.dir .. "/summary.csv"), err)
  end
  w.files[#w.files + 1] = path
  local ok = f:write(header, "\n")
  for _, r in ipairs(rows) do ok = ok and f:write(r, "\n") end
  ok = ok and f:flush()
  f:close()
  if not ok then
    M.abandon(w)
    errors.raise(nil, "%s: cannot write '%s': the write failed (disk full?)", w.cmd, cli.show(w.dir .. "/summary.csv"))
  end
  if w.existed and ffi.C.rmdir(w.dir) ~= 0 then
    local e = why()
    M.abandon(w)
    errors.raise(nil, "%s: --out %s: the folder is not empty (%s); a sweep writes a new folder, it never "
      .. "overwrites one: name another or remove it", w.cmd, cli.show(w.dir), e)
  end
  if ffi.C.rename(w.tmp, w.dir) ~= 0 then
    local e = why()
    M.abandon(w)
    errors.raise(nil, "%s: --out %s: cannot rename the finished folder into place: %s", w.cmd, cli.show(w.dir), e)
  end
  w.done = true
end

return M
