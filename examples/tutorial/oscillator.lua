-- A sinusoidal force drives the spring-mass.
local SpringMass = import "spring_mass_leaf.lua"

local Sine = leaf "Sine" {
  parameter { "amplitude", default = { 1.0 } },
  parameter { "omega", default = { 1.0 } },          -- rad/s
  output_port { "y", size = 1, prerequisites = { "time", "amplitude", "omega" },
    calc = [[ y[0] = amplitude[0] * sin(omega[0] * t); ]] },
}

return diagram "oscillator" {
  system { "drive", Sine, parameters = { amplitude = { 2.0 }, omega = { 1.5 } } },
  system { "body", SpringMass, parameters = { damping = { 0.2 } } },
  connect { "drive.y", "body.f" },
  export_output { "body.position", as = "x" },
  log { "drive.y", period = 0.5 },
  log { "body.position", period = 0.5 },
}
