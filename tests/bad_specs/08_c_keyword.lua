-- expect: diagc: FILE:3: input_port name 'int' is a C keyword; choose another name
local Gain = leaf "Gain" {
  input_port { "int", size = 1 },
}
return diagram "top" { system { "g", Gain, }, fix_input { "g.int", value = { 0 } } }
