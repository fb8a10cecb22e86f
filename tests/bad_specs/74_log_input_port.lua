-- expect: diagc: FILE:9: log 'sink.u' is an input port of 'sink', but an output port is needed here
local Sink = leaf "Sink" {
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "u" }, calc = [[ y[0] = u[0]; ]] },
}
return diagram "top" {
  system { "sink", Sink },
  fix_input { "sink.u", value = { 1.0 } },
  log { "sink.u", period = 0.1 },
}
