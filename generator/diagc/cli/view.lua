-- cli/view.lua: diagc view SPEC.lua [-o PAGE.html] [--csv FILE | run
-- options] -- one self-contained HTML page: the diagram as blocks (what
-- `diagc info --json` knows: cli/info.lua's describe) and the logged
-- signals as plots.  Without --csv it runs the model as `diagc run` does
-- (cli/run.lua, the same options and checks, then M.page on its CSV);
-- with --csv it reads a CSV that `diagc run --csv` wrote for this model.
-- The page's script and style are the viewer's bundle, built by make from
-- viewer/ (docs/viewer.md) and inlined here: no node at run time, no
-- network when the page is opened.
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local json = require("diagc.cli.json")
local output = require("diagc.cli.output")
local info = require("diagc.cli.info")

local M = {}

local CMD = "diagc view"

-- the bundle's files, under the root (the checkout or PREFIX/share/diagc)
M.BUNDLE = { js = "build/viewer/viewer.js", css = "build/viewer/viewer.css" }

local function read_bundle(cmd)
  local root = require("diagc_host").root()
  local parts = {}
  for _, k in ipairs({ "js", "css" }) do
    local f = io.open(root .. "/" .. M.BUNDLE[k], "rb")
    local text = f and f:read("*a")
    if f then f:close() end
    if not text or text == "" then
      errors.raise(nil, "%s: the viewer's bundle %s/%s is missing; build it with make (it needs node and npm: "
        .. "scripts/install-deps.sh)", cmd, root, M.BUNDLE[k])
    end
    parts[k] = text
  end
  return parts
end

-- The CSV's column names, as the model's loggers name them (info's loggers).
local function expected_columns(d)
  local cols = { "t" }
  for _, l in ipairs(d.loggers) do
    for _, c in ipairs(l.columns) do cols[#cols + 1] = c end
  end
  return cols
end

-- Reads a CSV of `diagc run` for the model described by d into
-- {columns=, t=, values= (one array per column, nil cells as false)};
-- an error names the file and line.  `shown`: the name in messages.
function M.read_csv(path, d, shown, cmd)
  shown = shown or path
  local f, err = io.open(path, "rb")
  if not f then errors.raise(nil, "%s: cannot read '%s': %s", cmd, cli.show(shown), (tostring(err):gsub("^.*: ", ""))) end
  local text = f:read("*a")
  f:close()
  local want = expected_columns(d)
  local lines = {}
  for line in (text .. (text:sub(-1) == "\n" and "" or "\n")):gmatch("([^\n]*)\n") do
    lines[#lines + 1] = line:gsub("\r$", "")
  end
  local header = lines[1] or ""
  if header ~= table.concat(want, ",") then
    errors.raise({ file = shown, line = 1 }, "the header '%s' does not match the model's loggers (expected '%s'); "
      .. "write the CSV with diagc run %s --csv FILE", cli.show(header), cli.show(table.concat(want, ",")), d.spec)
  end
  local ncol = #want
  local t, values = {}, {}
  for c = 2, ncol do values[c - 1] = {} end
  local n = 0
  for i = 2, #lines do
    local line = lines[i]
    if line ~= "" or i < #lines then
      local fields = {}
      for cell in (line .. ","):gmatch("([^,]*),") do fields[#fields + 1] = cell end
      if #fields ~= ncol then
        errors.raise({ file = shown, line = i }, "%d fields, expected %d (the header's columns)", #fields, ncol)
      end
      n = n + 1
      for c = 1, ncol do
        local x = fields[c]
        local v = x ~= "" and tonumber(x) or nil
        if x ~= "" and (not v or x:find("^%s") or x:find("^0[xX]")) then
          errors.raise({ file = shown, line = i }, "column %s: '%s' is not a number", want[c], cli.show(x))
        end
        if c == 1 then
          if not v then errors.raise({ file = shown, line = i }, "the time t is empty") end
          t[n] = v
        else
          -- empty: a logger with another period; NaN and infinities have no JSON form
          values[c - 1][n] = v or 0 / 0 -- (written as null)
        end
      end
    end
  end
  if n == 0 then
    errors.raise({ file = shown, line = 2 }, "the CSV has no samples; run the model for a while (diagc run %s --until T "
      .. "--csv FILE) and log a port with log { \"system.port\" }", d.spec)
  end
  return { columns = want, t = t, values = values, rows = n }
end

-- the run as compact JSON (one line per column: numbers as diagc run
-- writes them, null for an empty cell, NaN or an infinity)
local function run_json(run)
  local function nums(a)
    local s = {}
    for i = 1, run.rows do s[i] = json.number(a[i]) end
    return "[" .. table.concat(s, ",") .. "]"
  end
  local cols, vals = {}, {}
  for i, c in ipairs(run.columns) do cols[i] = json.string(c) end
  for i, v in ipairs(run.values) do vals[i] = nums(v) end
  return string.format('{"columns":[%s],"rows":%d,"t":%s,"values":[\n%s]}', table.concat(cols, ","), run.rows,
    nums(run.t), table.concat(vals, ",\n"))
end

-- The page: the model's description, the run, the bundle.
function M.page(d, run, bundle, title)
  local data = string.format('{"model":%s,"run":%s,"title":%s}', json.encode(d), run_json(run), json.string(title))
  -- inside <script>, "</" could end the element: JSON allows "<\/"
  data = data:gsub("</", "<\\/")
  local function esc(s) return (s:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;")) end
  -- the bundle's own text never holds "</script" or "</style" (make checks it)
  return table.concat({
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; ",
    "style-src 'unsafe-inline'; img-src data: blob:\">\n",
    "<title>", esc(title), " - diagc view</title>\n<style>\n", bundle.css, "\n</style>\n</head>\n<body>\n",
    "<div id=\"diagc-app\"></div>\n<script type=\"application/json\" id=\"diagc-data\">", data, "</script>\n",
    "<script>\n", bundle.js, "\n</script>\n</body>\n</html>\n",
  })
end

-- After `diagc run --html PAGE` (cli/run.lua): the CSV it wrote, to PAGE.
function M.write(cmd, gen, spec, csv_path, target, inputs)
  gen.spec_main = gen.spec_main or require("diagc.spec.load").normalize(spec)
  local d = info.describe(gen)
  if #d.loggers == 0 then
    errors.raise(nil, "%s: the diagram logs nothing, so there is nothing to plot; add log { \"system.port\" } to it", cmd)
  end
  local bundle = read_bundle(cmd)
  local run = M.read_csv(csv_path, d, csv_path, cmd)
  output.write_file(cmd, target, M.page(d, run, bundle, require("diagc.util").basename(spec)), inputs)
end

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
  inputs[#inputs + 1] = csv
  target = target or default_target(spec)
  output.check_target(CMD, target, inputs)
  M.write(CMD, gen, spec, csv, target, inputs)
  return 0
end

return M
