-- expect: diagc: DIR/urdf/malformed.urdf:6:5: malformed XML: mismatched tag (imported at FILE:4)
-- Malformed XML: expat's message at the URDF's line and column.
local W = world "w" {
  urdf { "urdf/malformed.urdf" },
}
return diagram "top" { system { "w", W } }
