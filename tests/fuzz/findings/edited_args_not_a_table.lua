-- fuzz_spec finding (same class as edited_items_not_a_declaration.lua): a
-- declaration's fields, replaced by the spec after the leaf was built,
-- reached the checker (util.lua: pairs on a number: internal error, exit 70).
local L = leaf "L" { output_port { "y", size = 1, prerequisites = { "nothing" }, calc = "y[0] = 1;" } }
L.items[1].args = 5
return diagram "top" { system { "l", L } }
