-- expect: diagc: FILE:4: urdf actuated[1]: joint 'j2' is fixed and cannot be actuated
-- Actuating a fixed joint of the URDF.
local W = world "w" {
  urdf { "urdf/actuated_fixed.urdf", actuated = { "j1", "j2" } },
}
return diagram "top" { system { "w", W } }
