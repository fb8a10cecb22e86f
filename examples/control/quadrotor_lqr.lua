-- examples/control/quadrotor_lqr.lua: a planar quadrotor held at a hover
-- point by LQR state feedback designed in the spec (control.lqr, at
-- generation) and built from library blocks around the plant:
--
--   u = thrust_ff - K (x - x_ref)
--
-- The plant (mass M, inertia I, rotor arm A; state x, z, theta and their
-- rates): M x'' = -(u1 + u2) sin theta, M z'' = (u1 + u2) cos theta - M G,
-- I theta'' = A (u1 - u2).  `diagc trim` finds the feedforward thrust of
-- hover (M G / 2 per rotor), `diagc linearize` the closed loop A - B K.
local M, I, A, G = 0.5, 2e-3, 0.15, 9.81

local Quad = leaf "PlanarQuad" {
  continuous_state { q = { "x", "z", "theta" }, v = { "vx", "vz", "omega" },
    q0 = { 0, 0, 0 }, v0 = { 0, 0, 0 } },
  parameter { "m", default = { M } },
  parameter { "inertia", default = { I } },
  parameter { "arm", default = { A } },
  parameter { "g", default = { G } },
  input_port { "u", size = 2 },
  derivatives {
    prerequisites = { "q", "v", "u", "m", "inertia", "arm", "g" },
    calc = [[
      double f = u[0] + u[1];
      qdot[0] = v[0]; qdot[1] = v[1]; qdot[2] = v[2];
      vdot[0] = -f * sin(q[2]) / m[0];
      vdot[1] = f * cos(q[2]) / m[0] - g[0];
      vdot[2] = arm[0] * (u[0] - u[1]) / inertia[0];
    ]],
  },
  output_port { "state", size = 6, prerequisites = { "q", "v" },
    calc = [[ for (int i = 0; i < 3; i++) { state[i] = q[i]; state[3 + i] = v[i]; } ]] },
}

-- the hover linearization (theta = 0, u1 + u2 = M G) and the LQR gain
local Ah = {
  { 0, 0, 0, 1, 0, 0 }, { 0, 0, 0, 0, 1, 0 }, { 0, 0, 0, 0, 0, 1 },
  { 0, 0, -G, 0, 0, 0 }, { 0, 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0, 0 },
}
local Bh = { { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, { 1 / M, 1 / M }, { A / I, -A / I } }
local Q = {
  { 10, 0, 0, 0, 0, 0 }, { 0, 10, 0, 0, 0, 0 }, { 0, 0, 1, 0, 0, 0 },
  { 0, 0, 0, 1, 0, 0 }, { 0, 0, 0, 0, 1, 0 }, { 0, 0, 0, 0, 0, 1 },
}
local K = control.lqr(Ah, Bh, Q, { { 1, 0 }, { 0, 1 } })

return diagram "quadrotor_lqr" {
  system { "quad", Quad },
  system { "ref", blocks.constant { value = { 0, 1, 0, 0, 0, 0 } } },
  system { "err", blocks.sum { signs = "+-", size = 6 } },
  system { "lqr", blocks.gain { k = K } },
  system { "cmd", blocks.sum { signs = "+-", size = 2 } },
  export_input { "cmd.u1", as = "thrust_ff" },
  connect { "quad.state", "err.u1" }, connect { "ref.y", "err.u2" },
  connect { "err.y", "lqr.u" }, connect { "lqr.y", "cmd.u2" },
  connect { "cmd.y", "quad.u" },
  export_output { "quad.state", as = "state" },
  log { "quad.state", period = 0.05 },
}
