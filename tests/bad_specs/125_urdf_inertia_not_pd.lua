-- expect: diagc: DIR/urdf/inertia_not_pd.urdf:4: body 'b': inertia {0.1, 0.1, 0.1, 0.5, 0, 0} is not positive definite; give the rotational inertia about the centre of mass (all principal moments > 0) (imported at FILE:4)
-- world/check.lua's inertia check, located at the URDF <link>.
local W = world "w" {
  urdf { "urdf/inertia_not_pd.urdf" },
}
return diagram "top" { system { "w", W } }
