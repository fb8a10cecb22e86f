-- driver.lua: the diagc command line.  Dispatches to a subcommand and
-- turns diagc errors into one line on stderr and exit status 2.
local errors = require("diagc.errors")
local compile = require("diagc.compile")

local M = {}

local USAGE = [[
usage: diagc SPEC.lua -o OUT.c [--name PREFIX] [--no-check]
       diagc run SPEC.lua [--until T] [--csv FILE] [--integrator NAME] [--step H]
                          [--accuracy A] [--max-step H] [-p system.param=value ...]
                          [--state system.name=value ...] [--input name=value ...]
                          [--stats] [--plot FILE.png] [--progress | --no-progress] [--no-finite-check]
       diagc graph SPEC.lua [-o FILE.dot] [--all]
       diagc info SPEC.lua [--json] [-o FILE]
       diagc test [FILE|DIR ...] [--filter PATTERN] [--timeout S]
       diagc deploy SPEC.lua [-o APP.c] [--run] [--duration S] [--threads N] [--cc CC]
       diagc --help | --version

  SPEC.lua -o OUT.c  generate OUT.c and OUT.h (C99, no heap, no globals)
  run                compile in-process with TinyCC, simulate, print logged
                     outputs as CSV (header t,<logger names>)
  graph              the diagram and its ticket graph as Graphviz DOT
  info               the model's systems, ports, states, parameters, events
                     and loggers (text, or JSON with --json)
  test               run Lua test files that JIT-compile models
  deploy             one model per subsystem of the root diagram, wired over
                     topics, on the executor (docs/executor.md); --run builds
                     and runs the app
  --debug            show Lua tracebacks for errors (any command)
]]

-- checked: a failed write (a full disk) prints an error and gives status 1
local function out(s, code) return require("diagc.cli.output").stdout_status(s, code) end

local subcommands = {
  run = "diagc.cli.run",
  graph = "diagc.cli.graph",
  deploy = "diagc.cli.deploy",
  info = "diagc.cli.info",
  test = "diagc.testing.runner",
}

function M.main(args)
  local debug_mode = false
  local rest = {}
  for _, a in ipairs(args) do
    if a == "--debug" then debug_mode = true else rest[#rest + 1] = a end
  end
  args = rest
  if #args == 0 or args[1] == "--help" or args[1] == "-h" or args[1] == "help" then
    return out(USAGE, #args == 0 and 2 or 0)
  end
  if args[1] == "--version" then
    return out("diagc " .. compile.VERSION .. "\n", 0)
  end
  local ok, res = xpcall(function()
    local sub = subcommands[args[1]]
    if sub then
      local a = {}
      for i = 2, #args do a[#a + 1] = args[i] end
      return require(sub).main(a, { debug = debug_mode })
    end
    return require("diagc.cli.generate").main(args, { debug = debug_mode })
  end, function(e)
    if errors.is(e) then
      if debug_mode then e.trace = debug.traceback("", 2) end
      return e
    end
    return { internal = true, msg = tostring(e), trace = debug.traceback("", 2) }
  end)
  if ok then return res or 0 end
  if errors.is(res) then
    io.stderr:write("diagc: " .. errors.format(res) .. "\n")
    if res.trace then io.stderr:write(res.trace .. "\n") end
    return 2
  end
  io.stderr:write("diagc: internal error: " .. res.msg .. "\n" .. res.trace .. "\n")
  return 70
end

return M
