-- expect: diagc: FILE:7: unknown prerequisite 'inferred' in leaf "Gain"; to infer the prerequisites from the body write prerequisites = "inferred" (a string, not a list)
-- "inferred" asks for inference only as the string itself; in a list it
-- would be a ticket, and the leaf has none by that name.
local Gain = leaf "Gain" {
  parameter { "k", default = { 3 } },
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "inferred" }, calc = "y[0] = k[0] * u[0];" },
}
return diagram "top" { system { "g", Gain }, fix_input { "g.u", value = { 1 } } }
