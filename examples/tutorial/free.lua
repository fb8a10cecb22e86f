-- The spring-mass released from x = 1 with no external force.
local SpringMass = import "spring_mass_leaf.lua"

return diagram "free" {
  system { "body", SpringMass },
  fix_input { "body.f", value = { 0.0 } },
  log { "body.position", period = 0.5 },
}
