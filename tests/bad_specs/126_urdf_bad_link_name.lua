-- expect: diagc: DIR/urdf/bad_name.urdf:4: link 'arm-link' cannot name a body: a body name is letters, digits and single _ starting with a letter; rename the link (imported at FILE:4)
-- A link name that is not a body name (a hyphen), at the URDF <link>.
local W = world "w" {
  urdf { "urdf/bad_name.urdf" },
}
return diagram "top" { system { "w", W } }
