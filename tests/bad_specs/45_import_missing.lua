-- expect: diagc: FILE:2: cannot import 'DIR/no_such_library.lua': no such file
local Lib = import "no_such_library.lua"
return diagram "top" { system { "g", Lib.Gain } }
