-- expect: diagc: FILE:4: syntax error: '}' expected (to close '{' at line 2) near 'input_port'
local Gain = leaf "Gain" {
  parameter { "k", default = { 1.0 } }
  input_port { "u", size = 1 },
}
return diagram "top" { system { "g", Gain } }
