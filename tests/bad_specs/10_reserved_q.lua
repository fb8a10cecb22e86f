-- expect: diagc: FILE:3: 'q' is reserved in calc bodies (built-in ticket or generated name); choose another name
local Joint = leaf "Joint" {
  parameter { "q", default = { 0 } },
}
return diagram "top" { system { "j", Joint } }
