-- Helper for 132_loop_closed_outside.lua: a subdiagram whose own connect
-- is part of the loop the importing spec closes.  This connect sits at a
-- later line (of this file) than the one that closes the loop, but it is
-- declared first: the outer diagram is built after its subsystems' types.
local Gain = leaf "Gain" {
  input_port { "u", size = 1 },
  output_port { "y", size = 1, prerequisites = { "u" }, calc = [[ y[0] = 0.5 * u[0]; ]] },
}

return diagram "inner" {
  system { "g", Gain },
  system { "h", Gain },
  export_input { "g.u", as = "in" },
  connect { "g.y", "h.u" },
  export_output { "h.y", as = "out" },
}
