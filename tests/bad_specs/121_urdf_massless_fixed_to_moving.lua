-- expect: diagc: DIR/urdf/massless_fixed_to_moving.urdf:5: link 'c' moves (joint 'j2' fixes it to link 'b', which moves) but has no mass: give it an <inertial> with a positive <mass> and its <inertia>
-- A massless link fixed to a moving link moves too.
local W = world "w" {
  urdf { "urdf/massless_fixed_to_moving.urdf" },
}
return diagram "top" { system { "w", W } }
