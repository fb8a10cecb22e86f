-- expect: diagc: FILE:3: parameter name '2k' is not a valid name: use letters, digits and _ starting with a letter
local Gain = leaf "Gain" {
  parameter { "2k", default = { 1.0 } },
}
return diagram "top" { system { "g", Gain } }
