-- expect: diagc: FILE:5: C error in a calc body: 'M_PI' undeclared; M_PI is POSIX, not C99: define the constant yourself (e.g. #define PI 3.14159265358979323846 in a c_preamble)
local A = leaf "A" {
  c_preamble [[ #include <math.h> ]],
  output_port { "y", size = 1, prerequisites = { "time" },
    calc = [[ y[0] = M_PI * t; ]] },
}
return diagram "top" { system { "a", A } }
