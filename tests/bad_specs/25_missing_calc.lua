-- expect: diagc: FILE:3: output_port needs a calc = [[ C statements ]]
local Src = leaf "Src" {
  output_port { "y", size = 1, prerequisites = { "time" } },
}
return diagram "top" { system { "s", Src } }
