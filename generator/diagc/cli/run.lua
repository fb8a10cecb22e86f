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
}

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
  if o["--csv"] then
    f = C.fopen(o["--csv"], "w")
    if f == nil then errors.raise(nil, "diagc run: cannot write '%s'", o["--csv"]) end
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
  -- step boundaries and change the results
  local t0 = host.now()
  local rc = C.diagc_sim_initialize(sim.sim)
  if rc < 0 then fail(rc) end
  rc = C.diagc_sim_advance_to(sim.sim, t_end)
  if rc < 0 then fail(rc) end
  if rc == 1 then
    io.stderr:write(string.format("diagc run: an event handler reached termination at t = %.17g\n",
      C.diagc_sim_time(sim.sim)))
  end
  C.fflush(f)
  if o["--csv"] then C.fclose(f) end
  if w.error ~= 0 then errors.raise(nil, "diagc run: writing the CSV failed") end
  if o["--stats"] then
    local st = sim:stats()
    io.stderr:write(string.format(
      "steps %d, integrator steps %d, rejected %d, derivative evaluations %d, smallest step %g, largest step %g, wall %.3f s\n",
      tonumber(st.steps), tonumber(st.integrator_steps), tonumber(st.rejected_steps),
      tonumber(st.derivative_evals), st.smallest_step, st.largest_step, host.now() - t0))
  end
  return 0
end

return M
