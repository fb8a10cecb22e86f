-- expect: diagc: FILE:3: output_port needs a name, as in output_port { "name", ... }
local Src = leaf "Src" {
  output_port { size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
}
return diagram "top" { system { "s", Src } }
