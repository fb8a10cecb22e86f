-- Stage contract of spec/load.lua (its header): a spec file -> the loaded
-- spec {root, sources, main}, the root a frozen system of plain tables.
-- Called directly, without the later stages, TinyCC or the coder.
local load = require("diagc.spec.load")
local SPEC = diagc.root .. "/tests/lua/fixtures/stages_spec.lua"

local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

test("stage_spec.loaded_spec_fields", function()
  local L = load.load(SPEC)
  eq(L.main, SPEC)
  eq(L.sources[SPEC], read(SPEC))
  local root = L.root
  eq(root._kind, "diagram")
  eq(root.name, "top")
  eq(root.loc.file, SPEC)
  local kinds = {}
  for i, it in ipairs(root.items) do kinds[i] = it._item end
  eq(kinds, { "system", "system", "system", "connect", "export_input", "export_output", "log" })
  -- each item where it was declared, its fields as written
  eq(root.items[4].loc, { file = SPEC, line = 42 })
  eq(root.items[4].args, { "lag.out", "lag2.w" })
  eq(root.items[5].args, { "lag.w", as = "r", default = { 1 } })
  eq(root.items[7].args, { "loop.pos", period = 0.5 })
  eq(root.items[3].args.parameters, { tau = { 2 } })
end)

test("stage_spec.frozen_systems_are_plain_and_shared", function()
  local root = load.load(SPEC).root
  local loop = root.items[1].args[2]
  eq(loop._kind, "diagram")
  eq(loop.name, "loop")
  eq(getmetatable(loop), nil)
  eq(#loop.items, 6)
  -- one type used by two systems is one frozen table
  local lag, lag2 = root.items[2].args[2], root.items[3].args[2]
  truthy(lag == lag2, "the two Lag systems got two copies of the type")
  eq(lag._kind, "leaf")
  eq(lag.name, "Lag")
  local items = {}
  for i, it in ipairs(lag.items) do items[i] = it._item end
  eq(items, { "continuous_state", "parameter", "input_port", "derivatives", "output_port" })
  eq(lag.items[1].args, { z = 1 })
  eq(lag.items[5].args.prerequisites, { "z" })
end)
