-- expect: diagc: FILE:8: export_input default has 1 value but the size is 2
local Sink = leaf "Sink" {
  input_port { "u", size = 2 },
  output_port { "y", size = 1, prerequisites = { "u" }, calc = [[ y[0] = u[0] + u[1]; ]] },
}
return diagram "top" {
  system { "sink", Sink },
  export_input { "sink.u", as = "cmd", default = { 0.0 } },
}
