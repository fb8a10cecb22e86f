-- expect: diagc: FILE:7: input port 'sink.u' of diagram "top" has no source; connect it, export it (export_input) or fix it (fix_input)
local Sink = leaf "Sink" {
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "u" }, calc = [[ y[0] = u[0]; ]] },
}
return diagram "top" {
  system { "sink", Sink },
  log { "sink.y" },
}
