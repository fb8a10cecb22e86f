-- cli/sweep_mpi.lua: diagc sweep --mpi (docs/sweep.md, "MPI").  Every rank
-- parses the same command line and compiles the same model; rank 0 hands
-- out chunks of runs one at a time to whichever rank asks (dynamic load
-- balancing: runs differ in cost), sending each chunk's sampled values,
-- and writes the results as they come back, exactly as the threaded
-- sweep writes them (the same arrays, the same writer), so the output is
-- the same bit for bit.  With one rank it runs everything itself.
-- The MPI calls are lib/libdiagc_mpi.so (tools/mpi/diagc_mpi.c), built
-- when Open MPI was installed at build time.
local ffi = require("ffi")
local errors = require("diagc.errors")

local M = {}

local TAG_READY, TAG_WORK, TAG_STOP, TAG_RESULT = 1, 2, 3, 4

local lib

function M.load(cmd)
  if lib then return M end
  local host = require("diagc_host")
  local path = os.getenv("DIAGC_MPI_LIBRARY") or (host.lib_dir() .. "/libdiagc_mpi.so")
  local f = io.open(path, "rb")
  if not f then
    errors.raise(nil, "%s: --mpi: this diagc was built without MPI (no %s); install Open MPI "
      .. "(scripts/install-deps.sh libopenmpi-dev) and run make again", cmd, path)
  end
  f:close()
  ffi.cdef [[
int diagc_mpi_init(int *rank, int *size);
int diagc_mpi_finalize(void);
void diagc_mpi_abort(int code);
int diagc_mpi_send(const void *buf, long bytes, int dest, int tag);
int diagc_mpi_probe(int src, int *out_src, int *out_tag, long *bytes);
int diagc_mpi_recv(void *buf, long bytes, int src, int tag);
]]
  -- global: Open MPI's plugins resolve libmpi's symbols through it
  local ok, l = pcall(ffi.load, path, true)
  if not ok then errors.raise(nil, "%s: --mpi: cannot load %s: %s", cmd, path, tostring(l)) end
  lib = l
  M.cmd = cmd
  return M
end

local function check(rc, what)
  if rc ~= 0 then errors.raise(nil, "%s: --mpi: %s failed (MPI error %d)", M.cmd, what, rc) end
end

function M.init()
  local r, s = ffi.new("int[1]"), ffi.new("int[1]")
  check(lib.diagc_mpi_init(r, s), "MPI_Init")
  M.rank, M.size = r[0], s[0]
  return M.rank
end

function M.finalize() lib.diagc_mpi_finalize() end

-- An error on one rank ends every rank (the others would wait forever):
-- its one line first, then MPI_Abort with status 2.
function M.abort(e)
  io.stderr:write("diagc: " .. errors.format(errors.is(e) and e or errors.new(nil, tostring(e))) .. "\n")
  io.stderr:flush()
  lib.diagc_mpi_abort(2)
end

local src, tag, bytes = ffi.new("int[1]"), ffi.new("int[1]"), ffi.new("long[1]")

-- Rank 0: n_chunks chunks; values(c, dst) writes chunk c's sampled values
-- into dst and returns first, count; process() reads a chunk's results
-- from b's arrays.
-- The line rank 0 prints if a signal ends it (Open MPI ends every rank
-- when one dies): the runs that were out on other ranks, by rank.
local function note(outstanding, chunk, n_runs, out_dir, done, next_chunk)
  local host = require("diagc_host")
  if not host.set_stop_note then return end
  local parts, ranks = {}, {}
  for r in pairs(outstanding) do ranks[#ranks + 1] = r end
  table.sort(ranks)
  for _, r in ipairs(ranks) do
    local first = outstanding[r] * chunk
    local last = math.min(first + chunk, n_runs)
    parts[#parts + 1] = string.format("%d-%d (rank %d)", first + 1, last, r)
  end
  local rest = next_chunk * chunk < n_runs
    and string.format(", and %d-%d not started", next_chunk * chunk + 1, n_runs) or ""
  host.set_stop_note(errors.sanitize(string.format("diagc: %s --mpi: stopped by a signal with %d of %d runs "
    .. "written (a lost rank makes Open MPI end every rank); runs not finished: %s%s; no %s was written (remove "
    .. "the hidden folder beside it)", M.cmd, done(), n_runs, #parts > 0 and table.concat(parts, ", ") or "none",
    rest, out_dir)))
end

function M.master(b, n_chunks, values, process, n_runs, out_dir, done)
  local workers = M.size - 1
  local next_chunk, active = 0, workers
  local width = b.width
  local work = ffi.new("double[?]", 1 + b.chunk * math.max(width, 1))
  local outstanding = {}
  note(outstanding, b.chunk, n_runs, out_dir, done, next_chunk)
  while active > 0 do
    check(lib.diagc_mpi_probe(-1, src, tag, bytes), "MPI_Probe")
    local from, t = src[0], tag[0]
    if t == TAG_RESULT then
      if bytes[0] ~= b.bytes then errors.raise(nil, "%s: --mpi: rank %d sent %d bytes, expected %d", M.cmd, from,
        tonumber(bytes[0]), b.bytes) end
      check(lib.diagc_mpi_recv(b.block, b.bytes, from, TAG_RESULT), "MPI_Recv")
      outstanding[from] = nil
      process()
    else
      check(lib.diagc_mpi_recv(work, 0, from, t), "MPI_Recv")
    end
    if next_chunk < n_chunks then
      local first, count = values(next_chunk, work + 1)
      work[0] = first
      check(lib.diagc_mpi_send(work, 8 * (1 + count * width), from, TAG_WORK), "MPI_Send")
      outstanding[from] = next_chunk
      next_chunk = next_chunk + 1
    else
      check(lib.diagc_mpi_send(work, 0, from, TAG_STOP), "MPI_Send")
      active = active - 1
    end
    note(outstanding, b.chunk, n_runs, out_dir, done, next_chunk)
  end
  local host = require("diagc_host")
  if host.set_stop_note then host.set_stop_note(nil) end
end

-- Ranks > 0: ask, run, send back, until told to stop.
function M.worker(b, chunk, width, n_runs, run_chunk)
  local work = ffi.new("double[?]", 1 + chunk * math.max(width, 1))
  check(lib.diagc_mpi_send(work, 0, 0, TAG_READY), "MPI_Send")
  while true do
    check(lib.diagc_mpi_probe(0, src, tag, bytes), "MPI_Probe")
    if tag[0] == TAG_STOP then
      check(lib.diagc_mpi_recv(work, 0, 0, TAG_STOP), "MPI_Recv")
      return
    end
    check(lib.diagc_mpi_recv(work, bytes[0], 0, TAG_WORK), "MPI_Recv")
    local first = tonumber(work[0])
    local count = math.min(chunk, n_runs - first)
    ffi.copy(b.set_values, work + 1, 8 * count * width)
    run_chunk(b, first, count)
    check(lib.diagc_mpi_send(b.block, b.bytes, 0, TAG_RESULT), "MPI_Send")
  end
end

return M
