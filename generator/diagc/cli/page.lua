-- cli/page.lua: the viewer's page (docs/viewer.md) for diagc view and
-- diagc run --html: the model's description (what `diagc info --json`
-- knows: cli/info.lua's describe), the run's CSV (checked against the
-- model's loggers) and the viewer's bundle, built by make from viewer/ and
-- inlined here: no node at run time, no network when the page is opened.
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local json = require("diagc.cli.json")
local output = require("diagc.cli.output")
local info = require("diagc.cli.info")

local M = {}

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
      errors.raise(nil, "%s: the viewer's bundle %s/%s is missing; run scripts/install-deps.sh where the npm "
        .. "registry is reachable (it installs node, npm and the viewer's packages), then make (docs/viewer.md)",
        cmd, root, M.BUNDLE[k])
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

-- the run as compact JSON (one line per column): t as diagc run writes it,
-- each other column as the base64 of its doubles (cli/pack.lua; NaN for an
-- empty cell), which the page decodes (viewer/src/run_data.js)
local function run_json(run)
  local function nums(a)
    local s = {}
    for i = 1, run.rows do s[i] = json.number(a[i]) end
    return "[" .. table.concat(s, ",") .. "]"
  end
  local cols, vals = {}, {}
  for i, c in ipairs(run.columns) do cols[i] = json.string(c) end
  for i, v in ipairs(run.values) do vals[i] = '"' .. require("diagc.cli.pack").f64(v, run.rows) .. '"' end
  return string.format('{"columns":[%s],"rows":%d,"t":%s,"values":[\n%s]}', table.concat(cols, ","), run.rows,
    nums(run.t), table.concat(vals, ",\n"))
end

-- The ticket graph of `diagc graph` (cli/graph.lua's data), compact: nodes
-- [system, name, kind] (their index is their id here), edges [from, to,
-- kind]; the viewer's cache view draws the part around a block.
function M.graph(gen)
  local D = require("diagc.cli.graph").data(gen)
  local index, nodes, edges = {}, json.array(), json.array()
  for i, n in ipairs(D.nodes) do
    index[n.id] = i - 1
    nodes[i] = json.array({ n.system, n.name, n.kind })
  end
  for i, e in ipairs(D.edges) do edges[i] = json.array({ index[e.from], index[e.to], e.kind }) end
  return { nodes = nodes, edges = edges }
end

-- The page: the model's description, its ticket graph, the run, the bundle.
function M.page(d, graph, run, bundle, title, worlds, firings)
  local data = string.format('{"graph":%s,"model":%s,"run":%s,"title":%s}', json.encode(graph), json.encode(d),
    run_json(run), json.string(title))
  -- the firings of the events that are not periodic (cli/firings.lua), absent without such events
  if firings then data = data:sub(1, -2) .. ',"firings":' .. json.encode(firings) .. "}" end
  -- what the 3D replay draws of each world (cli/page_world.lua), absent without
  if worlds and #worlds > 0 then data = data:sub(1, -2) .. ',"worlds":' .. json.encode(worlds) .. "}" end
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

-- The bundle is there (before a run that would end on its absence).
function M.check_bundle(cmd) read_bundle(cmd) end

-- The firings for the page (cli/firings.lua): nil for a model whose
-- events are all periodic; without the file, a note on stderr and the
-- page saying why nothing but the periodic events is marked.
local function page_firings(cmd, d, run, path, shown)
  local firings = require("diagc.cli.firings")
  if not firings.wanted(d.events) then return nil end
  local f = path and io.open(path, "rb")
  if not f then
    local why = string.format("no firings file %s beside the CSV (diagc run --csv writes it)", shown or "")
    io.stderr:write(string.format("%s: note: %s: the events that are not periodic are not marked\n", cmd, why))
    return firings.data(nil, why)
  end
  f:close()
  return firings.data(firings.read(path, d, run, shown))
end

-- After `diagc run --html PAGE` (cli/run.lua): the CSV it wrote (and the
-- firings beside it, cli/firings.lua), to PAGE.
function M.write(cmd, gen, spec, csv_path, target, inputs, firings_path, firings_shown)
  gen.spec_main = gen.spec_main or require("diagc.spec.load").normalize(spec)
  local d = info.describe(gen)
  if #d.loggers == 0 then
    errors.raise(nil, "%s: the diagram logs nothing, so there is nothing to plot; add log { \"system.port\" } to it", cmd)
  end
  local run = M.read_csv(csv_path, d, csv_path, cmd)
  local fire = page_firings(cmd, d, run, firings_path, firings_shown or firings_path)
  local bundle = read_bundle(cmd)
  local worlds = require("diagc.cli.page_world").describe(gen.flat)
  output.write_file(cmd, target, M.page(d, M.graph(gen), run, bundle, require("diagc.util").basename(spec), worlds,
    fire), inputs)
  -- visual meshes that could not be drawn: one line here, each in the page's world panel
  local notes = {}
  for _, w in ipairs(worlds) do
    for _, n in ipairs(w.visual_notes or {}) do notes[#notes + 1] = n end
  end
  if #notes > 0 then
    io.stderr:write(string.format("%s: note: %s%s\n", cmd, notes[1], #notes > 1 and
      string.format(" (and %d more such notes in the page's 3D panel)", #notes - 1) or ""))
  end
end

return M
