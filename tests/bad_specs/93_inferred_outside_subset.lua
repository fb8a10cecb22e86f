-- expect: diagc: FILE:10:5: the calc of output port 'y' of leaf "Acc" cannot infer its prerequisites: a while loop ('while'); this is outside the differentiable subset of C (see docs/jacobians.md); list the prerequisites instead of "inferred"
-- prerequisites = "inferred" reads the body with the differentiable-subset
-- parser (issue #16 item 4): a construct outside it is an error there.
local Acc = leaf "Acc" {
  parameter { "k", default = { 3 } },
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = "inferred", calc = [[
    double s = 0.0;
    int i = 0;
    while (i < 3) { s += k[0] * u[0]; i++; }
    y[0] = s; ]] },
}
return diagram "top" { system { "a", Acc }, fix_input { "a.u", value = { 1 } } }
