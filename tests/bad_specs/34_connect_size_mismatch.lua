-- expect: diagc: FILE:12: connect: 'source.y' has size 2 but 'sink.u' has size 3
local Src = leaf "Src" {
  output_port { "y", size = 2, prerequisites = { "time" }, calc = [[ y[0] = t; y[1] = -t; ]] },
}
local Sink = leaf "Sink" {
  input_port { "u", size = 3 },
  output_port { "y", size = 1, prerequisites = { "u" }, calc = [[ y[0] = u[0]; ]] },
}
return diagram "top" {
  system { "source", Src },
  system { "sink", Sink },
  connect { "source.y", "sink.u" },
}
