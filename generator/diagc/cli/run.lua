-- cli/run.lua: diagc run SPEC.lua -- compile in-process with TinyCC, link
-- the runtime (it lives in this executable), simulate, write the logged
-- outputs as CSV (header t,<logger names>; one row per sample time).
local ffi = require("ffi")
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local model = require("diagc.testing.model")
local dffi = require("diagc.testing.ffi")
local output = require("diagc.cli.output")
local bounds = require("diagc.cli.bounds")
local assign = require("diagc.cli.assign")
local cvode = require("diagc.testing.cvode")
local stiffness = require("diagc.cli.stiffness")
local plot = require("diagc.cli.plot")
local firings = require("diagc.cli.firings")
local open_firings

local M = {}

local FLAGS = {
  ["--until"] = true, ["--csv"] = true, ["--integrator"] = true, ["--step"] = true,
  ["--accuracy"] = true, ["-p"] = true, ["--stats"] = false, ["--max-step"] = true,
  ["--plot"] = true, ["--progress"] = false, ["--no-progress"] = false,
  ["--state"] = true, ["--input"] = true, ["--no-finite-check"] = false,
  ["--jacobian"] = true, ["--max-steps"] = true, ["--html"] = true, ["--plot-signals"] = true,
}
local MULTI = { ["-p"] = true, ["--state"] = true, ["--input"] = true }

-- the ranges of the numeric options (docs/simulator.md)
-- (--accuracy and --max-step: the same entries as the simulator options
-- of diagc test, testing/model.lua)
local RANGES = {
  ["--until"] = { min = 0 },
  ["--step"] = { min = 0, min_open = true },
  ["--max-step"] = model.option(model.SIM_OPTIONS, "max_step").range,
  ["--accuracy"] = model.option(model.SIM_OPTIONS, "accuracy").range,
  ["--max-steps"] = { min = 1, integer = true },
}

-- the names offered in "did you mean" hints; whether a name is known is
-- the runtime's answer (diagc_integrator_known)
local INTEGRATORS = { "runge_kutta3", "dormand_prince54", "bogacki_shampine3", "implicit_euler",
  "radau3", "radau5", "runge_kutta4", "runge_kutta2", "semi_explicit_euler", "explicit_euler", "cvode_bdf" }

local CMD = "diagc run"

-- the integrators without error control: always fixed steps
local FIXED_ONLY = { explicit_euler = true, runge_kutta2 = true, runge_kutta4 = true, semi_explicit_euler = true }

-- What the stiffness messages need to know about the run.
local function run_info(opts, t_end)
  local name = opts.integrator or "runge_kutta3"
  local fixed = opts.error_control == 0 or FIXED_ONLY[name]
  return { integrator = name, fixed_step = fixed and (opts.fixed_step or opts.max_step or 0.1) or nil,
    max_step = opts.max_step or 0.1, t_end = t_end }
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

-- Options -> t_end, simulator options.
local function parse_options(o)
  local function num(name)
    return o[name] and cli.number(CMD, name, o[name], RANGES[name]) or nil
  end
  local t_end = num("--until") or 1.0
  local opts = {}
  local integ = o["--integrator"]
  if integ == cvode.NAME then
    -- the optional backend, loaded now so that a missing one stops the
    -- run before the model is compiled
    local ok, why = cvode.load()
    if not ok then errors.raise(nil, "%s: %s", CMD, why) end
    opts.integrator = integ
  elseif integ then
    dffi.load(require("diagc_host").include_dir())
    if ffi.C.diagc_integrator_known(integ) == 0 then
      errors.raise(nil, "%s: unknown integrator '%s'%s", CMD, cli.show(integ), cli.hint(integ, INTEGRATORS, "integrators"))
    end
    opts.integrator = integ
  end
  opts.accuracy = num("--accuracy")
  opts.max_step = num("--max-step")
  opts.max_steps = num("--max-steps")
  local h = num("--step")
  if h and opts.integrator == cvode.NAME then
    errors.raise(nil, "%s: --step: cvode_bdf chooses its own steps; bound them with --max-step", CMD)
  end
  if h then
    if opts.max_step then
      errors.raise(nil, "%s: give --step (fixed steps) or --max-step (error control), not both", CMD)
    end
    opts.fixed_step, opts.max_step, opts.error_control = h, h, 0
  end
  -- the implicit integrators' Jacobian source (docs/simulator.md)
  local jac = o["--jacobian"]
  if jac then
    local known = false
    for _, name in ipairs(model.JACOBIAN_SOURCES) do known = known or name == jac end
    if not known then
      errors.raise(nil, "%s: unknown jacobian source '%s'%s", CMD, cli.show(jac),
        cli.hint(jac, model.JACOBIAN_SOURCES, "sources"))
    end
    opts.jacobian = jac
  end
  -- NaN/inf checks of states and logged values (docs/simulator.md)
  if o["--no-finite-check"] then opts.check_finite = 0 end
  return t_end, opts
end

-- Refuses a run that could not finish (cli/bounds.lua).
local function check_bounds(m, t0, t_end, opts)
  local step
  if m.desc.nxc > 0 then step = opts.max_step or 0.1 end
  local why = bounds.check(t0, t_end, { step = step, events = bounds.from_desc(m.desc), end_name = "--until",
    step_name = opts.fixed_step and "--step" or "--max-step", max_steps = opts.max_steps,
    max_steps_name = "--max-steps" })
  if why then errors.raise(nil, "%s: %s", CMD, why) end
end

-- Where the CSV goes: {file = FILE*, tmp = path or nil, target = path or nil}.
local function open_csv(C, path, inputs)
  if not path then
    io.stdout:flush()
    local f = C.fdopen(1, "w")
    if f == nil then
      errors.raise(nil, "%s: cannot write to standard output: %s", CMD, ffi.string(C.strerror(ffi.errno())))
    end
    return { file = f, stdout = true }
  end
  local st = output.check_target(CMD, path, inputs)
  if st and st.kind ~= "file" then
    local f = C.fopen(path, "w")
    if f == nil then errors.raise(nil, "%s: cannot write '%s': %s", CMD, cli.show(path), ffi.string(C.strerror(ffi.errno()))) end
    return { file = f, target = path }
  end
  local real = st and output.real(path) or path
  local tmp, fh = output.temp_beside(real)
  if not tmp then errors.raise(nil, "%s: cannot write '%s': %s", CMD, cli.show(path), fh) end
  fh:close()
  local f = C.fopen(tmp, "w")
  if f == nil then
    local why = ffi.string(C.strerror(ffi.errno()))
    output.remove_temp(tmp)
    errors.raise(nil, "%s: cannot write '%s': %s", CMD, cli.show(path), why)
  end
  return { file = f, tmp = tmp, target = path, real = real }
end

-- Flushes and closes the CSV; an error names the file and the reason.
local function close_csv(C, out, w)
  local bad = C.fflush(out.file) ~= 0 or C.ferror(out.file) ~= 0 or w.error ~= 0
  local code = ffi.errno()
  if not out.stdout and C.fclose(out.file) ~= 0 and not bad then bad, code = true, ffi.errno() end
  out.file = nil
  if bad then
    output.remove_temp(out.tmp)
    local why = code ~= 0 and ffi.string(C.strerror(code)) or "write error"
    if out.stdout then errors.raise(nil, "%s: cannot write to standard output: %s", CMD, why) end
    errors.raise(nil, "%s: cannot write '%s': %s", CMD, cli.show(out.target), why)
  end
end

-- Drops a half-written CSV (the target keeps its old content).
local function abandon_csv(C, out)
  if out.file ~= nil and not out.stdout then C.fclose(out.file) end
  if out.file ~= nil and out.stdout then C.fflush(out.file) end
  out.file = nil
  output.remove_temp(out.tmp)
end

-- The firings beside a CSV in a regular file (cli/firings.lua), for a
-- model with events that are not periodic: to a temporary file beside
-- the CSV's side file (committed with the CSV), or beside the temporary
-- CSV of --plot / --html.  The writer is the simulator's event hook.
-- --html or --plot naming the firings' side file of --csv: a usage error,
-- raised before anything else is checked or written
local function check_firings_names(m, o)
  local target = o["--csv"] and firings.wanted_desc(m.desc) and firings.path(o["--csv"])
  if not target then return end
  for _, a in ipairs({ "--html", "--plot" }) do
    if o[a] == target then
      errors.raise(nil, "%s: %s names '%s', where the CSV's event firings go (docs/viewer.md); choose another name",
        CMD, a, cli.show(target))
    end
  end
end

open_firings = function(m, sim, o, inputs, t_end)
  if not firings.wanted_desc(m.desc) then return nil end
  local target = o["--csv"] and firings.path(o["--csv"])
  local real, tmp
  if target then
    real = output.check_target(CMD, target, inputs) and output.real(target) or target
    local fh
    tmp, fh = output.temp_beside(real)
    if not tmp then errors.raise(nil, "%s: cannot write '%s': %s", CMD, cli.show(target), fh) end
    fh:close()
  else
    tmp = output.temp(CMD, ".events.csv")
  end
  local ok, W = pcall(firings.open, CMD, sim.sim, m.desc, tmp, ffi.C.diagc_sim_time(sim.sim), t_end)
  if not ok then
    output.remove_temp(tmp)
    error(W, 0)
  end
  W.tmp, W.real, W.target = tmp, real, target
  return W
end

-- (diagc sweep runs with the same options: cli/sweep.lua)
function M.options(o, cmd)
  CMD = cmd
  return parse_options(o)
end
M.FLAGS = FLAGS
M.check_bounds = check_bounds

function M.main(args) return M.command(args, "diagc run") end

-- diagc run with `cmd` in the messages ("diagc view" runs the model
-- through here: cli/view.lua)
function M.command(args, cmd)
  CMD = cmd
  local o, pos = cli.parse(args, { flags = FLAGS, multi = MULTI }, CMD)
  if #pos ~= 1 then errors.raise(nil, "%s: expected one spec file, as in: %s spec.lua --until 1", CMD, CMD) end
  local t_end, opts = parse_options(o)
  if o["--plot-signals"] and not o["--plot"] then
    errors.raise(nil, "%s: --plot-signals chooses what --plot draws; give --plot FILE.png too", CMD)
  end
  if o["--plot"] and not plot.have_gnuplot() then
    errors.raise(nil, "%s: --plot needs gnuplot, which is not installed (scripts/install-deps.sh gnuplot-nox)", CMD)
  end
  if o["--plot"] and o["--csv"] and o["--plot"] == o["--csv"] then
    errors.raise(nil, "%s: --csv and --plot name the same file '%s'; give two files", CMD, cli.show(o["--csv"]))
  end
  for _, a in ipairs({ "--csv", "--plot" }) do
    if o["--html"] and o["--html"] == o[a] then
      errors.raise(nil, "%s: %s and the page name the same file '%s'; give two files", CMD, a, cli.show(o[a]))
    end
  end
  local m = model.jit(pos[1])
  local C = ffi.C
  dffi.stdio()
  local inputs = require("diagc.cli.generate").inputs(m.gen)
  -- the subplots (a bad --plot-signals name stops here, before the run)
  local panels = o["--plot"] and plot.panels(require("diagc.cli.info").loggers(m.gen), o["--plot-signals"], CMD)
  check_firings_names(m, o)
  if o["--plot"] then output.check_target(CMD, o["--plot"], inputs) end
  if o["--html"] then
    output.check_target(CMD, o["--html"], inputs)
    if m.desc.n_loggers == 0 then
      errors.raise(nil, "%s: the diagram logs nothing, so there is nothing to plot; add log { \"system.port\" } to it", CMD)
    end
    require("diagc.cli.page").check_bundle(CMD)
  end
  check_bounds(m, 0, t_end, opts)
  -- asked for by name, the model's Jacobian must exist: the first calc on
  -- the derivative path outside the differentiable subset is the error
  if o["--jacobian"] == "model" and m.gen.jac_xc_missing then
    local why = m.gen.jac_xc_missing
    errors.raise(why.loc, "%s", why.message)
  end

  local sim = m:simulator(opts)
  assign.apply_options(m, sim.context, o, CMD)
  -- the requested accuracy is also the context's accuracy (calcs may read it)
  if opts.accuracy then sim.context:set("accuracy", opts.accuracy) end
  if m.desc.n_loggers == 0 then
    io.stderr:write("diagc run: warning: the diagram logs nothing; add log { \"sys.port\" } to it\n")
  end

  -- with --plot, the CSV goes to a temporary file when not asked for
  local plot_csv
  -- (and with --html)
  if (o["--plot"] or o["--html"]) and not o["--csv"] then plot_csv = output.temp(CMD, ".csv") end
  local out = open_csv(C, o["--csv"] or plot_csv, inputs)
  if o["--html"] and not (out.tmp or plot_csv) then
    abandon_csv(C, out)
    errors.raise(nil, "%s: the page is drawn from the CSV in a file: give --csv a regular file, or leave --csv out", CMD)
  end
  local w = ffi.new("diagc_csv_writer")
  C.diagc_csv_writer_init(w, m.desc, out.file)
  C.diagc_csv_write_header(w)
  C.diagc_sim_set_log_callback(sim.sim, ffi.cast("diagc_log_fn", C.diagc_csv_log_callback), w)
  local fire
  if out.tmp and (o["--csv"] or o["--html"]) then
    local ok, e = pcall(open_firings, m, sim, o, inputs, t_end)
    if not ok then
      abandon_csv(C, out)
      output.remove_temp(plot_csv)
      error(e, 0)
    end
    fire = e
  end

  local host = require("diagc_host")
  local function fail()
    local msg = sim:error()
    abandon_csv(C, out)
    if fire then fire.abandon(); output.remove_temp(fire.tmp) end
    output.remove_temp(plot_csv)
    errors.raise(nil, "%s: simulation failed: %s%s", CMD, msg,
      stiffness.failure_suffix(msg, sim:stats(), run_info(opts, t_end)))
  end
  -- one AdvanceTo: splitting the run (e.g. for a progress bar) would add
  -- step boundaries and change the results; the progress bar is drawn from
  -- the simulator's per-step hook instead
  local t0 = host.now()
  local rc = C.diagc_sim_initialize(sim.sim)
  if rc < 0 then fail() end
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
  if rc < 0 then fail() end
  if rc == C.DIAGC_SIM_TERMINATED then
    io.stderr:write(string.format("diagc run: an event handler reached termination at t = %.17g\n",
      C.diagc_sim_time(sim.sim)))
  end
  -- from here on, an error drops the CSV's temporary files
  local function guarded(f, ...)
    local ok, e = pcall(f, ...)
    if not ok then
      output.remove_temp(plot_csv)
      output.remove_temp(out.tmp)
      if fire then output.remove_temp(fire.tmp) end
      error(e, 0)
    end
  end
  guarded(close_csv, C, out, w)
  if fire then
    guarded(fire.close)
    firings.note(CMD, fire)
  end
  local warn = stiffness.warning(sim:stats(), run_info(opts, t_end))
  if warn then io.stderr:write(warn) end
  if o["--plot"] then
    if tonumber(w.rows) == 0 or #panels == 0 then
      if m.desc.n_loggers > 0 then
        io.stderr:write("diagc run: warning: nothing was logged, so no plot was drawn\n")
      end
    else
      guarded(plot.draw, CMD, out.tmp or plot_csv, o["--plot"], require("diagc.util").basename(pos[1]), panels)
    end
  end
  if o["--html"] then
    guarded(function()
      if tonumber(w.rows) == 0 then
        errors.raise(nil, "%s: the run logged no samples, so there is nothing to show; run it longer (--until) or "
          .. "log a port every step", CMD)
      end
      require("diagc.cli.page").write(CMD, m.gen, pos[1], out.tmp or plot_csv, o["--html"], inputs,
        fire and fire.tmp, fire and fire.target)
    end)
  end
  if plot_csv then -- only the plot's or the page's: nothing to keep
    output.remove_temp(out.tmp)
    output.remove_temp(plot_csv)
    if fire then output.remove_temp(fire.tmp) end
  elseif out.tmp then
    -- the firings first: a CSV in place always has its own beside it
    if fire then output.commit(CMD, fire.tmp, fire.real, fire.target) end
    output.commit(CMD, out.tmp, out.real, out.target)
  end
  if o["--stats"] then
    local st = sim:stats()
    -- the step sizes only when the integrator took a step (a model without
    -- continuous state has none to report)
    local sizes = tonumber(st.integrator_steps) > 0
      and string.format(", smallest step %g, largest step %g", st.smallest_step, st.largest_step) or ""
    io.stderr:write(string.format(
      "steps %d, integrator steps %d, rejected %d, derivative evaluations %d%s, wall %.3f s\n",
      tonumber(st.steps), tonumber(st.integrator_steps), tonumber(st.rejected_steps),
      tonumber(st.derivative_evals), sizes, host.now() - t0))
    if opts.integrator == cvode.NAME then
      io.stderr:write(string.format("integrator cvode_bdf (%s), ",
        cvode.describe(st.jacobian_source == dffi.const.DIAGC_JACOBIAN_MODEL)))
    end
    if st.jacobian_evals > 0 then
      io.stderr:write(string.format(
        "jacobians %d (%s), LU factorizations %d, newton iterations %d, newton failures %d\n",
        tonumber(st.jacobian_evals),
        st.jacobian_source == dffi.const.DIAGC_JACOBIAN_MODEL and "the model's generated Jacobian"
          or "finite differences",
        tonumber(st.lu_factorizations),
        tonumber(st.newton_iterations), tonumber(st.newton_failures)))
    end
    if st.witness_triggers > 0 then
      io.stderr:write(string.format("witness crossings %d\n", tonumber(st.witness_triggers)))
    end
    local line = stiffness.stats_line(st)
    if line then io.stderr:write(line) end
    M.world_stats(m, sim)
  end
  return 0
end

-- --stats of every world (docs/world.md): contact steps that ran out of
-- LCP work or dropped contacts (contact_overflow = "drop"), the contacts
-- dropped in all, from the world's info state
function M.world_stats(m, sim)
  for _, ctx in ipairs(m.gen.flat.leaves) do
    if ctx.type.world then
      local info = sim.context:get(ctx.path .. ".info")
      local W = ctx.type.world
      -- worlds with effort limits (world/limits.lua): info[9], info[10];
      -- the last entry: the steps whose LCP was left inexact
      local effort = #info >= 11 and string.format(", steps with an effort clamped %d (last step: %d efforts)",
        info[10], info[9]) or ""
      effort = effort .. string.format(", steps with an LCP left inexact %d", info[#info])
      io.stderr:write(string.format("world %s: steps over the LCP work budget %d, steps with contacts "
        .. "dropped (max_contacts = %d) %d, contacts dropped %d%s; last step: contacts %d, dropped %d, "
        .. "LCP residual %g\n", ctx.path, info[6], W.max_collide or W.max_contacts, info[7], info[8], effort, info[1],
        info[5], info[3]))
    end
  end
end

return M
