-- expect: diagc: FILE:5:74: output port 'b' of leaf "Two" reads 'a' (output port 'a'): a calc cannot read an output port; compute the value in a cache_entry and list it as a prerequisite of both
local Two = leaf "Two" {
  input_port { "u", size = 1 },
  output_port { "a", size = 1, prerequisites = { "u" }, calc = [[ a[0] = 2.0 * u[0]; ]] },
  output_port { "b", size = 1, prerequisites = { "u" }, calc = [[ b[0] = a[0] + 1.0; ]] },
}
return diagram "top" { system { "s", Two }, fix_input { "s.u", value = { 1 } } }
