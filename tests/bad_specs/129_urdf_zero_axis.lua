-- expect: diagc: DIR/urdf/zero_axis.urdf:5: joint 'j1': <axis xyz> must be a nonzero direction, got "0 0 0" (imported at FILE:4)
-- A joint axis of zero length.
local W = world "w" {
  urdf { "urdf/zero_axis.urdf" },
}
return diagram "top" { system { "w", W } }
