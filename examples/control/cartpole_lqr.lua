-- examples/control/cartpole_lqr.lua: a cart-pole world balanced upright by
-- an LQR whose gain diagc designs when it generates the model, from the
-- world's own linearization (no C, no pasted numbers):
--
--   world (cart on a rail, pole on a hinge) -> [state: mux of q and v]
--     -> [lqr: u = -K x] -> the cart's force
--
-- blocks.lqr { plant = cartpole, at = ... } generates the world alone,
-- compiles it in-process and takes its step's Jacobian at the upright
-- equilibrium (docs/world.md, "Linearizing a world at generation"): A and
-- B of x[n+1] = A x[n] + B u[n], x = (cart x, pole angle, their rates),
-- at the world's time step; K solves the discrete Riccati equation.  The
-- pole is a uniform rod (mass MP, length 2 LC, its centre LC above the
-- hinge at angle 0); it starts tilted by 0.1 rad.
local MC, MP, LC = 1.0, 0.1, 0.5
local IP = MP * (2 * LC) ^ 2 / 12   -- the rod's inertia about its centre

local cartpole = world "cartpole" {
  time_step = 1e-3,
  body { "cart", mass = MC, inertia = { 0.01, 0.01, 0.01 },
    joint = { "prismatic", axis = { 1, 0, 0 }, actuated = true } },
  body { "pole", mass = MP, com = { 0, 0, LC }, inertia = { IP, IP, IP },
    joint = { "revolute", parent = "cart", axis = { 0, 1, 0 }, q = { 0.1 } } },
}

return diagram "cartpole_lqr" {
  system { "plant", cartpole },
  system { "state", blocks.mux { sizes = { 2, 2 } } },
  system { "lqr", blocks.lqr { plant = cartpole, at = { q = { 0, 0 } },
    Q = { { 10, 0, 0, 0 }, { 0, 10, 0, 0 }, { 0, 0, 1, 0 }, { 0, 0, 0, 1 } }, R = { { 0.1 } } } },
  connect { "plant.position", "state.u1" }, connect { "plant.velocity", "state.u2" },
  connect { "state.y", "lqr.x" }, connect { "lqr.u", "plant.effort" },
  log { "plant.position", period = 0.01 },
}
