-- expect: diagc: FILE:5:28: output port 'y' of leaf "Hold" reads 'x_next' (the next value of 'x'): only update events write 'x_next' (and only states they may write)
local Hold = leaf "Hold" {
  discrete_state { "x", default = { 0 } },
  output_port { "y", size = 1, prerequisites = { "x" },
    calc = [[ y[0] = x[0]; x_next[0] = 0.0; ]] },
}
return diagram "top" { system { "h", Hold } }
