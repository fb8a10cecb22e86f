-- expect: diagc: FILE:4:1: in the c_preamble of leaf "A": directive '#pragma' is not allowed in a c_preamble; use #include of a C99 standard header, #define, #undef and #if/#ifdef/#ifndef/#elif/#else/#endif
local A = leaf "A" {
  c_preamble [[
#pragma comment(lib, "evil")
]],
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
}
return diagram "top" { system { "a", A } }
