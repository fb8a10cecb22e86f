-- expect: diagc: FILE:3: input_port size must be a positive integer, got 0
local Gain = leaf "Gain" {
  input_port { "u", size = 0 },
}
return diagram "top" { system { "g", Gain } }
