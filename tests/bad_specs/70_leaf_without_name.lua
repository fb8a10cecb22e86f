-- expect: diagc: FILE:2: leaf expects a name first, as in leaf "Name" { ... }
local Src = leaf {
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
}
return diagram "top" { system { "s", Src } }
