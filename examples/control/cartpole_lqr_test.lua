-- Run with: bin/diagc test examples/control/cartpole_lqr_test.lua
-- The cart-pole of cartpole_lqr.lua, whose LQR gain diagc designed from
-- the world's own linearization: the world's step against the cart-pole's
-- closed-form linear model, the gain against an independent solution of
-- the discrete Riccati equation (and its residual), the whole loop's
-- linearization against A - B K, and the pole righting itself from its
-- 0.1 rad tilt.
local m = diagc.jit(diagc.root .. "/examples/control/cartpole_lqr.lua")
local MC, MP, LC, G, H = 1.0, 0.1, 0.5, 9.81, 1e-3
local IP = MP * (2 * LC) ^ 2 / 12
local Q = { { 10, 0, 0, 0 }, { 0, 10, 0, 0 }, { 0, 0, 1, 0 }, { 0, 0, 0, 1 } }
local R = 0.1

-- small dense helpers (4 x 4, one input)
local function mul(A, B)
  local C = {}
  for i = 1, #A do
    C[i] = {}
    for j = 1, #B[1] do
      local s = 0
      for k = 1, #B do s = s + A[i][k] * B[k][j] end
      C[i][j] = s
    end
  end
  return C
end
local function tr(A)
  local T = {}
  for j = 1, #A[1] do
    T[j] = {}
    for i = 1, #A do T[j][i] = A[i][j] end
  end
  return T
end
local function lin(a, A, b, B) -- a A + b B
  local C = {}
  for i = 1, #A do
    C[i] = {}
    for j = 1, #A[1] do C[i][j] = a * A[i][j] + b * B[i][j] end
  end
  return C
end
local function maxabs(A)
  local s = 0
  for i = 1, #A do for j = 1, #A[1] do s = math.max(s, math.abs(A[i][j])) end end
  return s
end

-- The upright cart-pole linearized by hand: M0 q'' = Gq q + S u with M0 =
-- [[mc + mp, mp l], [mp l, mp l^2 + Ip]], Gq = [[0, 0], [0, mp g l]], S =
-- (1, 0); the world's semi-implicit step v' = v + h M0^-1 (Gq q + S u), q'
-- = q + h v' is then x' = Ad x + Bd u.
local function closed_form()
  local a, b, d = MC + MP, MP * LC, MP * LC * LC + IP
  local det = a * d - b * b
  local Mi = { { d / det, -b / det }, { -b / det, a / det } }
  local g = MP * G * LC
  local P = { Mi[1][2] * g, Mi[2][2] * g } -- M0^-1 Gq's second column
  local s = { Mi[1][1], Mi[2][1] }        -- M0^-1 S
  local Ad = {
    { 1, H * H * P[1], H, 0 }, { 0, 1 + H * H * P[2], 0, H },
    { 0, H * P[1], 1, 0 }, { 0, H * P[2], 0, 1 },
  }
  local Bd = { { H * H * s[1] }, { H * H * s[2] }, { H * s[1] }, { H * s[2] } }
  return Ad, Bd
end

-- the gain's row: u = -K x
local function gain(c)
  local k = c:get("lqr.K")
  return { k }
end

local function upright()
  local c = m:context()
  c:set("plant.pos", { 0, 0 })
  return c
end

test("cartpole_lqr.world_linearization", function()
  -- with K = 0 the loop is the world's step alone: the closed form
  local c = upright()
  c:set_param("lqr.K", { 0, 0, 0, 0 })
  local r = c:linearize { eig = true }
  eq(r.time_period, H)
  eq({ r.states[1], r.states[2], r.states[3], r.states[4] },
    { "plant.cart.q", "plant.pole.q", "plant.cart.v", "plant.pole.v" })
  local Ad = closed_form()
  for i = 1, 4 do
    local row = {}
    for j = 1, 4 do row[j] = r.A[i][j] end
    near(row, Ad[i], { rtol = 1e-12, atol = 1e-15 })
  end
end)

test("cartpole_lqr.gain_solves_riccati", function()
  local Ad, Bd = closed_form()
  -- independently: the Riccati difference equation iterated to its fixed
  -- point in Joseph's form (a sum of positive terms, stable in floating
  -- point where the textbook form's difference is not), K = (R + B'XB)^-1
  -- B'X A, X <- (A - B K)' X (A - B K) + K' R K + Q
  local X, Kx = Q, nil
  for it = 1, 100000 do
    local XB = mul(X, Bd)
    Kx = lin(1 / (R + mul(tr(Bd), XB)[1][1]), mul(tr(XB), Ad), 0, Ad)
    local F = lin(1, Ad, -1, mul(Bd, Kx))
    local Xn = lin(1, lin(1, mul(mul(tr(F), X), F), R, mul(tr(Kx), Kx)), 1, Q)
    local change = maxabs(lin(1, Xn, -1, X))
    X = Xn
    if change <= 1e-14 * maxabs(X) then break end
    truthy(it < 100000, "the Riccati iteration did not converge")
  end
  local K = gain(upright())
  near(K[1], Kx[1], { rtol = 1e-10 })
  -- the designed gain's own Riccati solution (X = Acl' X Acl + Q + K' R K,
  -- by doubling) and the residual of the discrete Riccati equation
  local Acl = lin(1, Ad, -1, mul(Bd, K))
  local Xk = lin(1, Q, R, mul(tr(K), K))
  local Phi = Acl
  for _ = 1, 40 do
    Xk = lin(1, Xk, 1, mul(mul(tr(Phi), Xk), Phi))
    Phi = mul(Phi, Phi)
  end
  local XB = mul(Xk, Bd)
  local s = R + mul(tr(Bd), XB)[1][1]
  local res = lin(1, Xk, -1, mul(mul(tr(Ad), Xk), Ad))
  res = lin(1, res, 1 / s, mul(mul(tr(Ad), XB), mul(tr(XB), Ad)))
  res = lin(1, res, -1, Q)
  truthy(maxabs(res) <= 1e-10 * maxabs(Xk), "Riccati residual " .. maxabs(res) / maxabs(Xk))
end)

test("cartpole_lqr.closed_loop_linearization", function()
  local c = upright()
  local K = gain(c)
  local Ad, Bd = closed_form()
  local Acl = lin(1, Ad, -1, mul(Bd, K))
  local r = c:linearize { eig = true }
  eq(r.time_period, H)
  for i = 1, 4 do
    local row = {}
    for j = 1, 4 do row[j] = r.A[i][j] end
    near(row, Acl[i], { rtol = 1e-10, atol = 1e-13 })
  end
  -- the world's bookkeeping (plant.info: step counters, per-step entries)
  -- feeds nothing back, so it is left out: A is the loop's 4 x 4, and its
  -- four modes are stable
  eq(#r.A, 4)
  eq(#r.left_out, 9)
  for _, n in ipairs(r.left_out) do truthy(n:match("^plant%.info%["), n) end
  eq(#r.eig, 4)
  for _, e in ipairs(r.eig) do truthy(e.abs < 1 - 1e-6 and e.abs > 0, "eigenvalue |z| = " .. e.abs) end
end)

test("cartpole_lqr.rights_the_pole", function()
  local sim = m:simulator()
  sim:initialize()
  sim:advance_to(6)
  local log = sim:log("plant.position")
  eq(log.v[1], { 0, 0.1 })
  local worst = 0
  for i, t in ipairs(log.t) do
    if t >= 3.5 then worst = math.max(worst, math.abs(log.v[i][2])) end
  end
  truthy(worst < 1e-3, "|theta| after 3.5 s reaches " .. worst)
  truthy(math.abs(log.v[#log.v][1]) < 0.05, "the cart ends at " .. log.v[#log.v][1])
end)
