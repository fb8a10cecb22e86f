-- expect: diagc: FILE:5:1: in the calc of output port 'y': preprocessor directive '#define sin(x) 42.0'; code here is statements of one C function: put #include and #define in a c_preamble
local A = leaf "A" {
  output_port { "y", size = 1, prerequisites = { "time" },
    calc = [[ y[0] = t;
#define sin(x) 42.0
]] },
}
return diagram "top" { system { "a", A } }
