-- expect: diagc: FILE:3: abstract_state type must be a C type name such as "my_struct" or "int", got 'double[4]'
local Buffer = leaf "Buffer" {
  abstract_state { "samples", type = "double[4]" },
}
return diagram "top" { system { "b", Buffer } }
