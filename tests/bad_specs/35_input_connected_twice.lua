-- expect: diagc: FILE:14: input port 'sink.u' is already connected to 'a.y'; an input has exactly one source
local Src = leaf "Src" {
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
}
local Sink = leaf "Sink" {
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "u" }, calc = [[ y[0] = u[0]; ]] },
}
return diagram "top" {
  system { "a", Src },
  system { "b", Src },
  system { "sink", Sink },
  connect { "a.y", "sink.u" },
  connect { "b.y", "sink.u" },
}
