-- expect: diagc: DIR/urdf/negative_mass.urdf:6: link 'b': <mass value> must not be negative, got -2 (imported at FILE:4)
-- A negative mass, at its <mass> element.
local W = world "w" {
  urdf { "urdf/negative_mass.urdf" },
}
return diagram "top" { system { "w", W } }
