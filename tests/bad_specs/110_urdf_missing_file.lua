-- expect: diagc: FILE:4: cannot read URDF file 'DIR/urdf/none.urdf': no such file
-- A URDF file that does not exist: the error is at the urdf item.
local W = world "w" {
  urdf { "urdf/none.urdf" },
}
return diagram "top" { system { "w", W } }
