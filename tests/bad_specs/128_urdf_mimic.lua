-- expect: diagc: DIR/urdf/mimic.urdf:8: joint 'j2': <mimic joint="j9"> names no joint of this URDF (imported at FILE:4)
-- A mimic joint follows another joint of the file, which must exist.
local W = world "w" {
  urdf { "urdf/mimic.urdf" },
}
return diagram "top" { system { "w", W } }
