-- cli/run.lua: diagc run SPEC.lua -- compile in-process with TinyCC, link
-- the runtime (it lives in this executable), simulate, write the logged
-- outputs as CSV (header t,<logger names>; one row per sample time).
local ffi = require("ffi")
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local model = require("diagc.testing.model")

local M = {}

local FLAGS = {
  ["--until"] = true, ["--csv"] = true, ["--integrator"] = true, ["--step"] = true,
  ["--accuracy"] = true, ["-p"] = true, ["--stats"] = false, ["--max-step"] = true,
  ["--plot"] = true, ["--progress"] = false, ["--no-progress"] = false,
  ["--no-finite-check"] = false,
}

-- shell-quote a path for os.execute
local function shq(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

-- gnuplot on PATH?
local function have_gnuplot()
  local p = io.popen("command -v gnuplot 2>/dev/null")
  local r = p and p:read("*l")
  if p then p:close() end
  return r ~= nil and r ~= ""
end

-- Draws the CSV (header t,<columns>) into a PNG with gnuplot: one line per
-- column against t; columns of loggers with other periods have gaps, which
-- gnuplot skips.  Raises a diagc error on failure.
local function plot(csv_path, png_path, title)
  local f = io.open(csv_path, "r")
  local header = f and f:read("*l")
  if f then f:close() end
  if not header then errors.raise(nil, "diagc run: --plot: the model logged nothing (declare log { ... } in the diagram)") end
  local ncol = select(2, header:gsub(",", ",")) + 1
  if ncol < 2 then errors.raise(nil, "diagc run: --plot: the model has no loggers to plot") end
  local script = os.tmpname()
  local function write_script(term)
    local g = assert(io.open(script, "w"))
    g:write(string.format([[
set terminal %s size 1000,600
set output %s
set datafile separator ","
set datafile missing ""
set title %s noenhanced
set xlabel "t [s]"
set grid
set key outside right top noenhanced
plot for [i=2:%d] %s using 1:i with lines lw 1.5 title columnheader(i)
]], term, string.format("%q", png_path), string.format("%q", title), ncol, string.format("%q", csv_path)))
    g:close()
  end
  local ok = false
  for _, term in ipairs({ "pngcairo", "png" }) do
    write_script(term)
    local rc = os.execute("gnuplot " .. shq(script) .. " 2>" .. shq(script .. ".err"))
    if rc == 0 or rc == true then ok = true; break end
  end
  local ef = io.open(script .. ".err", "r")
  local err = ef and ef:read("*a") or ""
  if ef then ef:close() end
  os.remove(script)
  os.remove(script .. ".err")
  if not ok then
    errors.raise(nil, "diagc run: --plot: gnuplot failed: %s", (err:gsub("%s+$", ""):match("[^\n]*$")) or "?")
  end
end

-- A progress bar on stderr, drawn at most 10 times a second once the run
-- has taken 0.3 s; cleared at the end.
local function progress_bar(host, t_start, t_end)
  local t0 = host.now()
  local last, shown, n = 0, false, 0
  local width = 40
  local function draw(t)
    local frac = t_end > t_start and (t - t_start) / (t_end - t_start) or 1
    if frac > 1 then frac = 1 end
    local k = math.floor(frac * width + 0.5)
    io.stderr:write(string.format("\r[%s%s] %3d%%  t = %.6g / %.6g  %.1f s",
      string.rep("#", k), string.rep(".", width - k), math.floor(frac * 100), t, t_end, host.now() - t0))
    io.stderr:flush()
  end
  local function on_step(_, t)
    n = n + 1
    if n % 64 ~= 0 then return end
    local now = host.now()
    if now - t0 < 0.3 or now - last < 0.1 then return end
    last, shown = now, true
    draw(t)
  end
  local function finish()
    if shown then io.stderr:write("\r\27[K"); io.stderr:flush() end
  end
  return on_step, finish
end

function M.main(args)
  local o, pos = cli.parse(args, { flags = FLAGS, multi = { ["-p"] = true } }, "diagc run")
  if #pos ~= 1 then errors.raise(nil, "diagc run: expected one spec file, as in: diagc run spec.lua --until 1") end
  local t_end = o["--until"] and cli.number("diagc run", "--until", o["--until"]) or 1.0
  if t_end < 0 or t_end ~= t_end then errors.raise(nil, "diagc run: --until must be >= 0") end
  local m = model.jit(pos[1])
  local C = ffi.C

  local opts = {}
  if o["--integrator"] then
    if C.diagc_integrator_known(o["--integrator"]) == 0 then
      errors.raise(nil, "diagc run: unknown integrator '%s'", o["--integrator"])
    end
    opts.integrator = o["--integrator"]
  end
  if o["--accuracy"] then opts.accuracy = cli.number("diagc run", "--accuracy", o["--accuracy"]) end
  if o["--max-step"] then opts.max_step = cli.number("diagc run", "--max-step", o["--max-step"]) end
  if o["--step"] then
    local h = cli.number("diagc run", "--step", o["--step"])
    if h <= 0 then errors.raise(nil, "diagc run: --step must be positive") end
    opts.fixed_step, opts.max_step, opts.error_control = h, h, 0
  end
  -- NaN/inf checks of states and logged values (docs/simulator.md)
  if o["--no-finite-check"] then opts.check_finite = 0 end
  local sim = m:simulator(opts)
  for _, kv in ipairs(o["-p"] or {}) do
    local name, val = kv:match("^([^=]+)=(.*)$")
    if not name then errors.raise(nil, "diagc run: -p expects system.param=value, got '%s'", kv) end
    local src = m.sources[name]
    if not src or src.kind ~= require("diagc.testing.ffi").const.DIAGC_SRC_PN then
      errors.raise(nil, "diagc run: -p %s: no numeric parameter named '%s'", kv, name)
    end
    local vals = {}
    for x in val:gmatch("[^,]+") do
      local v = tonumber(x)
      if not v then errors.raise(nil, "diagc run: -p %s: '%s' is not a number", kv, x) end
      vals[#vals + 1] = v
    end
    if #vals ~= src.size then
      errors.raise(nil, "diagc run: -p %s: parameter has %d values, got %d", kv, src.size, #vals)
    end
    sim.context:set(name, vals)
  end

  -- the requested accuracy is also the context's accuracy (calcs may read it)
  if opts.accuracy then sim.context:set("accuracy", opts.accuracy) end
  local f
  local csv_path = o["--csv"]
  local tmp_csv
  if o["--plot"] then
    if not have_gnuplot() then
      errors.raise(nil, "diagc run: --plot needs gnuplot, which is not installed (scripts/install-deps.sh gnuplot-nox)")
    end
    local pf = io.open(o["--plot"], "wb")
    if not pf then errors.raise(nil, "diagc run: --plot: cannot write '%s'", o["--plot"]) end
    pf:close()
    if not csv_path then
      tmp_csv = os.tmpname()
      csv_path = tmp_csv
    end
  end
  if csv_path then
    f = C.fopen(csv_path, "w")
    if f == nil then errors.raise(nil, "diagc run: cannot write '%s'", csv_path) end
  else
    io.stdout:flush()
    f = C.fdopen(1, "w")
  end
  local w = ffi.new("diagc_csv_writer")
  C.diagc_csv_writer_init(w, m.desc, f)
  C.diagc_csv_write_header(w)
  C.diagc_sim_set_log_callback(sim.sim, ffi.cast("diagc_log_fn", C.diagc_csv_log_callback), w)

  local host = require("diagc_host")
  local function fail(rc)
    C.fflush(f)
    errors.raise(nil, "diagc run: simulation failed: %s", ffi.string(C.diagc_sim_error(sim.sim)))
    return rc
  end
  -- one AdvanceTo: splitting the run (e.g. for a progress bar) would add
  -- step boundaries and change the results; the progress bar is drawn from
  -- the simulator's per-step hook instead
  local t0 = host.now()
  local rc = C.diagc_sim_initialize(sim.sim)
  if rc < 0 then fail(rc) end
  local want_progress = (o["--progress"] or host.isatty(2)) and not o["--no-progress"]
  local cb, finish
  if want_progress then
    local on_step
    on_step, finish = progress_bar(host, C.diagc_sim_time(sim.sim), t_end)
    cb = ffi.cast("diagc_progress_fn", on_step)
    C.diagc_sim_set_progress_callback(sim.sim, cb, nil)
  end
  rc = C.diagc_sim_advance_to(sim.sim, t_end)
  if cb then
    C.diagc_sim_set_progress_callback(sim.sim, nil, nil)
    cb:free()
    finish()
  end
  if rc < 0 then fail(rc) end
  if rc == 1 then
    io.stderr:write(string.format("diagc run: an event handler reached termination at t = %.17g\n",
      C.diagc_sim_time(sim.sim)))
  end
  C.fflush(f)
  if csv_path then C.fclose(f) end
  if w.error ~= 0 then errors.raise(nil, "diagc run: writing the CSV failed") end
  if o["--plot"] then
    local ok, err = pcall(plot, csv_path, o["--plot"], pos[1])
    if tmp_csv then os.remove(tmp_csv) end
    if not ok then error(err, 0) end
  end
  if o["--stats"] then
    local st = sim:stats()
    io.stderr:write(string.format(
      "steps %d, integrator steps %d, rejected %d, derivative evaluations %d, smallest step %g, largest step %g, wall %.3f s\n",
      tonumber(st.steps), tonumber(st.integrator_steps), tonumber(st.rejected_steps),
      tonumber(st.derivative_evals), st.smallest_step, st.largest_step, host.now() - t0))
    if st.witness_triggers > 0 then
      io.stderr:write(string.format("witness crossings %d\n", tonumber(st.witness_triggers)))
    end
  end
  return 0
end

return M
