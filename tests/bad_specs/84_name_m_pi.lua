-- expect: diagc: FILE:3: parameter name 'M_PI' is a math constant macro of some C libraries (M_PI, ...), so the generated C would not mean the name; choose another name
local A = leaf "A" {
  parameter { "M_PI", default = { 3 } },
  output_port { "y", size = 1, prerequisites = { "M_PI" }, calc = [[ y[0] = M_PI[0]; ]] },
}
return diagram "top" { system { "a", A } }
