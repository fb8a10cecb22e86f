-- expect: diagc: FILE:3: input_port has no field 'sise'; did you mean 'size'?
local Gain = leaf "Gain" {
  input_port { "u", sise = 1 },
}
return diagram "top" { system { "g", Gain } }
