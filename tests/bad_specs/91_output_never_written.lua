-- expect: diagc: FILE:6:1: the calc of output port 'y' of leaf "Pair": y[1] is never written; assign it in the body
-- An output port of size 2 whose calc writes only its first element.
local Pair = leaf "Pair" {
  input_port { "u", size = 1 },
  output_port { "y", size = 2, prerequisites = { "u" }, calc = [[
    y[0] = 2.0 * u[0]; ]] },
}
return diagram "top" { system { "p", Pair }, fix_input { "p.u", value = { 1 } } }
