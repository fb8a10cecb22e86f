-- expect: diagc: FILE:12: connect source 'sorce.y': diagram "top" has no subsystem 'sorce'; did you mean 'source'?
local Src = leaf "Src" {
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
}
local Sink = leaf "Sink" {
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "u" }, calc = [[ y[0] = u[0]; ]] },
}
return diagram "top" {
  system { "source", Src },
  system { "sink", Sink },
  connect { "sorce.y", "sink.u" },
}
