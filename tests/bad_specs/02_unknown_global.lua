-- expect: diagc: FILE:4: unknown name 'input_prot'; did you mean 'input_port'?
local Gain = leaf "Gain" {
  parameter { "k", default = { 1.0 } },
  input_prot { "u", size = 1 },
}
return diagram "top" { system { "g", Gain } }
