-- The viewer's data (cli/page.lua, docs/viewer.md) without a browser:
-- info's description gives the wiring the page draws its wires from (as
-- examples/pid_plant.lua's connects and exports declare them, read by
-- hand), the masks of one parameter, and the CSV reader keeps every
-- number and marks the empty cells of a logger with another period.
local info = require("diagc.cli.info")
local page = require("diagc.cli.page")

local function describe(spec)
  local gen = diagc.compile(diagc.root .. "/examples/" .. spec, {})
  gen.spec_main = spec
  return info.describe(gen)
end

test("viewer_page.wires_from_info", function()
  local d = describe("pid_plant.lua")
  -- "to <- from" for every port with a source pair
  local got = {}
  for _, p in ipairs(d.ports) do
    if p.source then
      local from = (p.source.system == "" and "" or p.source.system .. ".") .. p.source.port
      got[#got + 1] = (p.path .. " <- " .. from)
    end
  end
  table.sort(got)
  eq(table.concat(got, "\n"), table.concat({
    "controller.err.a <- controller.r",   -- export_input { "err.a", as = "r" }
    "controller.err.b <- controller.y",   -- export_input { "err.b", as = "y" }
    "controller.law.d.u <- controller.law.e", -- export_input { "p.u", "i.u", "d.u", as = "e" }
    "controller.law.e <- controller.err.y",   -- connect { "err.y", "law.e" }
    "controller.law.i.u <- controller.law.e",
    "controller.law.p.u <- controller.law.e",
    "controller.law.sum.a <- controller.law.p.y", -- connect { "p.y", "sum.a" }
    "controller.law.sum.b <- controller.law.i.y",
    "controller.law.sum.c <- controller.law.d.y",
    "controller.law.u <- controller.law.sum.y", -- export_output { "sum.y", as = "u" }
    "controller.r <- ref.r",                  -- connect { "ref.r", "controller.r" }
    "controller.u <- controller.law.u",       -- export_output { "law.u", as = "u" }
    "controller.y <- plant.y",                -- connect { "plant.y", "controller.y" }
    "plant.u <- controller.u",                -- connect { "controller.u", "plant.u" }
    "position <- plant.y",                    -- export_output { "plant.y", as = "position" }
  }, "\n"))
end)

test("viewer_page.masks_of_a_gain", function()
  local d = describe("pid_plant.lua")
  local by_index = {}
  for _, e in ipairs(d.cache_entries) do by_index[e.index] = e end
  local stale
  for _, s in ipairs(d.sources) do
    if s.name == "controller.law.p.k" then stale = s end
  end
  -- k feeds p.y = k u, then sum.y, then (through the exports) plant's
  -- derivatives and the root's: never i, d or err, nor any output of the plant
  local got = {}
  for _, i in ipairs(stale.stale) do got[#got + 1] = by_index[i].system .. ":" .. by_index[i].ticket end
  table.sort(got)
  eq(table.concat(got, " "), ":xcdot controller.law.p:outcache:y controller.law.sum:outcache:y plant:xcdot")
end)

test("viewer_page.csv_periods_and_numbers", function()
  local d = describe("hybrid_controller.lua")
  local path = os.tmpname()
  local f = assert(io.open(path, "wb"))
  f:write("t,plant.y,controller.u_out,supervisor.r\n0,0,0,0\n0.01,0.25,-1e-300,\n0.1,1.5e+300,3,1\n")
  f:close()
  local run = page.read_csv(path, d, "run.csv", "diagc view")
  os.remove(path)
  eq(run.rows, 3)
  eq(run.t[2], 0.01)
  eq(run.values[1][3], 1.5e300)
  eq(run.values[2][2], -1e-300)
  local empty = run.values[3][2]
  assert(empty ~= empty, "an empty cell is NaN (written as null)")
  eq(run.values[3][3], 1)
end)
