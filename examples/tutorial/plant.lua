-- The spring-mass as a plant: force in, position out.
local SpringMass = import "spring_mass_leaf.lua"

return diagram "plant" {
  system { "body", SpringMass },
  export_input { "body.f", as = "force" },
  export_output { "body.position", as = "x" },
}
