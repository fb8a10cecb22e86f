-- expect: diagc: FILE:3: 't' is reserved in calc bodies (built-in ticket or generated name); choose another name
local Clock = leaf "Clock" {
  discrete_state { "t", default = { 0 } },
}
return diagram "top" { system { "c", Clock } }
