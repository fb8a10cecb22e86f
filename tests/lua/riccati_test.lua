-- The Riccati solvers of the control library (generator/diagc/lib/riccati.lua)
-- against closed forms: the scalar equations, the double integrator's LQR,
-- a cross term folded by hand, the Kalman gain as the dual problem; the
-- relative residual of larger problems; and the problems that have no
-- stabilizing solution.
local R = require("diagc.lib.riccati")
local s3 = math.sqrt(3)

test("riccati.care_scalar", function()
  -- 2 a X - X^2 b^2 / r + q = 0: X = r (a + sqrt(a^2 + b^2 q / r)) / b^2 = 3, K = b X / r
  local X, K, res = R.care({ { 1 } }, { { 2 } }, { { 3 } }, { { 4 } })
  near(X[1][1], 3, { rtol = 1e-13 })
  near(K[1][1], 1.5, { rtol = 1e-13 })
  truthy(res <= 1e-13, "residual " .. tostring(res))
end)

test("riccati.care_double_integrator", function()
  -- x'' = u, Q = I, R = 1: X = [sqrt3 1; 1 sqrt3], K = [1 sqrt3]
  local X, K = R.care({ { 0, 1 }, { 0, 0 } }, { { 0 }, { 1 } }, { { 1, 0 }, { 0, 1 } }, { { 1 } })
  near(X, { { s3, 1 }, { 1, s3 } }, { rtol = 1e-12, atol = 1e-12 })
  near(K, { { 1, s3 } }, { rtol = 1e-12, atol = 1e-12 })
end)

test("riccati.care_cross_term", function()
  -- a cross term n is the problem a - b n / r, q - n^2 / r; K = (b X + n) / r
  local a, b, q, r, n = 0.5, 1.5, 2.0, 0.7, 0.3
  local a2, q2 = a - b * n / r, q - n * n / r
  local Xe = r * (a2 + math.sqrt(a2 * a2 + b * b * q2 / r)) / (b * b)
  local X, K = R.care({ { a } }, { { b } }, { { q } }, { { r } }, { { n } })
  near(X[1][1], Xe, { rtol = 1e-12 })
  near(K[1][1], (b * Xe + n) / r, { rtol = 1e-12 })
end)

test("riccati.dare_scalar", function()
  -- X = a^2 X - (a b X)^2 / (r + b^2 X) + q with a = 2, b = q = r = 1: X^2 - 4 X - 1 = 0
  local Xe = 2 + math.sqrt(5)
  local X, K, res = R.dare({ { 2 } }, { { 1 } }, { { 1 } }, { { 1 } })
  near(X[1][1], Xe, { rtol = 1e-13 })
  near(K[1][1], 2 * Xe / (1 + Xe), { rtol = 1e-13 })
  truthy(res <= 1e-13, "residual " .. tostring(res))
end)

test("riccati.dare_double_integrator", function()
  -- the sampled double integrator at h = 0.1 (ZOH): the residual, a stable
  -- closed loop, and X against the value of the closed loop's cost (the
  -- sum of its stage costs from two initial states, summed to convergence)
  local h = 0.1
  local A, B = { { 1, h }, { 0, 1 } }, { { h * h / 2 }, { h } }
  local Q, Rm = { { 1, 0 }, { 0, 0.5 } }, { { 0.2 } }
  local X, K, res = R.dare(A, B, Q, Rm)
  truthy(res <= 1e-12, "residual " .. tostring(res))
  local F = R.add(A, R.mul(B, K), -1.0)
  truthy(R.spectral_radius(F) < 1, "closed loop not stable")
  for _, x0 in ipairs({ { 1, 0 }, { 0.3, -2 } }) do
    local x, cost = { x0[1], x0[2] }, 0
    for _ = 1, 5000 do
      local u = -(K[1][1] * x[1] + K[1][2] * x[2])
      cost = cost + Q[1][1] * x[1] * x[1] + Q[2][2] * x[2] * x[2] + Rm[1][1] * u * u
      x = { F[1][1] * x[1] + F[1][2] * x[2], F[2][1] * x[1] + F[2][2] * x[2] }
    end
    local v = X[1][1] * x0[1] * x0[1] + 2 * X[1][2] * x0[1] * x0[2] + X[2][2] * x0[2] * x0[2]
    near(cost, v, { rtol = 1e-11 })
  end
end)

test("riccati.larger_problems", function()
  -- 8 states, 3 inputs, a fixed pseudo-random A (some unstable modes), B:
  -- both equations to their residual bound with a stable closed loop
  local seed = 12345
  local function rnd()
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648 - 0.5
  end
  local n, m = 8, 3
  local A, B, Q, Rm = R.zeros(n, n), R.zeros(n, m), R.eye(n), R.eye(m)
  for i = 1, n do
    for j = 1, n do A[i][j] = 2 * rnd() end
    for j = 1, m do B[i][j] = rnd() end
  end
  local X, K, res = R.care(A, B, Q, Rm)
  truthy(X and res <= 1e-10, "care: " .. tostring(K))
  truthy(R.hurwitz(R.add(A, R.mul(B, K), -1.0)), "care: closed loop not Hurwitz")
  local Ad = R.zeros(n, n)
  for i = 1, n do
    for j = 1, n do Ad[i][j] = (i == j and 1 or 0) + 0.1 * A[i][j] end
  end
  local Xd, Kd, resd = R.dare(Ad, B, Q, Rm)
  truthy(Xd and resd <= 1e-10, "dare: " .. tostring(Kd))
  truthy(R.spectral_radius(R.add(Ad, R.mul(B, Kd), -1.0)) < 1, "dare: closed loop not Schur")
end)

test("riccati.kalman_dual", function()
  -- x' = a x + w, y = c x + v: P = care(a, c, W, V), L = P c / V
  local a, c, W, V = -0.5, 2.0, 0.3, 0.1
  local Pe = V * (a + math.sqrt(a * a + c * c * W / V)) / (c * c)
  local L, P = R.kalman({ { a } }, { { c } }, { { W } }, { { V } })
  near(P[1][1], Pe, { rtol = 1e-12 })
  near(L[1][1], Pe * c / V, { rtol = 1e-12 })
  -- discrete: the predicted P of the dual DARE, gain P c / (c P c + V)
  local Ld, Pd = R.kalman({ { 0.9 } }, { { 1 } }, { { 0.2 } }, { { 0.5 } }, true)
  -- P = a^2 P - a^2 P^2 / (P + V) + W  ->  P^2 + (V - a^2 V - W) P - W V = 0
  local bq = 0.5 - 0.81 * 0.5 - 0.2
  local Pde = (-bq + math.sqrt(bq * bq + 4 * 0.2 * 0.5)) / 2
  near(Pd[1][1], Pde, { rtol = 1e-12 })
  near(Ld[1][1], Pde / (Pde + 0.5), { rtol = 1e-12 })
end)

test("riccati.stability_checks", function()
  near(R.spectral_radius({ { 0.5, 0 }, { 0, -0.9 } }), 0.9, { rtol = 1e-9 })
  near(R.spectral_radius({ { 0, -0.8 }, { 0.8, 0 } }), 0.8, { rtol = 1e-9 })
  truthy(R.hurwitz({ { -1, 5 }, { 0, -2 } }), "upper triangular with -1, -2 is Hurwitz")
  truthy(not R.hurwitz({ { 0, 1 }, { -1, 0 } }), "a centre is not Hurwitz")
  truthy(not R.hurwitz({ { 0.1, 0 }, { 0, -3 } }), "0.1 is not stable")
end)

test("riccati.refused", function()
  local function refused(f, pattern)
    local X, why = f()
    truthy(X == nil, "solved: " .. tostring(why))
    truthy(tostring(why):find(pattern), "message: " .. tostring(why))
  end
  -- an unstable mode no input reaches
  refused(function() return R.care({ { 1, 0 }, { 0, 2 } }, { { 1 }, { 0 } }, R.eye(2), { { 1 } }) end,
    "not stabilizable")
  refused(function() return R.dare({ { 1.5, 0 }, { 0, 0.5 } }, { { 0 }, { 1 } }, R.eye(2), { { 1 } }) end,
    "not stabilizable")
  refused(function() return R.kalman({ { 1, 0 }, { 0, 2 } }, { { 1, 0 } }, R.eye(2), { { 1 } }) end,
    "not detectable")
  refused(function() return R.care({ { 1 } }, { { 1 } }, { { 1 } }, { { 0 } }) end, "R must be positive definite")
  refused(function() return R.care(R.eye(2), { { 1 }, { 1 } }, { { 1, 2 }, { 0, 1 } }, { { 1 } }) end,
    "Q must be symmetric")
  refused(function() return R.care(R.eye(2), { { 1 }, { 1 } }, { { -1, 0 }, { 0, 1 } }, { { 1 } }) end,
    "positive semidefinite")
  refused(function() return R.care({ { 1, 2 } }, { { 1 } }, { { 1 } }, { { 1 } }) end, "A must be square")
  refused(function() return R.dare(R.eye(2), { { 1 } }, R.eye(2), { { 1 } }) end, "B must have 2 rows")
  refused(function() return R.care({ { 0 / 0 } }, { { 1 } }, { { 1 } }, { { 1 } }) end, "finite number")
  -- a stable mode no input reaches is fine
  local X = R.care({ { -1, 0 }, { 0, 1 } }, { { 0 }, { 1 } }, R.eye(2), { { 1 } })
  near(X[1][1], 0.5, { rtol = 1e-12 }) -- -2 x + 1 = 0
end)
