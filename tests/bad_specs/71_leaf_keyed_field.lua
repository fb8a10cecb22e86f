-- expect: diagc: FILE:2: leaf "Src": unexpected field 'period'; declarations are listed without keys
local Src = leaf "Src" {
  period = 0.1,
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
}
return diagram "top" { system { "s", Src } }
