-- expect: diagc: DIR/urdf/mimic.urdf:8: joint 'j2': <mimic> joints are not supported; remove the <mimic> to make the joint independent (imported at FILE:4)
-- Mimic joints couple two joints; a world's joints are independent.
local W = world "w" {
  urdf { "urdf/mimic.urdf" },
}
return diagram "top" { system { "w", W } }
