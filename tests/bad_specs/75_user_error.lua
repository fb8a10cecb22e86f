-- expect: diagc: FILE:3: n_joints must be positive
local n_joints = 0
assert(n_joints > 0, "n_joints must be positive")
return diagram "top" {}
