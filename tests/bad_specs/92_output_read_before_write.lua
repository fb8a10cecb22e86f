-- expect: diagc: FILE:6:5: the calc of output port 'y' of leaf "Acc": y[0] is read before it is written (its value would be stale); assign it before reading it, or read a local instead
-- An output that accumulates into its own stale value.
local Acc = leaf "Acc" {
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "u" }, calc = [[
    y[0] += u[0]; ]] },
}
return diagram "top" { system { "a", Acc }, fix_input { "a.u", value = { 1 } } }
