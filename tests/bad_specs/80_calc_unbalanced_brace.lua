-- expect: diagc: FILE:4:25: in the calc of output port 'y': unbalanced '}' closes nothing opened here; brackets must pair up within the code
local A = leaf "A" {
  output_port { "y", size = 1, prerequisites = { "time" },
    calc = [[ y[0] = t; } int leaked = 1; static void f(void) { ]] },
}
return diagram "top" { system { "a", A } }
