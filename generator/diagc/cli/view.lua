-- cli/view.lua: diagc view SPEC.lua [-o PAGE.html] [--csv FILE | run
-- options] -- one self-contained HTML page: the diagram as blocks and the
-- logged signals as plots (cli/page.lua).  Without --csv it runs the model
-- as `diagc run --html PAGE` does (cli/run.lua: the same options and
-- checks); with --csv it reads a CSV that `diagc run --csv` wrote for this
-- model.
local errors = require("diagc.errors")
local output = require("diagc.cli.output")
local page = require("diagc.cli.page")

local M = {}

local CMD = "diagc view"

-- the page's default name: the spec's, .lua replaced by .html, here
local function default_target(spec)
  return (require("diagc.util").basename(spec):gsub("%.lua$", "")) .. ".html"
end

function M.main(args)
  -- -o and --csv are view's; every other option is run's (cli/run.lua)
  local rest, target, csv = {}, nil, nil
  local i = 1
  while i <= #args do
    local a = args[i]
    local name, val = a:match("^(%-%-?[^=]+)=(.*)$")
    name = name or a
    if a == "--" then
      for j = i, #args do rest[#rest + 1] = args[j] end
      break
    elseif name == "-o" or name == "--csv" then
      if val == nil then
        i = i + 1
        val = args[i]
        if val == nil then errors.raise(nil, "%s: option %s needs a value", CMD, name) end
      end
      if (name == "-o" and target) or (name == "--csv" and csv) then
        errors.raise(nil, "%s: option %s given twice", CMD, name)
      end
      if name == "-o" then target = val else csv = val end
    elseif name == "--html" or name == "--plot" then
      errors.raise(nil, "%s: %s is an option of diagc run; name the page with -o", CMD, name)
    else
      rest[#rest + 1] = a
    end
    i = i + 1
  end
  if not csv then
    -- the run's own parser checks the spec argument and the options
    local spec
    for _, a in ipairs(rest) do if a:sub(1, 1) ~= "-" then spec = spec or a end end
    rest[#rest + 1] = "--html"
    rest[#rest + 1] = target or default_target(spec or "model.lua")
    return require("diagc.cli.run").command(rest, CMD)
  end
  if #rest ~= 1 or rest[1]:sub(1, 1) == "-" then
    errors.raise(nil, "%s: with --csv, give only the spec file, as in: diagc view spec.lua --csv run.csv -o page.html", CMD)
  end
  local spec = rest[1]
  local gen = require("diagc.compile").compile(spec, {})
  local inputs = require("diagc.cli.generate").inputs(gen)
  local side = require("diagc.cli.firings").path(csv)
  inputs[#inputs + 1] = csv
  inputs[#inputs + 1] = side
  target = target or default_target(spec)
  output.check_target(CMD, target, inputs)
  page.write(CMD, gen, spec, csv, target, inputs, side)
  return 0
end

return M
