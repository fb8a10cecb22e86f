-- expect: diagc: FILE:7: diagram "inner" contains itself
-- Declarations are copied when a diagram is built, so a self-containing
-- diagram can only be made by editing the built value afterwards.
local Src = leaf "Src" {
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
}
local Inner = diagram "inner" {
  system { "src", Src },
}
table.insert(Inner.items, system { "again", Inner })
return diagram "top" { system { "inner", Inner } }
