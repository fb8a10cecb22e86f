-- dsl.import in test files returns whatever a spec file returns: a leaf, or
-- a table of systems, not only a diagram.
local dsl = diagc.dsl
local Gain = dsl.import("fixtures/gain_leaf.lua")
local lib = dsl.import("fixtures/two_leaves.lua")

test("import.leaf", function()
  local m = diagc.jit(dsl.diagram "wrap" {
    dsl.system { "g", Gain },
    dsl.export_input { "g.u", as = "u" },
    dsl.export_output { "g.y", as = "y" },
  })
  local c = m:context()
  c:set("u", 5)
  eq(c:get("y"), 15)
end)

test("import.table_of_leaves", function()
  local m = diagc.jit(dsl.diagram "pair" {
    dsl.system { "s", lib.Src },
    dsl.system { "n", lib.Neg },
    dsl.connect { "s.y", "n.u" },
    dsl.export_output { "n.y", as = "y" },
  })
  local c = m:context()
  eq(c:get("y"), -2)
  c:set("s.c", 7)
  eq(c:get("y"), -7)
end)

test("import.same_file_once", function()
  truthy(dsl.import("fixtures/gain_leaf.lua") ~= nil)
end)
