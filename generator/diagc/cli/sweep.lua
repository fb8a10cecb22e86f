-- cli/sweep.lua: diagc sweep SPEC.lua --out DIR -- generate and compile the
-- model once, then run it many times with other parameters, initial
-- states or inputs (a grid, the rows of a CSV file, or seeded random
-- samples: cli/sweep_samples.lua) through the runtime's batch
-- (diagc/batch.h: a thread pool, --jobs; cli/sweep_batch.lua, with the
-- sources the samples set from cli/sweep_plan.lua) or over MPI ranks
-- (--mpi: cli/sweep_mpi.lua), and write each run's log and a summary
-- (cli/sweep_out.lua) with the user's metrics (cli/sweep_metrics.lua).
-- Each run's CSV and its summary cells are formatted and written by the
-- batch's thread that ran it (its output step); this thread joins the
-- summary rows and runs the metrics.  docs/sweep.md, "What runs where".
local ffi = require("ffi")
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local run = require("diagc.cli.run")
local model = require("diagc.testing.model")
local dffi = require("diagc.testing.ffi")
local samples = require("diagc.cli.sweep_samples")
local out = require("diagc.cli.sweep_out")
local metrics_mod = require("diagc.cli.sweep_metrics")

local M = {}
local CMD = "diagc sweep"

local FLAGS = {
  ["--out"] = true, ["--jobs"] = true, ["--samples"] = true, ["--random"] = true, ["--seed"] = true,
  ["--uniform"] = true, ["--normal"] = true, ["--metrics"] = true, ["--max-rows"] = true, ["--mpi"] = false,
}
for _, k in ipairs({ "--until", "--integrator", "--step", "--accuracy", "-p", "--max-step", "--state", "--input",
  "--no-finite-check", "--jacobian", "--max-steps", "--progress", "--no-progress" }) do
  FLAGS[k] = run.FLAGS[k]
end
local MULTI = { ["-p"] = true, ["--state"] = true, ["--input"] = true, ["--uniform"] = true, ["--normal"] = true }

-- the most rows one run may keep, and the memory of one chunk of runs
M.MAX_ROWS = 10000000
M.DEFAULT_STEP_ROWS = 100000
local CHUNK_BYTES = 64 * 1024 * 1024

local function host() return require("diagc_host") end

local sbatch = require("diagc.cli.sweep_batch")
local sim_options, rows_bound, new_batch, run_chunk = sbatch.sim_options, sbatch.rows_bound, sbatch.new_batch,
  sbatch.run_chunk
local columns, status_text = sbatch.columns, sbatch.status_text
local set_output, write_chunk, summary_cells = sbatch.set_output, sbatch.write_chunk, sbatch.summary_cells
local plan = require("diagc.cli.sweep_plan").plan

-- A progress bar on stderr: runs done of n, at most 10 times a second.
local function progress(n)
  local t0, last, shown = host().now(), 0, false
  local width = 40
  return function(done)
    local now = host().now()
    if done < n and now - last < 0.1 then return end
    last, shown = now, true
    local k = math.floor(done / n * width + 0.5)
    io.stderr:write(string.format("\r[%s%s] %3d%%  %d / %d runs  %.1f s", string.rep("#", k),
      string.rep(".", width - k), math.floor(done / n * 100), done, n, now - t0))
    io.stderr:flush()
  end, function()
    if shown then io.stderr:write("\r\27[K"); io.stderr:flush() end
  end
end

function M.main(args, env)
  env = env or {}
  local o, pos = cli.parse(args, { flags = FLAGS, multi = MULTI }, CMD)
  if #pos ~= 1 then
    errors.raise(nil, "%s: expected one spec file, as in: %s spec.lua -p sys.k=1:1:10 --out results", CMD, CMD)
  end
  if not o["--out"] then errors.raise(nil, "%s: give the folder to write with --out DIR", CMD) end
  local t_end, opts = run.options(o, CMD)
  if opts.integrator == "cvode_bdf" then
    errors.raise(nil, "%s: --integrator cvode_bdf: a sweep runs the built-in integrators; choose radau5 or "
      .. "implicit_euler for a stiff model", CMD)
  end
  local fixed, axes = samples.options(CMD, o)
  local modes = (#axes > 0 and 1 or 0) + (o["--samples"] and 1 or 0) + (o["--random"] and 1 or 0)
  if modes == 0 then
    errors.raise(nil, "%s: nothing to sweep: give a range (-p NAME=START:STEP:STOP), --samples FILE.csv or "
      .. "--random N with --uniform/--normal", CMD)
  end
  if modes > 1 then
    errors.raise(nil, "%s: give one kind of samples: ranges, --samples or --random, not several", CMD)
  end
  if not o["--random"] then
    for _, k in ipairs({ "--seed", "--uniform", "--normal" }) do
      if o[k] then errors.raise(nil, "%s: %s goes with --random N", CMD, k) end
    end
  end
  local jobs = o["--jobs"] and cli.number(CMD, "--jobs", o["--jobs"], { min = 0, max = 256, integer = true }) or 0
  local max_rows_opt = o["--max-rows"] and cli.number(CMD, "--max-rows", o["--max-rows"],
    { min = 1, max = M.MAX_ROWS, integer = true })
  local mpi = o["--mpi"] and require("diagc.cli.sweep_mpi").load(CMD)
  local metrics = o["--metrics"] and metrics_mod.load(CMD, o["--metrics"])

  local m = model.jit(pos[1])
  dffi.header(host().include_dir(), "batch.h")
  run.check_bounds(m, 0, t_end, opts)
  local S
  if #axes > 0 then S = samples.grid(CMD, axes)
  elseif o["--samples"] then S = samples.csv(CMD, m, o["--samples"])
  else S = samples.random(CMD, m, o) end

  local desc = m.desc
  local R = max_rows_opt or rows_bound(desc, t_end) or M.DEFAULT_STEP_ROWS
  if R > M.MAX_ROWS then
    errors.raise(nil, "%s: each run would log up to %d rows, more than the limit of %d; log less often or "
      .. "shorten --until", CMD, R, M.MAX_ROWS)
  end
  local lw = tonumber(ffi.C.diagc_batch_log_width(desc))
  local per_run = R * (8 + 8 * lw + desc.n_loggers) + 512
  local workers = jobs > 0 and jobs or 4
  local chunk = math.max(1, math.min(math.floor(CHUNK_BYTES / per_run), 256,
    math.max(2 * workers, math.ceil(S.n / 20)), S.n))

  -- the base context: defaults, then the fixed options
  local base = m:context()
  local assign = require("diagc.cli.assign")
  for _, f in ipairs(fixed) do assign.apply(m, base, f[1], f[2], CMD) end
  if opts.accuracy then base:set("accuracy", opts.accuracy) end
  local set, width, check, fill = plan(m, base, S, fixed)
  local vals = {}
  for i = 1, S.n do
    vals[i] = S.value(i)
    check(i, vals[i])
  end
  -- the batch that runs, with the sample sources (its default context is
  -- the base: the fixed options applied)
  local b = new_batch(m, opts, jobs, R, chunk, width)
  ffi.copy(ffi.C.diagc_batch_context(b.ptr), base.ptr, desc.context_size)
  local set_arr = ffi.new("int[?]", math.max(1, #set))
  for k, src in ipairs(set) do set_arr[k - 1] = src end
  b.job.n_set, b.job.set, b.set_arr = #set, set_arr, set_arr
  b.job.t_final = t_end
  local n_chunks = math.ceil(S.n / chunk)
  local function chunk_values(c, dst)
    local first = c * chunk
    local count = math.min(chunk, S.n - first)
    for k = 0, count - 1 do fill(vals[first + k + 1], dst + k * width) end
    return first, count
  end

  local rank = 0
  if mpi then rank = mpi.init() end
  local function fail_all(e)
    if mpi then mpi.abort(e) end
    error(e, 0)
  end

  if rank ~= 0 then
    local ok, e = pcall(mpi.worker, b, chunk, width, S.n, run_chunk)
    if not ok then fail_all(e) end
    mpi.finalize()
    return 0
  end

  -- rank 0 (or the only process): the output
  local w = out.open(CMD, o["--out"], S.n)
  local runs_dir, runs_shown = out.runs_dir(w)
  set_output(b, runs_dir, runs_shown, S.n)
  local cols = columns(desc)
  local header = { "run", "status" }
  for _, nm in ipairs(S.names) do header[#header + 1] = out.cell(nm) end
  header[#header + 1] = "t_end"
  for _, c in ipairs(cols) do
    for _, s in ipairs({ "final", "min", "max" }) do header[#header + 1] = out.cell(c .. "." .. s) end
  end
  for _, mt in ipairs(metrics or {}) do header[#header + 1] = out.cell(mt.name) end
  header[#header + 1] = "message"
  local rows, failed, unwritten = {}, 0, 0
  local num = dffi.number_text
  local timeout = env.timeout or 60
  local show_progress = (o["--progress"] or host().isatty(2)) and not o["--no-progress"]
  local tick, clear = progress(S.n)
  local done = 0

  -- a chunk's summary rows, once its runs are written (the batch's
  -- threads wrote each run's CSV and its summary cells); the metrics run
  -- here, on this thread
  local function process(first, count)
    local j = b.job
    for k = 0, count - 1 do
      local i = first + k + 1
      local rc = tonumber(j.status[k])
      if rc < 0 then
        failed = failed + 1
        if rc == ffi.C.DIAGC_CSV_E_IO then unwritten = unwritten + 1 end
      end
      local cells = { tostring(i), status_text(rc) }
      for _, v in ipairs(vals[i]) do cells[#cells + 1] = num(v) end
      cells[#cells + 1] = summary_cells(b, k)
      if metrics then
        local values = {}
        if rc >= 0 then
          local sample = {}
          for jn, nm in ipairs(S.names) do sample[nm] = vals[i][jn] end
          values = metrics_mod.evaluate(o["--metrics"], metrics, metrics_mod.log(b, k, cols), sample, timeout, i)
        end
        for _, mt in ipairs(metrics) do
          local v = values[mt.name]
          cells[#cells + 1] = v and num(v) or ""
        end
      end
      cells[#cells + 1] = out.cell(ffi.string(j.messages + k * dffi.const.DIAGC_BATCH_MESSAGE))
      rows[i] = table.concat(cells, ",")
    end
    done = done + count
    if show_progress then tick(done) end
  end

  local ok, e = pcall(function()
    if mpi and mpi.size > 1 then
      mpi.master(b, n_chunks, chunk_values, function()
        local first, count = write_chunk(b, S.n)
        out.track(w, first + 1, count)
        process(first, count)
      end, S.n, o["--out"], function() return done end)
    else
      for c = 0, n_chunks - 1 do
        local first, count = chunk_values(c, b.set_values)
        out.track(w, first + 1, count)
        run_chunk(b, first, count)
        process(first, count)
      end
    end
    if show_progress then clear() end
    out.finish(w, table.concat(header, ","), rows)
  end)
  if not ok then
    if show_progress then clear() end
    out.abandon(w)
    fail_all(e)
  end
  if mpi then mpi.finalize() end
  if failed > 0 then
    io.stderr:write(string.format("%s: %d of %d runs failed%s; their status and message are in %s/summary.csv\n",
      CMD, failed, S.n, unwritten > 0 and string.format(" (%d could not write their CSV)", unwritten) or "",
      o["--out"]))
  end
  return 0
end

return M
