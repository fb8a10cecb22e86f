-- expect: diagc: FILE:3: name 'TOP_NQ' starts with 'TOP_', which the generated header uses for its macros (model prefix 'top'); choose another name or pass --name
local A = leaf "A" {
  parameter { "TOP_NQ", default = { 1 } },
  output_port { "y", size = 1, prerequisites = { "TOP_NQ" }, calc = [[ y[0] = TOP_NQ[0]; ]] },
}
return diagram "top" { system { "a", A } }
