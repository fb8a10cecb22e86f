-- fuzz_spec finding: a built diagram's item list, edited by the spec after
-- construction to hold a value that is not a declaration, reached the
-- checker (check/diagram.lua indexes it: internal error, exit 70).
local Inner = diagram "inner" {}
table.insert(Inner.items, 1)
return diagram "top" { system { "inner", Inner } }
