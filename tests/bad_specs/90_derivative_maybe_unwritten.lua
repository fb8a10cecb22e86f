-- expect: diagc: FILE:9:5: the calc of derivatives of leaf "Valve": zdot[1] may not be written: a path through this branch leaves it unassigned; assign it on every path (e.g. before the if, or in both branches)
-- A derivative element assigned on one branch only: on the other path it
-- would keep a stale value (issue #16 item 5).
local Valve = leaf "Valve" {
  continuous_state { z = 2 },
  input_port { "u", size = 1 },
  derivatives { prerequisites = { "z", "u" }, calc = [[
    zdot[0] = u[0] - z[0];
    if (u[0] > 0) zdot[1] = z[0]; ]] },
}
return diagram "top" { system { "v", Valve }, fix_input { "v.u", value = { 1 } } }
