-- expect: diagc: FILE:15: algebraic loop through direct-feedthrough ports: plant.y → ctl.u → ctl.y → plant.u → plant.y; plant.y lists no prerequisites, so it defaults to all_sources, which includes its input ports: list only what its calc reads: prerequisites = { "x" }
local Plant = leaf "Plant" {
  discrete_state { "x", default = { 0 } },
  input_port { "u", size = 1 },
  output_port { "y", size = 1, calc = [[ y[0] = x[0]; ]] },
}
local Gain = leaf "Gain" {
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "u" }, calc = [[ y[0] = -2 * u[0]; ]] },
}
return diagram "top" {
  system { "plant", Plant },
  system { "ctl", Gain },
  connect { "plant.y", "ctl.u" },
  connect { "ctl.y", "plant.u" },
}
