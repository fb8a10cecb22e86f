-- expect: diagc: DIR/urdf/unknown_type.urdf:5: joint 'j1': unknown joint type 'hinge' (types: revolute, continuous, prismatic, fixed, floating, planar) (imported at FILE:4)
-- A joint type URDF does not define.
local W = world "w" {
  urdf { "urdf/unknown_type.urdf" },
}
return diagram "top" { system { "w", W } }
