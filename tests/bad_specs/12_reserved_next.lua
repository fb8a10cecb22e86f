-- expect: diagc: FILE:4: 'x_next' is reserved in calc bodies (built-in ticket or generated name); choose another name
local Filter = leaf "Filter" {
  discrete_state { "x", default = { 0 } },
  parameter { "x_next", default = { 0 } },
}
return diagram "top" { system { "f", Filter } }
