-- A bouncing ball: dropped from 1 m at rest under gravity, it bounces on
-- the ground (y = 0) with a coefficient of restitution of 0.8.
--   y' = v, v' = -g;  at impact (y falls through 0): v <- -e v
-- The impact is a witness function (zero crossing of y, positive to
-- non-positive) that fires an unrestricted update at the isolated time.
local Ball = leaf "Ball" {
  continuous_state { q = { "y" }, v = { "vy" }, q0 = { 1.0 }, v0 = { 0.0 } },
  parameter { "gravity", default = { 9.81 } },
  parameter { "restitution", default = { 0.8 } },

  derivatives {
    prerequisites = { "v", "gravity" },
    calc = [[
      qdot[0] = v[0];
      vdot[0] = -gravity[0];
    ]],
  },

  witness { "impact", direction = "positive_to_nonpositive",
    prerequisites = { "q", "v", "restitution" },
    calc = [[ value = q[0]; ]],
    unrestricted_update = [[ v_next[0] = -restitution[0] * v[0]; ]],
    writes = { "v" },
  },

  output_port { "y", size = 1, prerequisites = { "q" }, calc = [[ y[0] = q[0]; ]] },
  output_port { "vy", size = 1, prerequisites = { "v" }, calc = [[ vy[0] = v[0]; ]] },
}

return diagram "bouncing_ball" {
  system { "ball", Ball },
  log { "ball.y", period = 0.001 },
}
