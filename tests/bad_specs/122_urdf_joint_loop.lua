-- expect: diagc: DIR/urdf/loop.urdf:4: link 'b' is on a loop of joints (it is not connected to the root link 'a') (imported at FILE:4)
-- Joints b -> c -> b: a loop not connected to the root link.
local W = world "w" {
  urdf { "urdf/loop.urdf" },
}
return diagram "top" { system { "w", W } }
