-- expect: diagc: FILE:5: prerequisite 'a' is an output port; a calc may list only sources and cache entries of its own leaf (declare a cache_entry and list that)
local Two = leaf "Two" {
  input_port { "u", size = 1 },
  output_port { "a", size = 1, prerequisites = { "u" }, calc = [[ a[0] = 2.0 * u[0]; ]] },
  output_port { "b", size = 1, prerequisites = { "a" }, calc = [[ b[0] = a[0] + 1.0; ]] },
}
return diagram "top" { system { "s", Two }, fix_input { "s.u", value = { 1 } } }
