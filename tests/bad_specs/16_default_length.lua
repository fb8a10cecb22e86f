-- expect: diagc: FILE:3: discrete_state 'x' default has 2 values but the size is 3
local Filter = leaf "Filter" {
  discrete_state { "x", size = 3, default = { 0, 0 } },
}
return diagram "top" { system { "f", Filter } }
