-- expect: diagc: FILE:9: export_input: 'm.b' has size 2, unlike the other targets (size 1)
local Mix = leaf "Mix" {
  input_port { "a", size = 1 },
  input_port { "b", size = 2 },
  output_port { "y", size = 1, prerequisites = { "a", "b" }, calc = [[ y[0] = a[0] + b[0]; ]] },
}
return diagram "top" {
  system { "m", Mix },
  export_input { "m.a", "m.b", as = "cmd" },
}
