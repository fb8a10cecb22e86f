-- expect: diagc: FILE:12: connect destination 'sink.y' is an output port of 'sink', but an input port is needed here
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
  connect { "source.y", "sink.y" },
}
