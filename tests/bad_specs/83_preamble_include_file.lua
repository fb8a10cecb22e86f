-- expect: diagc: FILE:4:1: in the c_preamble of leaf "A": #include "/dev/zero" is not a C99 standard header; a c_preamble may include only <math.h>, <stdint.h>, ... (the C99 standard headers) and <diagc/model.h>
local A = leaf "A" {
  c_preamble [[
#include "/dev/zero"
]],
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
}
return diagram "top" { system { "a", A } }
