-- expect: diagc: FILE:3: attempt to index field 'math' (a nil value)
local blocks = {}
local Gain = blocks.math.Gain
return diagram "top" { system { "g", Gain } }
