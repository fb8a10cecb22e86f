-- expect: diagc: FILE:3: prerequisite "nothing" must stand alone; remove it or the other tickets
local Src = leaf "Src" {
  output_port { "y", size = 1, prerequisites = { "nothing", "time" }, calc = [[ y[0] = t; ]] },
}
return diagram "top" { system { "s", Src } }
