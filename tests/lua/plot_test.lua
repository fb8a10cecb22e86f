-- diagc run --plot's layout (cli/plot.lua, docs/simulator.md) without
-- gnuplot: one panel per logged port of tests/lua/fixtures/motor_units.lua
-- (three log declarations, read by hand), each labelled with the unit its
-- output_port declares; --plot-signals' choices and its errors.
local info = require("diagc.cli.info")
local plot = require("diagc.cli.plot")

local function loggers()
  local gen = diagc.compile(diagc.root .. "/tests/lua/fixtures/motor_units.lua", {})
  return info.loggers(gen)
end

local function shape(panels)
  local s = {}
  for _, p in ipairs(panels) do
    local cols = {}
    for _, c in ipairs(p.columns) do cols[#cols + 1] = c.index .. "=" .. c.name end
    s[#s + 1] = p.ylabel .. ": " .. table.concat(cols, " ")
  end
  return table.concat(s, "; ")
end

test("plot.one_panel_per_port_with_units", function()
  -- the CSV: t, m.speed, m.current, m.both.w, m.both.i (columns 1..5)
  eq(shape(plot.panels(loggers(), nil, "diagc run")),
    "m.speed [rad/s]: 2=m.speed; m.current [A]: 3=m.current; m.both: 4=m.both.w 5=m.both.i")
end)

test("plot.signals_choose_ports_and_columns", function()
  -- a column joins its port's panel; panels in the order first named
  eq(shape(plot.panels(loggers(), "m.both.i,m.speed,m.both.w", "diagc run")),
    "m.both: 4=m.both.w 5=m.both.i; m.speed [rad/s]: 2=m.speed")
end)

test("plot.signals_errors", function()
  local L = loggers()
  expect_error(function() plot.panels(L, "m.spede", "diagc run") end,
    "--plot-signals: no logged port or column named 'm.spede'; did you mean 'm.speed'?")
  expect_error(function() plot.panels(L, "m.speed,,m.both", "diagc run") end, "--plot-signals: name 2 is empty")
  expect_error(function() plot.panels(L, "m.speed,m.speed", "diagc run") end, "'m.speed' is named twice")
  expect_error(function() plot.panels(L, "m.both,m.both.w", "diagc run") end, "column 'm.both.w' is chosen twice, by its own name and by its port's name 'm.both'")
end)

test("plot.layout_and_script", function()
  local panels = plot.panels(loggers(), nil, "diagc run")
  local L = plot.layout(panels, 0, 2)
  eq(#L.panels, 3)
  eq(L.height, plot.TOP + 3 * plot.PANEL_H + plot.BOTTOM)
  -- stacked top to bottom, not overlapping, inside the image
  for k, p in ipairs(L.panels) do
    assert(p.y0 < p.y1 and p.y0 >= 0 and p.y1 <= 1, "panel " .. k .. " inside")
    if k > 1 then assert(p.y1 <= L.panels[k - 1].y0 + 1e-12, "panel " .. k .. " below the one before") end
  end
  local s = plot.script(L, "run.csv", "out.png", "it's", "pngcairo")
  local n = 0
  for _ in s:gmatch("\nplot ") do n = n + 1 end
  eq(n, 3)
  assert(s:find("set ylabel 'm.speed [rad/s]' noenhanced", 1, true), s)
  assert(s:find("set ylabel 'm.current [A]' noenhanced", 1, true), s)
  assert(s:find("set multiplot title 'it''s' noenhanced", 1, true), s)
  assert(s:find("set xrange [0:2]", 1, true), s)
  -- motor_units' ports follow its continuous state: lines, no steps
  assert(not s:find("with steps", 1, true), s)
  -- the time axis is labelled on the last panel only
  local _, labels = s:gsub('set xlabel "t %[s%]"', "")
  eq(labels, 1)
end)

test("plot.discrete_as_steps", function()
  -- hybrid_controller.lua: plant.y follows the continuous x; the
  -- controller's u and the supervisor's setpoint are discrete states
  -- (periodic_discrete_update), held between updates
  local gen = diagc.compile(diagc.root .. "/examples/hybrid_controller.lua", {})
  local L = plot.layout(plot.panels(info.loggers(gen), nil, "diagc run"), 0, 1)
  local s = plot.script(L, "run.csv", "out.png", "hybrid", "png")
  local got = {}
  for n, how in s:gmatch("using 1:(%d+) with (%a+)") do got[#got + 1] = n .. " " .. how end
  eq(table.concat(got, ", "), "2 lines, 3 steps, 4 steps")
end)

test("plot.too_many_panels", function()
  local many = {}
  for i = 1, plot.MAX_PANELS + 1 do many[i] = { name = "l" .. i, columns = { "l" .. i } } end
  expect_error(function() plot.panels(many, nil, "diagc run") end,
    string.format("%d logged ports make %d subplots; one image holds at most %d", plot.MAX_PANELS + 1,
      plot.MAX_PANELS + 1, plot.MAX_PANELS))
end)

test("plot.units_in_info", function()
  local gen = diagc.compile(diagc.root .. "/tests/lua/fixtures/motor_units.lua", {})
  gen.spec_main = "motor_units.lua"
  local d = info.describe(gen)
  local units = {}
  for _, p in ipairs(d.ports) do units[#units + 1] = p.path .. "=" .. tostring(p.unit) end
  -- the exported input takes its target's unit
  eq(table.concat(units, " "), "volts=V m.volt=V m.speed=rad/s m.current=A m.both=nil")
  local text = info.text(d)
  assert(text:find("m.speed                      output size 1  [rad/s]", 1, true), text)
end)

test("plot.world_poses_are_discrete", function()
  -- examples/control/ball_box.lua: a world with a 1 ms time step changes
  -- its poses and velocities only at its steps (a periodic discrete update)
  local gen = diagc.compile(diagc.root .. "/examples/control/ball_box.lua", {})
  local got = {}
  for _, l in ipairs(info.loggers(gen)) do got[#got + 1] = l.name .. "=" .. tostring(l.discrete) end
  eq(table.concat(got, " "), "world.ball.pose=true world.box.pose=true world.box.velocity=true")
end)
