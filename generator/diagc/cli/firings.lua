-- cli/firings.lua: the firings of a run's events beside its CSV
-- (docs/viewer.md, "Event marks"): `diagc run --csv OUT` writes
-- OUT.events.csv (OUT's .csv replaced) when the model has an event whose
-- times only the run knows (every trigger but periodic); the page reads it
-- back (cli/page.lua) and marks each firing.  The rows are written in C
-- by the simulator's event hook (diagc/csv.h, diagc_firings_writer): at
-- most MAX_ROWS per event, the rest counted in "# omitted" lines.
local ffi = require("ffi")
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local output = require("diagc.cli.output")

local M = {}

-- the rows of one event a file holds at most (about 1 MB of page each)
M.MAX_ROWS = 100000

-- the side file of the CSV `csv`
function M.path(csv)
  return (csv:gsub("%.csv$", "")) .. ".events.csv"
end

-- whether a model (info.describe's events) has events whose firings are written
function M.wanted(events)
  for _, e in ipairs(events) do
    if e.trigger ~= "periodic" then return true end
  end
  return false
end

-- the same question of a JIT-compiled model's descriptor (diagc_model)
function M.wanted_desc(desc)
  local periodic = require("diagc.testing.ffi").const.DIAGC_TRIGGER_PERIODIC
  for i = 0, desc.n_events - 1 do
    if desc.events[i].trigger ~= periodic then return true end
  end
  return false
end

-- The writer of a run (cmd, the simulator `sim`, the C model `desc`, the
-- file to write: a temporary file, committed by the caller), installed
-- as the simulator's event hook.  Returns {close = f(), omitted = {...}}.
function M.open(cmd, sim, desc, path, t0, t_end)
  local C = ffi.C
  local f = C.fopen(path, "w")
  if f == nil then
    errors.raise(nil, "%s: cannot write '%s': %s", cmd, cli.show(path), ffi.string(C.strerror(ffi.errno())))
  end
  local w = ffi.new("diagc_firings_writer")
  local counts = ffi.new("long long[?]", math.max(1, desc.n_events))
  C.diagc_firings_writer_init(w, desc, f, counts, M.MAX_ROWS)
  C.diagc_firings_write_header(w, t0, t_end)
  C.diagc_sim_set_event_callback(sim, ffi.cast("diagc_event_fn", C.diagc_firings_callback), w)
  local W = { w = w, counts = counts }
  -- after the run: the omitted lines, the file closed; an error names it
  function W.close()
    C.diagc_sim_set_event_callback(sim, nil, nil)
    C.diagc_firings_write_omitted(w)
    local bad = C.fflush(f) ~= 0 or C.ferror(f) ~= 0 or w.error ~= 0
    local code = ffi.errno()
    if C.fclose(f) ~= 0 and not bad then bad, code = true, ffi.errno() end
    if bad then
      output.remove_temp(path)
      errors.raise(nil, "%s: cannot write '%s': %s", cmd, cli.show(path),
        code ~= 0 and ffi.string(C.strerror(code)) or "write error")
    end
    W.omitted = {}
    for i = 0, desc.n_events - 1 do
      local n = tonumber(counts[i])
      if n > M.MAX_ROWS then
        W.omitted[#W.omitted + 1] = { name = ffi.string(desc.events[i].name), n = n }
      end
    end
  end
  -- a run that failed: only the file closed
  function W.abandon()
    C.diagc_sim_set_event_callback(sim, nil, nil)
    C.fclose(f)
  end
  return W
end

-- one line on stderr per event whose firings were cut (the page says so too)
function M.note(cmd, W)
  for _, o in ipairs(W.omitted or {}) do
    io.stderr:write(string.format("%s: note: %s fired %d times; its first %d firings are kept and marked, the "
      .. "other %d counted (docs/viewer.md)\n", cmd, o.name, o.n, M.MAX_ROWS, o.n - M.MAX_ROWS))
  end
end

-- a cell of a number as the CSV checks it (cli/page.lua's read_csv)
local function number(x)
  local v = tonumber(x)
  if not v or x:find("^%s") or x:find("%s$") or x:find("^0[xX]") or v ~= v or v == math.huge or v == -math.huge then
    return nil
  end
  return v
end

-- Reads and checks the side file `path` (`shown` in messages) against the
-- model described by d and its run (cli/page.lua's read_csv): every error
-- names the file and line.  Returns {t0=, t_end=, events = {{path=,
-- trigger=, times=, n=, omitted=}}} for the model's non-periodic events.
function M.read(path, d, run, shown)
  shown = shown or path
  local f, err = io.open(path, "rb")
  if not f then
    errors.raise({ file = shown, line = 1 }, "cannot read the firings file: %s; write the CSV and it with diagc run "
      .. "%s --csv FILE", (tostring(err):gsub("^.*: ", "")), d.spec)
  end
  local function bad(line, fmt, ...)
    f:close()
    errors.raise({ file = shown, line = line }, fmt, ...)
  end
  local by, list, names = {}, {}, {}
  for _, e in ipairs(d.events) do
    by[e.path] = e
    if e.trigger ~= "periodic" then
      list[#list + 1] = { path = e.path, trigger = e.trigger, times = {}, n = 0, omitted = 0 }
      by[e.path] = list[#list]
      names[#names + 1] = e.path
    end
  end
  -- the model's event named in line i, which is not periodic
  local function event(name, i)
    local e = by[name]
    if not e then
      bad(i, "'%s' is not an event of the model (its events with firings: %s); the file belongs to another model: "
        .. "write it again with diagc run %s --csv FILE", cli.show(name), table.concat(names, ", "), d.spec)
    end
    if not e.times then
      bad(i, "'%s' is a periodic event, whose firings are not written (the page computes them from its period)", name)
    end
    return e
  end
  local t0, t_end, last, i, trailer = nil, nil, -math.huge, 0, false
  for line in f:lines() do
    i = i + 1
    line = line:gsub("\r$", "")
    if i == 1 then
      local a, b = line:match("^# diagc firings t0=(%S+) t_end=(%S+)$")
      t0, t_end = a and number(a), b and number(b)
      if not (t0 and t_end and t0 <= t_end) then
        bad(1, "not a firings file of diagc run (its first line is '# diagc firings t0=T0 t_end=T1'); write it "
          .. "with diagc run %s --csv FILE", d.spec)
      end
    elseif i == 2 then
      if line ~= "t,event" then bad(2, "the header '%s' is not 't,event'", cli.show(line)) end
    elseif line:sub(1, 1) == "#" then
      -- "# omitted EVENT N": after an event's MAX_ROWS rows, once
      local name, n = line:match("^# omitted (%S+) (%d+)$")
      n = tonumber(n)
      if not name or not n or n < 1 or n > 2 ^ 53 then
        bad(i, "'%s' is not a line '# omitted EVENT N' (N > 0 firings not written)", cli.show(line))
      end
      local e = event(name, i)
      if e.omitted > 0 or e.n ~= M.MAX_ROWS then
        bad(i, "%s: %s firings omitted, but the file holds %d rows of it, not %d (diagc run writes the first %d and "
          .. "counts the rest once)", name, e.omitted > 0 and "twice" or "some", e.n, M.MAX_ROWS, M.MAX_ROWS)
      end
      e.omitted, trailer = n, true
    else
      local a, name = line:match("^([^,]*),([^,]*)$")
      local t = a and number(a)
      if not t then bad(i, "'%s' is not a row 't,event' with a number t", cli.show(line)) end
      if trailer then bad(i, "a firing after the '# omitted' lines, which end the file") end
      local e = event(name, i)
      if t < t0 or t > t_end then
        bad(i, "t = %s is outside the run (t0=%s to t_end=%s)", a, tostring(t0), tostring(t_end))
      end
      if t < last then
        bad(i, "t = %s is before the previous firing's time; the rows of diagc run come in time order", a)
      end
      if e.n >= M.MAX_ROWS then
        bad(i, "more than %d rows of %s (diagc run writes at most %d per event and counts the rest in a "
          .. "'# omitted' line)", M.MAX_ROWS, name, M.MAX_ROWS)
      end
      last, e.n = t, e.n + 1
      e.times[e.n] = t
    end
  end
  if i < 2 then
    bad(math.max(1, i), "the firings file ends before its header 't,event'; write it with diagc run %s --csv FILE",
      d.spec)
  end
  f:close()
  -- the CSV's rows lie in the run's span, else the two are of different runs
  if run.t[1] < t0 or run.t[run.rows] > t_end then
    errors.raise({ file = shown, line = 1 }, "the run from t0=%s to t_end=%s does not hold the CSV's times "
      .. "(%s to %s): the two files are of different runs; write both with one diagc run %s --csv FILE",
      tostring(t0), tostring(t_end), tostring(run.t[1]), tostring(run.t[run.rows]), d.spec)
  end
  return { t0 = t0, t_end = t_end, events = list }
end

-- The page's data (viewer/src/events.js): per non-periodic event its
-- firings' times as base64 doubles, their number and those not written;
-- or, with no file, why there are none.
function M.data(F, missing)
  local json = require("diagc.cli.json")
  if missing then return { missing = missing } end
  local ev = json.array()
  for k, e in ipairs(F.events) do
    ev[k] = { path = e.path, trigger = e.trigger, n = e.n, omitted = e.omitted,
      t = require("diagc.cli.pack").f64(e.times, e.n) }
  end
  return { t0 = F.t0, t_end = F.t_end, events = ev }
end

return M
