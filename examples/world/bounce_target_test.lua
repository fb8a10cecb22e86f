-- Run with: bin/diagc test examples/world/bounce_target_test.lua
-- A ball thrown at a wall must pass through a target at T = 0.6 s
-- (examples/world/bounce_target.lua).  The discrete landing point against
-- its exact formula and against the ballistic closed form with the wall
-- reflection; the rollout's gradient against the closed form's
-- derivative; Gauss-Newton with rollout/vjp gradients reaching the target;
-- the same Gauss-Newton with central differences of the whole rollout
-- (their rollouts and losses are printed: they see the discrete
-- trajectory's impact-step jumps).
local m = diagc.jit(diagc.root .. "/examples/world/bounce_target.lua")
local dt, N, e, g = 1e-3, 600, 0.8, 9.81
local T = N * dt
local L = 0.5 - 0.05   -- x of the centre when the ball touches the wall
local margin = 1e-3    -- the world's default collision margin

-- the N steps with each step's Jacobians kept (for vjp), and without (the
-- simulator: what finite differences need); both count as a rollout
local rollouts = 0
local function throw(vx, vz)
  rollouts = rollouts + 1
  local c = m:context()
  c:set("court.vel", { vx, 0, vz, 0, 0, 0 })
  return c:rollout { steps = N }
end

local function simulate(vx, vz)
  rollouts = rollouts + 1
  local sim = m:simulator()
  sim.context:set("court.vel", { vx, 0, vz, 0, 0, 0 })
  sim:advance_to((N - 0.5) * dt) -- the updates at t = 0, dt, ..., (N - 1) dt
  return sim.context:get("court.pos")
end

-- the discrete trajectory (parallel update: x' = x + dt v, v' = v - g dt
-- on z): the contact appears at the first step k with k vx dt > L - margin,
-- the ball moves on by vx dt in that step and leaves at -e vx
local function discrete_landing(vx, vz)
  local k = math.floor((L - margin) / (vx * dt)) + 1
  return (k + 1) * vx * dt - e * vx * (N - k - 1) * dt, vz * T - g * dt * dt * N * (N - 1) / 2, k
end

-- continuous time: the centre reaches L at t_c = L / vx, comes back at e vx
local function closed_form(vx, vz)
  return L - e * vx * (T - L / vx), vz * T - g * T * T / 2
end

test("bounce_target.landing_matches_closed_form", function()
  for _, v in ipairs({ { 4.5, 3.0 }, { 2.5, 1.0 }, { 3.3, 2.0 } }) do
    local q = throw(v[1], v[2]).q[N + 1]
    eq(simulate(v[1], v[2]), q)
    local xd, zd, k = discrete_landing(v[1], v[2])
    near(q[1], xd, { atol = 1e-12 })
    near(q[3], zd, { atol = 1e-12 })
    near({ q[2], q[4], q[5], q[6], q[7] }, { 0, 1, 0, 0, 0 }, { atol = 1e-13 })
    -- the bounce happens (1 + e) (x_{k+1} - L) later than in continuous
    -- time, with x_{k+1} - L in (vx dt - margin, 2 vx dt - margin]
    local xc, zc = closed_form(v[1], v[2])
    local lag = (q[1] - xc) / (1 + e)
    assert(lag > v[1] * dt - margin and lag <= 2 * v[1] * dt - margin + 1e-12,
      string.format("x(T) = %.6f, closed form %.6f", q[1], xc))
    near(q[3] - zc, g * dt * T / 2, { atol = 1e-12 }) -- explicit Euler's lag
    assert(k * dt < T, "the bounce is inside the horizon")
  end
end)

-- DiffDART's bounce factor: the derivative of the closed form (the impact
-- time moves with the throw), not of the discrete map's current tooth
test("bounce_target.gradient_is_the_closed_form_derivative", function()
  for _, v in ipairs({ { 4.5, 3.0 }, { 2.5, 1.0 } }) do
    local traj = throw(v[1], v[2])
    local zero = { 0, 0, 0, 0, 0, 0 }
    local gx = traj:vjp({ 1, 0, 0, 0, 0, 0 }, zero)
    local gz = traj:vjp({ 0, 0, 1, 0, 0, 0 }, zero)
    -- x(T) = L (1 + e) - e vx T - e x0, z(T) = z0 + vz T - g T^2 / 2
    near({ gx.v[1], gx.v[3], gx.q[1], gx.q[3] }, { -e * T, 0, -e, 0 }, { atol = 1e-9 })
    near({ gz.v[1], gz.v[3], gz.q[1], gz.q[3] }, { 0, T, 0, 1 }, { atol = 1e-9 })
  end
end)

-- Gauss-Newton on r(vx, vz) = p_N - target, loss = |r|^2 / 2: jacobian(p)
-- returns r and dr/dp; stops once the loss is below tol
local function gauss_newton(jacobian, p, target, tol, max_iter)
  rollouts = 0
  local trace = {}
  for it = 0, max_iter do
    local r, J = jacobian(p, target)
    local loss = 0.5 * (r[1] * r[1] + r[2] * r[2])
    trace[#trace + 1] = string.format("%d:%.1e", it, loss)
    if loss < tol then return { p = p, loss = loss, iterations = it, rollouts = rollouts, trace = trace } end
    local det = J[1][1] * J[2][2] - J[1][2] * J[2][1]
    p = { p[1] - (J[2][2] * r[1] - J[1][2] * r[2]) / det, p[2] - (J[1][1] * r[2] - J[2][1] * r[1]) / det }
  end
  return { p = p, iterations = max_iter, rollouts = rollouts, trace = trace }
end

local function residual(q, target)
  return { q[1] - target[1], q[3] - target[2] }
end

-- one rollout, two vector-Jacobian products
local function vjp_jacobian(p, target)
  local traj = throw(p[1], p[2])
  local zero = { 0, 0, 0, 0, 0, 0 }
  local gx = traj:vjp({ 1, 0, 0, 0, 0, 0 }, zero)
  local gz = traj:vjp({ 0, 0, 1, 0, 0, 0 }, zero)
  return residual(traj.q[N + 1], target), { { gx.v[1], gx.v[3] }, { gz.v[1], gz.v[3] } }
end

-- five simulations: the point and a central difference per coordinate
local function fd_jacobian(h)
  return function(p, target)
    local J = { {}, {} }
    for j = 1, 2 do
      local a, b = { p[1], p[2] }, { p[1], p[2] }
      a[j], b[j] = a[j] + h, b[j] - h
      local ra, rb = residual(simulate(a[1], a[2]), target), residual(simulate(b[1], b[2]), target)
      for i = 1, 2 do J[i][j] = (ra[i] - rb[i]) / (2 * h) end
    end
    return residual(simulate(p[1], p[2]), target), J
  end
end

-- the target: where the discrete trajectory of (4.5, 3) lands (a point the
-- discrete trajectory reaches).  Among throws that bounce, the landing map
-- is decreasing in vx while (1 + e) t_c < e T (its teeth slope down, its
-- jumps go down), so (4.5, 3) is the only one that reaches it; a throw
-- backwards, vx = x_target / T, reaches it without a bounce.
local star = { 4.5, 3.0 }
local target = { discrete_landing(star[1], star[2]) }
target[3] = nil -- the impact step
local start = { 2.5, 1.0 }

test("bounce_target.gauss_newton_with_vjp", function()
  local res = gauss_newton(vjp_jacobian, start, target, 1e-8, 10)
  print(string.format("  vjp: %d iterations, %d rollouts, loss %.2e, v0 = (%.6f, %.6f); loss %s", res.iterations,
    res.rollouts, res.loss or 0 / 0, res.p[1], res.p[2], table.concat(res.trace, " ")))
  assert(res.loss and res.loss < 1e-8, "converged")
  -- contraction (1 + e) t_c / (e T) = 0.375 per iteration after the first
  assert(res.iterations <= 6, "a handful of iterations")
  -- z is linear in vz (exact after one step); x: the map is decreasing
  -- with teeth of slope (1 + e) t_{k+1} - e T < -0.25 for vx in 4 .. 5, so
  -- |vx - 4.5| <= |x_N - x_target| / 0.25
  near(res.p[2], star[2], { atol = 1e-9 })
  near(res.p[1], star[1], { atol = math.sqrt(2 * res.loss) / 0.25 })
  local q = throw(res.p[1], res.p[2]).q[N + 1]
  near({ q[1], q[3] }, target, { atol = 1.5e-4 })
end)

-- central differences of the whole rollout see the discrete map: its
-- current tooth's slope (1 + e) t_{k+1} - e T (when the stencil does not
-- straddle a change of the impact step), or a jump's (1 + e) vx dt / 2h
test("bounce_target.finite_differences", function()
  for _, h in ipairs({ 1e-6, 1e-4, 1e-3 }) do
    local _, J = fd_jacobian(h)(start, target)
    local _, _, k = discrete_landing(start[1], start[2])
    local _, _, kp = discrete_landing(start[1] + h, start[2])
    local _, _, km = discrete_landing(start[1] - h, start[2])
    assert(k == kp and k == km, "no jump inside the stencil at the start")
    near(J[1][1], (1 + e) * (k + 1) * dt - e * T, { rtol = 1e-6 })
    near(J[2][2], T, { rtol = 1e-6 })
    local res = gauss_newton(fd_jacobian(h), start, target, 1e-8, 15)
    print(string.format("  fd h = %g: %s after %d iterations, %d rollouts, v0 = (%.6f, %.6f); loss %s", h,
      res.loss and "converged" or "not converged", res.iterations, res.rollouts, res.p[1], res.p[2],
      table.concat(res.trace, " ")))
  end
end)
