-- expect: diagc: FILE:13: parameters: 'P.k' does not name a parameter inside diagram "law"; use "subsystem.parameter"
local Gain = leaf "Gain" {
  parameter { "k", default = { 1.0 } },
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "k", "u" }, calc = [[ y[0] = k[0] * u[0]; ]] },
}
local Law = diagram "law" {
  system { "p", Gain },
  export_input { "p.u", as = "e" },
  export_output { "p.y", as = "u" },
}
return diagram "top" {
  system { "ctl", Law, parameters = { ["P.k"] = { 40.0 } } },
  export_input { "ctl.e" },
}
