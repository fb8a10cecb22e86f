-- Trajectory optimization through a bounce (issue #18): a ball of radius
-- 5 cm leaves the origin with velocity (vx, 0, vz), bounces off a
-- frictionless wall whose face is the plane x = 0.5 m (restitution
-- e = 0.8, no floor) and must pass through a target point at T = 0.6 s
-- (600 steps of 1 ms).  bounce_target_test.lua chooses (vx, vz) by
-- Gauss-Newton with the gradients of c:rollout / traj:vjp, and runs the
-- same optimization with central differences of the whole rollout.
--
-- Continuous time: the centre reaches x = L = 0.45 at t_c = L / vx and
-- comes back at e vx, so x(T) = L - e vx (T - t_c) and
-- z(T) = vz T - g T^2 / 2.  The world's position_update = "parallel" is
-- the form DiffDART's Jacobians assume; its bounce factor (the default
-- bounce_gradient = "approximate") makes d x_N / d vx = -e T, the
-- derivative of that closed form: the gradient sees the impact time move.
--
-- The discrete trajectory bounces at a whole step: the contact appears
-- when the gap falls below the margin (1 mm) at some step k, the ball
-- moves on by vx dt in that step (parallel update) and leaves at -e vx.
-- x_N is therefore a sawtooth around the closed form: linear in vx with
-- slope (1 + e) t_{k+1} - e T while k stays, jumping by -(1 + e) vx dt
-- where k changes.  Central differences of the rollout see the local
-- slope (the derivative of the discrete map: -0.15 at the test's start,
-- -0.30 at its solution, against -e T = -0.48; positive for a bounce
-- after e T / (1 + e)), or a jump's (1 + e) vx dt / 2h when the stencil
-- straddles one; bounce_gradient = "exact" gives the local slope too.
-- While (1 + e) t_c < e T (an early bounce, as here) the map decreases,
-- Gauss-Newton with the bounce-factor gradient contracts by
-- (1 + e) t_c / (e T) per iteration, and the points the discrete
-- trajectory reaches cover a fraction 1 - (1 + e) t_c / (e T) of the line
-- (the rest fall in the jumps and can be approached to (1 + e) vx dt / 2
-- only).  The test's target is the landing point of a known throw.
-- Measured (bin/diagc test examples/world/bounce_target_test.lua): from
-- (2.5, 1) Gauss-Newton with vjp gradients reaches loss 7e-9 in 4
-- iterations (5 rollouts); with central differences (h = 1e-6 .. 1e-3)
-- the loss first rises (1.2 -> 2.0) and wanders for 10-12 iterations
-- (55-65 simulations) before a step lands in the solution's tooth.
local r, m = 0.05, 0.2
local I = 0.4 * m * r * r
local court = world "court" {
  time_step = 1e-3, friction = 0, restitution = 0.8,
  position_update = "parallel",
  -- the plane's outward normal (local +z) turned to -x: solid beyond x = 0.5
  body { "wall", joint = { "fixed", xyz = { 0.5, 0, 0 }, rpy = { 0, -math.pi / 2, 0 } }, shapes = { { "plane" } } },
  body { "ball", mass = m, inertia = { I, I, I },
    joint = { "free", q = { 0, 0, 0, 1, 0, 0, 0 }, v = { 4.5, 0, 3.0, 0, 0, 0 } },
    shapes = { { "sphere", radius = r } } },
}

return diagram "bounce_target" {
  system { "court", court },
  log { "court.position", period = 1e-3 },
}
