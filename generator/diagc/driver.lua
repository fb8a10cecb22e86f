-- driver.lua: the diagc command line.  Dispatches to a subcommand and
-- turns diagc errors into one line on stderr and exit status 2.
local errors = require("diagc.errors")
local compile = require("diagc.compile")

-- the control library linearizes a world at generation through the
-- pipeline, a later stage it may not require (lib/plant.lua)
require("diagc.lib.plant").provide(function(world, at)
  return require("diagc.testing.world_plant").linearize(world, at)
end)

local M = {}

local USAGE = [[
usage: diagc SPEC.lua -o OUT.c [--name PREFIX] [--no-check] [--no-jacobian]
                     [--info OUT.json]
       diagc run SPEC.lua [--until T] [--csv FILE] [--integrator NAME] [--step H]
                          [--accuracy A] [--max-step H] [--max-steps N]
                          [-p system.param=value ...]
                          [--state system.name=value ...] [--input name=value ...]
                          [--jacobian model|fd] [--stats] [--plot FILE.png] [--html PAGE.html]
                          [--plot-signals NAME,...] [--progress | --no-progress]
                          [--no-finite-check]
       diagc sweep SPEC.lua --out DIR [-p NAME=START:STEP:STOP ... | --samples FILE.csv
                          | --random N [--seed S] --uniform NAME=LO:HI --normal NAME=MEAN:SD]
                          [--metrics FILE.lua] [--jobs N] [--mpi] [--max-rows N] [run options]
       diagc linearize SPEC.lua [--mode linearize|first_order_taylor] [-p ...] [--state ...]
                                [--input name=value ...] [--time T] [--input-port NAME]
                                [--output-port NAME] [--jacobian model|fd] [--tolerance E]
                                [--format text|json|csv] [--eig] [-o FILE]
       diagc trim SPEC.lua [--free NAME,...] [--fix NAME,...] [--target NAME=V,...]
                           [--deriv NAME=V,...] [--free-deriv NAME,...] [-p ...] [--state ...]
                           [--input ...] [--time T] [--jacobian model|fd] [--tolerance E]
                           [--max-iterations N] [--json] [-o FILE]
       diagc graph SPEC.lua [-o FILE.dot] [--all]
       diagc info SPEC.lua [--json] [-o FILE]
       diagc view SPEC.lua [-o PAGE.html] [--csv FILE | run options]
       diagc test [FILE|DIR ...] [--filter PATTERN] [--timeout S]
       diagc deploy SPEC.lua [-o APP.c] [--run] [--duration S] [--threads N] [--cc CC]
                             [--no-check]
       diagc --help | --version

  SPEC.lua -o OUT.c  generate OUT.c and OUT.h (C99, no heap, no globals);
                     --no-jacobian: without the state Jacobian P_jac_xc
                     (docs/jacobians.md); --info: also info --json's
                     document, from the same generation
  run                compile in-process with TinyCC, simulate, print logged
                     outputs as CSV (header t,<logger names>); --integrator:
                     runge_kutta3 (default), explicit_euler,
                     semi_explicit_euler, runge_kutta2, runge_kutta4,
                     bogacki_shampine3, dormand_prince54, implicit_euler,
                     radau3, radau5, or cvode_bdf (the optional CVODE
                     backend, docs/simulator.md); --jacobian: the implicit
                     integrators' Jacobian, the model's generated one or
                     finite differences (docs/jacobians.md); --max-steps: the
                     step-count limit (default 1e9, docs/simulator.md)
  sweep              compile once, run many times (a grid, a CSV of samples,
                     seeded random samples) on --jobs threads or MPI ranks
                     (--mpi); a CSV per run and summary.csv in DIR
                     (docs/sweep.md)
  linearize          A, B, C, D at an operating point (Drake's Linearize, or
                     first_order_taylor with its affine terms), with the
                     names of the states, inputs and outputs; a sampled
                     loop in discrete time; --eig: the eigenvalues
  trim               an operating point where chosen derivatives vanish and
                     chosen outputs hit targets (Newton), printed as the
                     --state / --input flags of linearize and run
  graph              the diagram and its ticket graph as Graphviz DOT
  info               the model's systems, ports, states, parameters, events
                     and loggers (text, or JSON with --json)
  view               one self-contained HTML page: the diagram as blocks and
                     the logged signals as plots, from a run (the options
                     of run) or from --csv FILE (docs/viewer.md); run
                     --html PAGE writes it after a run
  test               run Lua test files that JIT-compile models
  deploy             one model per subsystem of the root diagram, wired over
                     topics, on the executor (docs/executor.md); --run builds
                     and runs the app
  --debug            show Lua tracebacks for errors (any command)
  --package-path P   P = DIR[:DIR...]: folders holding the ROS packages that
                     package:// mesh names refer to (before ROS_PACKAGE_PATH)
  --timeout S        stop with an error after S seconds of evaluating the
                     spec and generating (any command but test, where it is
                     the per-test limit; default 60; 0: none); the simulation
                     of run and the app of deploy --run are not limited
]]

M.DEFAULT_TIMEOUT = 60 -- seconds, for every command but test (docs/security.md)

-- checked: a failed write (a full disk) prints an error and gives status 1
local function out(s, code) return require("diagc.cli.output").stdout_status(s, code) end

-- One command's part of USAGE: its usage lines (the line naming it and
-- the continuation lines indented below it) and its description (its row
-- and the rows indented below it), then the global options' rows.
local function command_help(cmd)
  local lines, usage, desc, globals = {}, {}, {}, {}
  for line in USAGE:gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
  local i = 1
  while i <= #lines do
    local line = lines[i]
    local u = line:match("^usage: diagc (%S+)") or line:match("^       diagc (%S+)")
    local d = line:match("^  (%S+)")
    local group = u == cmd and usage or d == cmd and desc or d and d:match("^%-%-") and globals
    if (u or d) and group then
      group[#group + 1] = (line:gsub("^usage: ", "       "))
      i = i + 1
      while lines[i] and lines[i]:match("^%s%s%s%s%s%s%s%s%s%s%s") and not lines[i]:match("^       diagc ") do
        group[#group + 1] = lines[i]
        i = i + 1
      end
    else
      i = i + 1
    end
  end
  usage[1] = "usage: " .. usage[1]:gsub("^%s+", "")
  return table.concat(usage, "\n") .. "\n\n" .. table.concat(desc, "\n") .. "\n"
    .. table.concat(globals, "\n") .. "\n"
end
M.command_help = command_help

-- 1 when args (a subcommand's) ask for its help before any "--"
local function wants_help(args)
  for i = 2, #args do
    if args[i] == "--" then return false end
    if args[i] == "--help" or args[i] == "-h" then return true end
  end
  return false
end

local subcommands = {
  run = "diagc.cli.run",
  sweep = "diagc.cli.sweep",
  linearize = "diagc.cli.linearize",
  trim = "diagc.cli.trim",
  graph = "diagc.cli.graph",
  deploy = "diagc.cli.deploy",
  info = "diagc.cli.info",
  view = "diagc.cli.view",
  test = "diagc.testing.runner",
}

-- A value that is safe to print: a string as is, anything else described
-- without running its metamethods.
local function safe_text(e)
  if type(e) == "string" then return e end
  return errors.describe(e)
end

-- Strips the global options (--debug anywhere; --package-path DIR[:DIR]
-- for package:// mesh names (world/mesh.lua); --timeout S, except for
-- `diagc test`, whose --timeout is its per-test limit).  Returns the
-- remaining args, debug mode and the timeout in seconds.
local function global_options(args)
  local debug_mode, timeout = false, M.DEFAULT_TIMEOUT
  -- the subcommand: the first argument that is not a global option
  local is_test, j = false, 1
  while args[j] == "--debug" or args[j] == "--timeout" or (args[j] or ""):match("^%-%-timeout=") do
    j = j + (args[j] == "--timeout" and 2 or 1)
  end
  if args[j] == "test" then
    -- every --timeout is the runner's; the subcommand goes first
    local rest = { "test" }
    for k, a in ipairs(args) do
      if a == "--debug" then debug_mode = true elseif k ~= j then rest[#rest + 1] = a end
    end
    return rest, debug_mode, 0
  end
  local rest, i = {}, 1
  local mesh = require("diagc.world.mesh")
  mesh.package_path = {}
  while i <= #args do
    local a = args[i]
    local tval = a == "--timeout" and (args[i + 1] or "") or a:match("^%-%-timeout=(.*)$")
    local pval = a == "--package-path" and args[i + 1] or a:match("^%-%-package%-path=(.*)$")
    if a == "--debug" then
      debug_mode = true
    elseif a == "--package-path" and args[i + 1] == nil then
      errors.raise(nil, "--package-path expects folders DIR[:DIR...] that hold ROS packages (for package:// mesh names)")
    elseif pval then
      -- folders holding the packages of package:// mesh names (world/mesh.lua)
      for dir in pval:gmatch("[^:]+") do mesh.package_path[#mesh.package_path + 1] = dir end
      if a == "--package-path" then i = i + 1 end
    elseif tval then
      local v = tonumber(tval)
      if not v or v ~= v or v < 0 or v == math.huge then
        errors.raise(nil, "--timeout expects a number of seconds >= 0 (0: no limit), got '%s'", tval)
      end
      timeout = v
      if a == "--timeout" then i = i + 1 end
    else
      rest[#rest + 1] = a
    end
    i = i + 1
  end
  return rest, debug_mode, timeout
end

-- Arms the wall-clock limit in the host (a signal: it also stops loops in
-- JIT-compiled spec code, which never run hooks).
local function arm_timeout(args, seconds)
  if seconds <= 0 then return end
  local ok, host = pcall(require, "diagc_host")
  if not ok or not host.set_timeout then return end
  local spec
  for _, a in ipairs(args) do
    if a:match("%.lua$") then spec = a; break end
  end
  host.set_timeout(seconds, "diagc: " .. errors.sanitize((spec and spec .. ": " or "")
    .. string.format("timed out after %g s (a spec that never ends?); ", seconds)
    .. "raise the limit with --timeout S (0: none)"))
end

function M.main(args)
  local gok, rest, debug_mode, timeout = pcall(global_options, args)
  if not gok then
    io.stderr:write("diagc: " .. errors.format(rest) .. "\n")
    return 2
  end
  args = rest
  if #args == 0 then -- a usage error: one line on stderr, as every error
    io.stderr:write("diagc: no spec or command given: diagc SPEC.lua -o OUT.c "
      .. "generates C; 'diagc --help' lists the commands\n")
    return 2
  end
  if args[1] == "--help" or args[1] == "-h" or args[1] == "help" then
    return out(USAGE, 0)
  end
  if args[1] == "--version" then
    return out("diagc " .. compile.VERSION .. "\n", 0)
  end
  if subcommands[args[1]] and wants_help(args) then
    return out(command_help(args[1]), 0)
  end
  arm_timeout(args, timeout)
  local ok, res = xpcall(function()
    local sub = subcommands[args[1]]
    if sub then
      local a = {}
      for i = 2, #args do a[#a + 1] = args[i] end
      return require(sub).main(a, { debug = debug_mode, timeout = timeout })
    end
    return require("diagc.cli.generate").main(args, { debug = debug_mode })
  end, function(e)
    if errors.is(e) then
      if debug_mode then e.trace = debug.traceback("", 2) end
      return e
    end
    return { internal = true, msg = safe_text(e), trace = debug.traceback("", 2) }
  end)
  if ok then return res or 0 end
  if res == "not enough memory" or (type(res) == "table" and res.msg == "not enough memory"
      and res.internal) then
    -- the Lua heap limit (the message handler does not run for it)
    collectgarbage()
    local host_ok, host = pcall(require, "diagc_host")
    local mib = host_ok and host.memory_limit and math.floor(host.memory_limit() / 1048576) or 0
    io.stderr:write(string.format("diagc: the Lua heap reached its limit of %d MiB "
      .. "(a spec too large, or building huge strings or tables); make the spec smaller\n", mib))
    return 2
  end
  if errors.is(res) then
    io.stderr:write("diagc: " .. errors.format(res) .. "\n")
    if rawget(res, "trace") then io.stderr:write(res.trace .. "\n") end
    return 2
  end
  if type(res) ~= "table" then res = { msg = safe_text(res), trace = "" } end
  io.stderr:write("diagc: internal error: " .. errors.sanitize(res.msg) .. "\n" .. res.trace .. "\n")
  return 70
end

return M
