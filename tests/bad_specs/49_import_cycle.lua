-- expect: diagc: DIR/lib/cycle_b.lua:2: import cycle: DIR/49_import_cycle.lua → DIR/lib/cycle_b.lua → DIR/49_import_cycle.lua
local Lib = import "lib/cycle_b.lua"
return diagram "top" { system { "g", Lib.Gain } }
