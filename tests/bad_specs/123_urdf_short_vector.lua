-- expect: diagc: DIR/urdf/short_vector.urdf:6: joint 'j1': <origin xyz="0 0"> must hold 3 numbers, got 2 (imported at FILE:4)
-- An origin xyz with two numbers.
local W = world "w" {
  urdf { "urdf/short_vector.urdf" },
}
return diagram "top" { system { "w", W } }
