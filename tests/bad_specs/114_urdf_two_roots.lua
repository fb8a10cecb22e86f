-- expect: diagc: DIR/urdf/two_roots.urdf:5: the URDF has two root links, 'a' (line 3) and 'c'; join every link but one to a parent (imported at FILE:4)
-- Two links without a parent joint: the robot is not one tree.
local W = world "w" {
  urdf { "urdf/two_roots.urdf" },
}
return diagram "top" { system { "w", W } }
