-- expect: diagc: FILE:8: fix_input takes 1 positional value; found one at position 2
local Sink = leaf "Sink" {
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "u" }, calc = [[ y[0] = u[0]; ]] },
}
return diagram "top" {
  system { "sink", Sink },
  fix_input { "sink.u", { 1.0 } },
}
