-- expect: diagc: FILE:4: cycle of cache entries: o.a → o.b → o.a
local Odd = leaf "Odd" {
  input_port { "u", size = 1 },
  cache_entry { "a", size = 1, prerequisites = { "u", "b" }, calc = [[ a[0] = u[0] + b[0]; ]] },
  cache_entry { "b", size = 1, prerequisites = { "a" }, calc = [[ b[0] = 2.0 * a[0]; ]] },
  output_port { "y", size = 1, prerequisites = { "a" }, calc = [[ y[0] = a[0]; ]] },
}
return diagram "top" { system { "o", Odd }, fix_input { "o.u", value = { 1 } } }
