-- expect: diagc: FILE:3: parameter name 'gain__k' contains '__', which diagc reserves for path separators
local Gain = leaf "Gain" {
  parameter { "gain__k", default = { 1.0 } },
}
return diagram "top" { system { "g", Gain } }
