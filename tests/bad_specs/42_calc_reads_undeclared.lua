-- expect: diagc: FILE:6:22: output port 'y' of leaf "Gain" reads 'k' (parameter 'k'), which its prerequisites {u} do not grant; add "k" or "pn" to its prerequisites
local Gain = leaf "Gain" {
  parameter { "k", default = { 1.0 } },
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "u" },
    calc = [[ y[0] = k[0] * u[0]; ]] },
}
return diagram "top" { system { "g", Gain }, fix_input { "g.u", value = { 1 } } }
