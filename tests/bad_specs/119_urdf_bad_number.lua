-- expect: diagc: DIR/urdf/bad_number.urdf:5: link 'b': <mass value="1,5">: '1,5' is not a number (imported at FILE:4)
-- A number URDF cannot hold (a decimal comma).
local W = world "w" {
  urdf { "urdf/bad_number.urdf" },
}
return diagram "top" { system { "w", W } }
