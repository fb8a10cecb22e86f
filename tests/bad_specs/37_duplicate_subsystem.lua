-- expect: diagc: FILE:7: diagram "top" already has a subsystem named 'src'
local Src = leaf "Src" {
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
}
return diagram "top" {
  system { "src", Src },
  system { "src", Src },
}
