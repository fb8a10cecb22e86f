-- expect: diagc: FILE:8: C error in a calc body: ';' expected (got "y")
local Gain = leaf "Gain" {
  parameter { "k", default = { 1.0 } },
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "k", "u" },
    calc = [[
      double g = k[0]
      y[0] = g * u[0];
    ]] },
}
return diagram "top" { system { "g", Gain }, fix_input { "g.u", value = { 1 } } }
