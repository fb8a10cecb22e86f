-- cli/plot.lua: diagc run --plot FILE.png [--plot-signals NAMES] -- the
-- run's CSV drawn with gnuplot in the viewer's layout (docs/viewer.md):
-- one subplot per logged port, stacked, sharing the time axis; each with
-- its own y axis labelled with the port's name and unit (output_port's
-- unit = ...), and its elements named in its key as in the CSV's columns;
-- a discrete logger (info.loggers) drawn as steps that hold each sample.
-- --plot-signals chooses the ports or single columns to draw.
--   M.panels(loggers, names, cmd)  loggers: info.loggers; names: the
--       option's text or nil -> the panels {title=, unit=, discrete=, ylabel=,
--       columns= {{index= (1-based in the CSV), name=}}}; a bad name is an
--       error, and so are more than MAX_PANELS
--   M.layout(panels, t0, t1)  -> {width=, height=, panels=, t0=, t1=}
--   M.script(layout, csv, png, title, term)  -> the gnuplot script
--   M.draw(cmd, csv_path, target, title, panels)  draws and writes target
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local output = require("diagc.cli.output")

local M = {}

-- the subplots one image holds (a panel is PANEL_H pixels high)
M.MAX_PANELS = 24
-- (pixels: the image's width, a subplot's height with its gaps, the title
-- band above them, the band below for the time axis' numbers and label,
-- the gap between two subplots' frames)
M.WIDTH, M.PANEL_H, M.TOP, M.BOTTOM, M.GAP = 1000, 200, 40, 56, 12

-- gnuplot on PATH?
function M.have_gnuplot()
  local p = io.popen("command -v gnuplot 2>/dev/null")
  local r = p and p:read("*l")
  if p then p:close() end
  return r ~= nil and r ~= ""
end

-- The panels for the loggers (info.loggers: name, columns, unit), all of
-- them or those `names` (comma-separated logger or column names) choose:
-- a logger's name takes all its columns, a column's name that column; the
-- columns of one logger share its panel; panels in the order first named.
function M.panels(loggers, names, cmd)
  local all, by_logger, by_column, col = {}, {}, {}, 1
  for _, l in ipairs(loggers) do
    local p = { title = l.name, unit = l.unit, discrete = l.discrete, columns = {} }
    for _, c in ipairs(l.columns) do
      col = col + 1
      p.columns[#p.columns + 1] = { index = col, name = c }
      by_column[c] = { panel = l.name, column = p.columns[#p.columns] }
    end
    all[#all + 1] = p
    by_logger[l.name] = p
  end
  local function label(p) return p.unit and (p.title .. " [" .. p.unit .. "]") or p.title end
  local function fits(list)
    if #list > M.MAX_PANELS then
      errors.raise(nil, "%s: --plot: %d logged ports make %d subplots; one image holds at most %d: choose "
        .. "them with --plot-signals (docs/simulator.md)", cmd, #list, #list, M.MAX_PANELS)
    end
    return list
  end
  if names == nil then
    for _, p in ipairs(all) do p.ylabel = label(p) end
    return fits(all)
  end
  local known = {}
  for _, l in ipairs(loggers) do known[#known + 1] = l.name end
  for c in pairs(by_column) do if not by_logger[c] then known[#known + 1] = c end end
  local chosen, order, seen, i = {}, {}, {}, 0
  for item in (names .. ","):gmatch("([^,]*),") do
    i = i + 1
    if item == "" then
      errors.raise(nil, "%s: --plot-signals: name %d is empty; give logged ports or columns separated by "
        .. "commas, as in --plot-signals plant.y,controller.u", cmd, i)
    end
    if seen[item] then errors.raise(nil, "%s: --plot-signals: '%s' is named twice", cmd, cli.show(item)) end
    seen[item] = true
    local whole, one = by_logger[item], by_column[item]
    if not whole and not one then
      errors.raise(nil, "%s: --plot-signals: no logged port or column named '%s'%s", cmd, cli.show(item),
        cli.hint(item, known, "logged"))
    end
    local key = whole and item or one.panel
    local p = chosen[key]
    if not p then
      p = { title = key, unit = by_logger[key].unit, discrete = by_logger[key].discrete, columns = {}, has = {} }
      chosen[key] = p
      order[#order + 1] = p
    end
    for _, c in ipairs(whole and whole.columns or { one.column }) do
      if p.has[c.index] then
        errors.raise(nil, "%s: --plot-signals: column '%s' is chosen twice, by its own name and by its port's "
          .. "name '%s'", cmd, cli.show(c.name), cli.show(key))
      end
      p.has[c.index] = true
      p.columns[#p.columns + 1] = c
    end
  end
  for _, p in ipairs(order) do
    table.sort(p.columns, function(a, b) return a.index < b.index end)
    p.has = nil
    p.ylabel = label(p)
  end
  return fits(order)
end

-- The image: WIDTH wide, a title band, then one PANEL_H high subplot per
-- panel (at most MAX_PANELS: M.panels), stacked in order; every subplot
-- shows t0 .. t1.
function M.layout(panels, t0, t1)
  local n = #panels
  local height = M.TOP + n * M.PANEL_H + M.BOTTOM
  local L = { width = M.WIDTH, height = height, t0 = t0, t1 = t1, panels = {} }
  for k, p in ipairs(panels) do
    -- gnuplot's screen coordinates: 0 at the bottom
    local top = height - M.TOP - (k - 1) * M.PANEL_H
    L.panels[k] = { title = p.title, ylabel = p.ylabel, columns = p.columns, last = k == n, discrete = p.discrete,
      y0 = (top - M.PANEL_H) / height, y1 = top / height, gap = M.GAP / 2 / height }
  end
  return L
end

-- gnuplot single-quoted string (no escapes but '' for ')
local function gq(s) return "'" .. s:gsub("'", "''") .. "'" end

local function g(x) return string.format("%.17g", x) end

-- The gnuplot script drawing layout L from `csv` into `png` (terminal
-- `term`: pngcairo, or png).  Every string is single-quoted and
-- noenhanced: names and units are drawn as written.
function M.script(L, csv, png, title, term)
  local s = {
    string.format("set terminal %s size %d,%d", term, L.width, L.height),
    "set output " .. gq(png),
    'set datafile separator ","',
    'set datafile missing ""',
    "set grid",
    "set offsets 0, 0, graph 0.05, graph 0.05", -- no curve on a frame's edge
    "set key outside right top noenhanced",
    "set lmargin at screen 0.09",
    "set rmargin at screen 0.76",
    string.format("set xrange [%s:%s]", g(L.t0), g(L.t1 > L.t0 and L.t1 or L.t0 + 1)),
    "set multiplot title " .. gq(title) .. " noenhanced",
  }
  for _, p in ipairs(L.panels) do
    s[#s + 1] = string.format("set tmargin at screen %s", g(p.y1 - p.gap))
    s[#s + 1] = string.format("set bmargin at screen %s", g(p.last and p.y0 or p.y0 + p.gap))
    s[#s + 1] = "set ylabel " .. gq(p.ylabel) .. " noenhanced"
    s[#s + 1] = p.last and 'set xlabel "t [s]"' or "unset xlabel"
    s[#s + 1] = p.last and "set format x" or 'set format x ""'
    local parts = {}
    for _, c in ipairs(p.columns) do
      parts[#parts + 1] = string.format("%s using 1:%d with %s lw 1.5 title %s noenhanced",
        #parts == 0 and gq(csv) or "''", c.index, p.discrete and "steps" or "lines", gq(c.name))
    end
    s[#s + 1] = "plot " .. table.concat(parts, ", \\\n  ")
  end
  s[#s + 1] = "unset multiplot"
  return table.concat(s, "\n") .. "\n"
end

-- the first and last t of a CSV of diagc run (header, then rows)
local function time_span(path)
  local f = assert(io.open(path, "rb"))
  f:read("*l")
  local first = tonumber((f:read("*l") or ""):match("^[^,]*"))
  local size = f:seek("end")
  f:seek("set", math.max(0, size - 65536))
  local tail = f:read("*a") or ""
  f:close()
  local last
  for line in tail:gmatch("[^\n]+") do last = tonumber(line:match("^[^,]*")) or last end
  return first or 0, last or first or 0
end

-- Runs gnuplot on the script for each terminal until one works; nil or
-- gnuplot's last error line.
local function run_gnuplot(cmd, L, csv, png, title)
  local shq = require("diagc.util").shell_quote
  local script, errf = output.temp(cmd, ".gp"), output.temp(cmd, ".err")
  local ok = false
  for _, term in ipairs({ "pngcairo", "png" }) do
    local f = assert(io.open(script, "w"))
    f:write(M.script(L, csv, png, title, term))
    f:close()
    local rc = os.execute("gnuplot " .. shq(script) .. " 2>" .. shq(errf))
    if rc == 0 or rc == true then ok = true; break end
  end
  local ef = io.open(errf, "r")
  local err = ef and ef:read("*a") or ""
  if ef then ef:close() end
  output.remove_temp(script)
  output.remove_temp(errf)
  if not ok then return (err:gsub("%s+$", ""):match("[^\n]*$")) or "?" end
  return nil
end

-- Draws the finished CSV to a temporary PNG, then moves it over `target`.
function M.draw(cmd, csv_path, target, title, panels)
  local t0, t1 = time_span(csv_path)
  local L = M.layout(panels, t0, t1)
  local png = output.temp(cmd, ".png")
  -- gnuplot reads a copy of the CSV under a plain name when the CSV's own
  -- path (beside a user's file) has characters a gnuplot string cannot hold
  local copy
  if csv_path:find("[^%w%._/%-]") then
    copy = output.temp(cmd, ".csv")
    local fi, fo = io.open(csv_path, "rb"), io.open(copy, "wb")
    if fi and fo then fo:write(fi:read("*a")) end
    if fi then fi:close() end
    if fo then fo:close() end
  end
  local why = run_gnuplot(cmd, L, copy or csv_path, png, (title:gsub("[%c\127]", "?")))
  output.remove_temp(copy)
  if why then
    output.remove_temp(png)
    errors.raise(nil, "%s: --plot: gnuplot failed: %s", cmd, cli.show(why))
  end
  local f = io.open(png, "rb")
  local data = f and f:read("*a")
  if f then f:close() end
  output.remove_temp(png)
  if not data or data == "" then errors.raise(nil, "%s: --plot: gnuplot wrote no image", cmd) end
  output.write_file(cmd, target, data)
end

return M
