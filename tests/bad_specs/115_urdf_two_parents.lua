-- expect: diagc: DIR/urdf/two_parents.urdf:7: link 'c' has two parents: joint 'j1' (line 6) and joint 'j2'; a URDF is a tree (imported at FILE:4)
-- A link that is the child of two joints.
local W = world "w" {
  urdf { "urdf/two_parents.urdf" },
}
return diagram "top" { system { "w", W } }
