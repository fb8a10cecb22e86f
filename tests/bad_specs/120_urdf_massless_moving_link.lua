-- expect: diagc: DIR/urdf/massless.urdf:4: link 'b' moves (joint 'j1' is prismatic) but has no mass: give it an <inertial> with a positive <mass> and its <inertia> (imported at FILE:4)
-- A link without <inertial> on a prismatic joint: it moves, so it needs a mass.
local W = world "w" {
  urdf { "urdf/massless.urdf" },
}
return diagram "top" { system { "w", W } }
