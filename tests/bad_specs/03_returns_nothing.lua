-- expect: diagc: FILE:1: the spec must return a diagram, as in: return diagram "name" { ... } (it returned nothing)
local Gain = leaf "Gain" {
  parameter { "k", default = { 1.0 } },
}
local top = diagram "top" { system { "g", Gain } }
