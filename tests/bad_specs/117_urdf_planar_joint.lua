-- expect: diagc: FILE:4: urdf actuated[0]: joint 'j1' is planar; a planar joint cannot be actuated (its three dofs are passive)
-- A planar joint becomes three passive dofs (two slides and a turn); none takes an effort.
local W = world "w" {
  urdf { "urdf/planar.urdf", actuated = { "j1" } },
}
return diagram "top" { system { "w", W } }
