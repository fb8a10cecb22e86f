-- expect: diagc: FILE:3: output_port calc must be a string of C statements (use [[ ... ]]), got function
local Src = leaf "Src" {
  output_port { "y", size = 1, prerequisites = { "time" },
    calc = function(t) return t end },
}
return diagram "top" { system { "s", Src } }
