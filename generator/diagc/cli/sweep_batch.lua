-- cli/sweep_batch.lua: diagc sweep's side of the runtime's batch
-- (diagc/batch.h, through LuaJIT's FFI): the batch with one chunk's
-- arrays carved from one block (MPI sends a chunk's results as one
-- message), running a chunk, and reading the results (columns, status).
local ffi = require("ffi")
local errors = require("diagc.errors")
local dffi = require("diagc.testing.ffi")

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

-- Runs runs [first, first + count) (0-based) of the sweep in b's arrays.
local function run_chunk(b, first, count)
  local err = ffi.new("char[256]")
  b.head[0] = first
  b.job.n_runs = count
  local rc = ffi.C.diagc_batch_run(b.ptr, b.job, err, 256)
  if rc ~= 0 then errors.raise(nil, "%s: %s", CMD, ffi.string(err)) end
end

local function columns(desc)
  local cols = {}
  for l = 0, desc.n_loggers - 1 do
    local lg = desc.loggers[l]
    local name = ffi.string(lg.name)
    for e = 0, lg.size - 1 do cols[#cols + 1] = lg.size == 1 and name or string.format("%s[%d]", name, e) end
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
M.columns, M.status_text = columns, status_text
return M
