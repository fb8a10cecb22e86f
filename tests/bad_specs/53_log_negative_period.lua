-- expect: diagc: FILE:7: log period must be >= 0 (0 logs every step)
local Src = leaf "Src" {
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
}
return diagram "top" {
  system { "s", Src },
  log { "s.y", period = -0.01 },
}
