-- expect: diagc: FILE:3: parameter 'k' default[1] must be a finite number, got inf
local Gain = leaf "Gain" {
  parameter { "k", default = { 1.0, math.huge } },
}
return diagram "top" { system { "g", Gain } }
