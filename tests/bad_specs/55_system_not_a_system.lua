-- expect: diagc: FILE:5: system "s" needs a leaf or diagram as its second value, got string
local Src = leaf "Src" {
  output_port { "y", size = 1, prerequisites = { "time" }, calc = [[ y[0] = t; ]] },
}
return diagram "top" { system { "s", "Src" } }
