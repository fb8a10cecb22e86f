-- expect: diagc: DIR/urdf/not_robot.urdf:2: a URDF's root element is <robot>, not <model> (imported at FILE:4)
-- A document whose root element is not <robot>.
local W = world "w" {
  urdf { "urdf/not_robot.urdf" },
}
return diagram "top" { system { "w", W } }
