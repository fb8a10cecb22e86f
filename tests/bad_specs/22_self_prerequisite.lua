-- expect: diagc: FILE:4: 'sum' lists itself as a prerequisite
local Acc = leaf "Acc" {
  input_port { "u", size = 1 },
  cache_entry { "sum", size = 1, prerequisites = { "u", "sum" }, calc = [[ sum[0] = u[0]; ]] },
}
return diagram "top" { system { "a", Acc }, fix_input { "a.u", value = { 1 } } }
