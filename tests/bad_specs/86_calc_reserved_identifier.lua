-- expect: diagc: FILE:4:24: in the calc of output port 'y': '__attribute__' is reserved for the C implementation (names starting with __ or _ and a capital letter); use a C99 construct or another name
local A = leaf "A" {
  output_port { "y", size = 1, prerequisites = { "time" },
    calc = [[ double z __attribute__((unused)) = t; y[0] = t; ]] },
}
return diagram "top" { system { "a", A } }
