-- expect: diagc: DIR/urdf/unknown_child.urdf:5: joint 'j1': its child link 'c' is not a link of this URDF (imported at FILE:4)
-- A joint whose child link is not declared.
local W = world "w" {
  urdf { "urdf/unknown_child.urdf" },
}
return diagram "top" { system { "w", W } }
