-- cli/generate.lua: diagc SPEC.lua -o OUT.c  (writes OUT.c and OUT.h)
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local output = require("diagc.cli.output")
local compile = require("diagc.compile")
local util = require("diagc.util")
local info = require("diagc.cli.info")
local json = require("diagc.cli.json")

local M = {}

-- the subcommands, for "did you mean" when the first word is not a file
local COMMANDS = { "run", "graph", "test", "deploy", "info" }

local exists = cli.exists

-- the spec files read (imports too): outputs must not overwrite them
function M.inputs(gen)
  return util.sorted_keys(gen.sources or {})
end

function M.main(args)
  local o, pos = cli.parse(args, { flags = { ["-o"] = true, ["--name"] = true, ["--no-check"] = false,
    ["--no-jacobian"] = false, ["--info"] = true } }, "diagc")
  if #pos >= 1 and not exists(pos[1]) and not pos[1]:find("[/.]") then
    errors.raise(nil, "unknown command '%s'%s; or give a spec file, as in: diagc spec.lua -o model.c",
      cli.show(pos[1]), cli.hint(pos[1], COMMANDS, "commands"))
  end
  if #pos ~= 1 then
    errors.raise(nil, "expected one spec file, as in: diagc spec.lua -o model.c")
  end
  local outc = o["-o"]
  if not outc then errors.raise(nil, "missing -o OUT.c (the generated source; OUT.h is written beside it)") end
  if not outc:match("[^/]%.c$") then errors.raise(nil, "-o must name a .c file, got '%s'", cli.show(outc)) end
  local outh = outc:gsub("%.c$", ".h")
  local outj = o["--info"]
  if outj and not outj:match("[^/]%.json$") then
    errors.raise(nil, "--info must name a .json file, got '%s'", cli.show(outj))
  end
  if o["--name"] and not o["--name"]:match("^[%w_]+$") then
    errors.raise(nil, "invalid --name '%s': expected a C identifier (letters, digits, _)", cli.show(o["--name"]))
  end
  local gen = compile.compile(pos[1], {
    prefix = o["--name"] and compile.prefix_of(o["--name"]) or nil,
    header_name = util.basename(outh),
    source_name = util.basename(outc),
    no_jacobian = o["--no-jacobian"] and true or nil,
  })
  local inputs = M.inputs(gen)
  output.check_target("diagc", outh, inputs)
  output.check_target("diagc", outc, inputs)
  if not o["--no-check"] then
    -- compile once in-process so C errors in calc bodies are reported
    -- (at their spec lines) before anything is written
    if pcall(require, "diagc_host") then
      require("diagc.jit").compile(gen, { allow_undefined = true })
    end
  end
  local files = { { outh, gen.header }, { outc, gen.source } }
  if outj then
    -- the document of `diagc info --json` from this same generation
    -- (diagc.build needs both: one run of the generator, not two)
    output.check_target("diagc", outj, inputs)
    gen.spec_main = require("diagc.spec.load").normalize(pos[1])
    files[3] = { outj, json.encode(info.describe(gen)) }
  end
  -- all the files or none
  output.write_files(nil, files, inputs)
  return 0
end

return M
