-- expect: diagc: FILE:5: leaf "Gain" already declares 'k' (as parameter at line 3); names must be unique within a leaf
local Gain = leaf "Gain" {
  parameter { "k", default = { 1.0 } },
  input_port { "u", size = 1 },
  output_port { "k", size = 1, prerequisites = { "u" }, calc = [[ k[0] = u[0]; ]] },
}
return diagram "top" { system { "g", Gain }, fix_input { "g.u", value = { 1 } } }
