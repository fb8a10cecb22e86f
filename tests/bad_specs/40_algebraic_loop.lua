-- expect: diagc: FILE:10: algebraic loop through direct-feedthrough ports: a.y → b.u → b.y → a.u → a.y; break it with a state (e.g. a discrete delay) or narrow the prerequisites of an output so it does not read its inputs
local Gain = leaf "Gain" {
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "u" }, calc = [[ y[0] = 0.5 * u[0]; ]] },
}
return diagram "top" {
  system { "a", Gain },
  system { "b", Gain },
  connect { "a.y", "b.u" },
  connect { "b.y", "a.u" },
}
