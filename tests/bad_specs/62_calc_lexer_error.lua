-- expect: diagc: FILE:4:25: in the calc of output port 'y': unterminated comment
local Src = leaf "Src" {
  output_port { "y", size = 1, prerequisites = { "time" },
    calc = [[ y[0] = t; /* a comment that never ends ]] },
}
return diagram "top" { system { "s", Src } }
