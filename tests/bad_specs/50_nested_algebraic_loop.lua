-- expect: diagc: FILE:15: algebraic loop through direct-feedthrough ports: a.g.y → b.u → b.y → a.g.u → a.g.y; break it with a state (e.g. a discrete delay) or narrow the prerequisites of an output so it does not read its inputs
local Gain = leaf "Gain" {
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "u" }, calc = [[ y[0] = 0.5 * u[0]; ]] },
}
local Inner = diagram "inner" {
  system { "g", Gain },
  export_input { "g.u", as = "in" },
  export_output { "g.y", as = "out" },
}
return diagram "top" {
  system { "a", Inner },
  system { "b", Gain },
  connect { "a.out", "b.u" },
  connect { "b.y", "a.in" },
}
