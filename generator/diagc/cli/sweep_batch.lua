-- cli/sweep_batch.lua: diagc sweep's side of the runtime's batch
-- (diagc/batch.h, through LuaJIT's FFI): the batch with one chunk's
-- arrays carved from one block (MPI sends a chunk's results as one
-- message), its output step (each run's CSV file and summary cells,
-- formatted and written by the batch's threads), running a chunk, and
-- reading the results (columns, status).
local ffi = require("ffi")
local errors = require("diagc.errors")
local dffi = require("diagc.testing.ffi")
local column_names = require("diagc.cli.columns")

local M = {}
local CMD = "diagc sweep"

-- diagc_sim_options from run's option table
local function sim_options(opts, keep)
  local o = ffi.new("diagc_sim_options")
  ffi.C.diagc_sim_options_init(o)
  for k, v in pairs(opts) do
    if k == "integrator" then
      keep[#keep + 1] = v
      o.integrator = v
    elseif k == "jacobian" then
      o.jacobian = v == "fd" and dffi.const.DIAGC_JACOBIAN_FD or dffi.const.DIAGC_JACOBIAN_MODEL
    else
      o[k] = v
    end
  end
  return o
end

-- The rows a run can log up to t_end (periodic loggers), or nil when a
-- logger samples every step.
local function rows_bound(desc, t_end)
  local n = 2
  for i = 0, desc.n_loggers - 1 do
    local p = desc.loggers[i].period
    if not (p > 0) then return nil end
    n = n + math.floor(t_end / p) + 2
  end
  return n
end


-- The batch and one chunk's arrays, carved from one block (so that MPI
-- sends a chunk's results as one message).
local function new_batch(m, opts, jobs, max_rows, chunk, width)
  local C = ffi.C
  local keep = {}
  local o = sim_options(opts, keep)
  local err = ffi.new("char[256]")
  local ptr = C.diagc_batch_create(m.desc, o, jobs, err, 256)
  if ptr == nil then errors.raise(nil, "%s: %s", CMD, ffi.string(err)) end
  ptr = ffi.gc(ptr, C.diagc_batch_destroy)
  local d = m.desc
  local b = { m = m, ptr = ptr, keep = keep, max_rows = max_rows, chunk = chunk, width = width,
    log_width = C.diagc_batch_log_width(d), n_loggers = d.n_loggers, nx = d.nxc + d.nxd }
  b.log_off, b.vptr = {}, ffi.new("const double *[?]", math.max(1, d.n_loggers))
  local o2 = 0
  for l = 0, d.n_loggers - 1 do
    b.log_off[l] = o2
    o2 = o2 + d.loggers[l].size
  end
  local R, lw, nl, msg = max_rows, b.log_width, b.n_loggers, dffi.const.DIAGC_BATCH_MESSAGE
  -- layout: [chunk index][t][values][end][final][set_values] (doubles), then
  -- rows, status (ints), fired, messages (bytes)
  local nd = 1 + chunk * R + chunk * R * lw + chunk + chunk * b.nx + chunk * width
  local bytes = nd * 8 + chunk * 8 + chunk * R * nl + chunk * msg
  b.bytes = bytes
  b.block = ffi.new("uint8_t[?]", bytes)
  local dp = ffi.cast("double *", b.block)
  local j = ffi.new("diagc_batch_job")
  b.head = dp
  local at = 1
  local function take(n) local p = dp + at; at = at + n; return p end
  j.t = take(chunk * R)
  j.values = take(chunk * R * lw)
  j.end_time = take(chunk)
  j.final_state = take(chunk * b.nx)
  b.set_values = take(chunk * width)
  local ip = ffi.cast("int *", dp + at)
  j.rows, j.status = ip, ip + chunk
  local bp = ffi.cast("uint8_t *", ip + 2 * chunk)
  j.fired = bp
  j.messages = ffi.cast("char *", bp + chunk * R * nl)
  j.max_rows = R
  j.set_values = b.set_values
  b.job = j
  return b
end

-- The output step: each run's CSV in dir (shown: its name in messages),
-- named by its 1-based number zero-padded to the digits of n_runs, and
-- its summary cells (b.summary, b.summary_bytes a run).  Without it
-- (MPI's ranks other than 0) run_chunk only runs.
local function set_output(b, dir, shown, n_runs)
  local C = ffi.C
  local o = ffi.new("diagc_batch_output")
  b.out_strings = { dir, shown }
  o.dir, o.shown = dir, shown
  o.digits = #tostring(n_runs)
  o.summary_bytes = C.diagc_batch_summary_bytes(b.m.desc)
  b.summary = ffi.new("char[?]", b.chunk * o.summary_bytes)
  o.summary = b.summary
  b.out, b.summary_bytes = o, o.summary_bytes
end

-- Runs runs [first, first + count) (0-based) of the sweep in b's arrays,
-- and writes them when b has an output step.
local function run_chunk(b, first, count)
  local err = ffi.new("char[256]")
  b.head[0] = first
  b.job.n_runs = count
  local rc
  if b.out then
    b.out.first = first + 1
    rc = ffi.C.diagc_batch_run_output(b.ptr, b.job, b.out, err, 256)
  else
    rc = ffi.C.diagc_batch_run(b.ptr, b.job, err, 256)
  end
  if rc ~= 0 then errors.raise(nil, "%s: %s", CMD, ffi.string(err)) end
end

-- Writes the chunk in b's arrays (MPI: another rank ran it) through the
-- output step, as run_chunk would have; its first run and count.
local function write_chunk(b, n_runs)
  local err = ffi.new("char[256]")
  local first = tonumber(b.head[0])
  local count = math.min(b.chunk, n_runs - first)
  b.job.n_runs = count
  b.out.first = first + 1
  local rc = ffi.C.diagc_batch_write(b.ptr, b.job, b.out, err, 256)
  if rc ~= 0 then errors.raise(nil, "%s: %s", CMD, ffi.string(err)) end
  return first, count
end

-- Run k's (in the chunk) summary cells: end time, final, min, max.
local function summary_cells(b, k)
  return ffi.string(b.summary + k * b.summary_bytes)
end

-- The logged columns' names, as the CSV header names them (cli/columns.lua).
local function columns(desc)
  local cols = {}
  for l = 0, desc.n_loggers - 1 do
    local lg = desc.loggers[l]
    local el -- Lua nil unless the port names its elements (a NULL cdata is truthy)
    if lg.output >= 0 and lg.output < desc.n_outputs and desc.outputs[lg.output].elements ~= nil then
      local names = desc.outputs[lg.output].elements
      el = {}
      for e = 0, lg.size - 1 do el[e + 1] = ffi.string(names[e]) end
    end
    for _, c in ipairs(column_names.of(ffi.string(lg.name), lg.size, el)) do cols[#cols + 1] = c end
  end
  return cols
end

local function status_text(rc)
  if rc == 0 then return "ok" end
  if rc == dffi.const.DIAGC_SIM_TERMINATED or rc == 1 then return "terminated" end
  local n = ffi.C.diagc_status_name(rc)
  return n ~= nil and ffi.string(n) or tostring(rc)
end


M.sim_options, M.rows_bound, M.new_batch, M.run_chunk = sim_options, rows_bound, new_batch, run_chunk
M.set_output, M.write_chunk, M.summary_cells = set_output, write_chunk, summary_cells
M.columns, M.status_text = columns, status_text
return M
