-- expect: diagc: FILE:3: prerequisites is an empty list; list the values the calc reads, or write {"nothing"} if it reads none (omit the field to mean all_sources)
local Src = leaf "Src" {
  output_port { "y", size = 1, prerequisites = {}, calc = [[ y[0] = 1.0; ]] },
}
return diagram "top" { system { "s", Src } }
