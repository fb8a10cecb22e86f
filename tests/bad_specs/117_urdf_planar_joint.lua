-- expect: diagc: DIR/urdf/planar.urdf:5: joint 'j1': planar joints are not supported (types: revolute, continuous, prismatic, fixed, floating) (imported at FILE:4)
-- Planar joints have no counterpart among a world's joints.
local W = world "w" {
  urdf { "urdf/planar.urdf" },
}
return diagram "top" { system { "w", W } }
