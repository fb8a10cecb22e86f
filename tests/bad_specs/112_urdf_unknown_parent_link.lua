-- expect: diagc: DIR/urdf/unknown_parent.urdf:5: joint 'j1': its parent link 'base' is not a link of this URDF (imported at FILE:4)
-- A joint whose parent link is not declared.
local W = world "w" {
  urdf { "urdf/unknown_parent.urdf" },
}
return diagram "top" { system { "w", W } }
