-- expect: diagc: FILE:7: log 's_y' must have the form "system.port"
local Src = leaf "Src" {
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
}
return diagram "top" {
  system { "s", Src },
  log { "s_y", period = 0.1 },
}
