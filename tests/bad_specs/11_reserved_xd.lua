-- expect: diagc: FILE:3: 'xd' is reserved in calc bodies (built-in ticket or generated name); choose another name
local Holder = leaf "Holder" {
  discrete_state { "xd", size = 2 },
}
return diagram "top" { system { "h", Holder } }
