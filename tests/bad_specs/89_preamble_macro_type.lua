-- expect: diagc: FILE:7: type 'mode_t_' of 'm' is a macro of a c_preamble, and a preamble's macros exist only in its leaf's code; declare the type with typedef
local A = leaf "A" {
  c_preamble [[
#define mode_t_ int
]],
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
  abstract_state { "m", type = "mode_t_" },
}
return diagram "top" { system { "a", A } }
