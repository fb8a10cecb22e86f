-- Benchmark model: Robertson's chemical kinetics (stiff, 3 states):
--   y1' = -k1 y1 + k3 y2 y3,  y2' = k1 y1 - k3 y2 y3 - k2 y2^2,  y3' = k2 y2^2
-- k1 = 0.04, k2 = 3e7, k3 = 1e4, y(0) = (1, 0, 0).
local Robertson = leaf "Robertson" {
  continuous_state { z = { "y1", "y2", "y3" }, z0 = { 1.0, 0.0, 0.0 } },
  parameter { "k1", default = { 0.04 } },
  parameter { "k2", default = { 3e7 } },
  parameter { "k3", default = { 1e4 } },
  derivatives {
    prerequisites = { "z", "k1", "k2", "k3" },
    calc = [[
      zdot[0] = -k1[0] * z[0] + k3[0] * z[1] * z[2];
      zdot[2] = k2[0] * z[1] * z[1];
      zdot[1] = -zdot[0] - zdot[2];
    ]],
  },
}
return diagram "srob" { system { "rob", Robertson } }
