-- expect: diagc: FILE:4: 'connect' cannot appear in a leaf; it belongs in a diagram
local Src = leaf "Src" {
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
  connect { "a.y", "b.u" },
}
return diagram "top" { system { "s", Src } }
