-- lib/riccati.lua: the algebraic Riccati equations, solved at generation
-- for the control library's LQR, discrete LQR and steady-state Kalman
-- blocks (issue #28; docs/library.md, "Riccati equations").
--
--   M.care(A, B, Q, R[, N]) -> X, K | nil, problem
--       A'X + XA - (XB + N) R^-1 (B'X + N') + Q = 0, K = R^-1 (B'X + N')
--   M.dare(A, B, Q, R[, N]) -> X, K | nil, problem
--       X = A'XA - (A'XB + N)(R + B'XB)^-1 (B'XA + N') + Q,
--       K = (R + B'XB)^-1 (B'XA + N')
--   M.kalman(A, C, W, V, discrete) -> L, P | nil, problem
--       the dual problem: P = care(A', C', W, V), L = P C' V^-1; discrete:
--       P = dare(A', C', W, V) (the predicted covariance), L = P C' (C P C'
--       + V)^-1 (the filter's gain: x+ = x- + L (y - C x-))
--   M.spectral_radius(A), M.hurwitz(A): closed-loop checks
--
-- Matrices are tables of rows ({{a11, a12}, {a21, a22}}); vectors are
-- n x 1.  Methods: the continuous equation by the matrix sign function of
-- its Hamiltonian (Roberts; determinant scaling), the discrete one by the
-- structure-preserving doubling algorithm (Chu, Fan, Lin and Wang), each
-- then polished by Newton steps (Kleinman; Hewer) whose Lyapunov and Stein
-- equations are solved through their Kronecker form (up to M.POLISH_ORDER
-- states).  X is the stabilizing
-- solution: A - BK is checked to be Hurwitz (continuous) or Schur
-- (discrete), and the relative residual to be at most M.TOL; otherwise
-- the problem names why (not stabilizable, no stabilizing solution, R not
-- positive definite).  Pure Lua, deterministic: the same numbers give the
-- same bits.
local M = {}

M.TOL = 1e-10        -- relative residual a solution must meet
M.MAX_ORDER = 60     -- states at most
M.POLISH_ORDER = 12  -- Newton polish up to this order (its Kronecker system is n^2 x n^2)

-- ---- dense matrices ------------------------------------------------------

local function zeros(n, m)
  local Z = {}
  for i = 1, n do
    local r = {}
    for j = 1, m do r[j] = 0.0 end
    Z[i] = r
  end
  return Z
end

local function eye(n)
  local I = zeros(n, n)
  for i = 1, n do I[i][i] = 1.0 end
  return I
end

local function rows(A) return #A end
local function cols(A) return A[1] and #A[1] or 0 end

local function mul(A, B)
  local n, k, m = rows(A), cols(A), cols(B)
  local C = zeros(n, m)
  for i = 1, n do
    local Ai, Ci = A[i], C[i]
    for l = 1, k do
      local a = Ai[l]
      if a ~= 0.0 then
        local Bl = B[l]
        for j = 1, m do Ci[j] = Ci[j] + a * Bl[j] end
      end
    end
  end
  return C
end

local function tr(A)
  local T = zeros(cols(A), rows(A))
  for i = 1, rows(A) do
    for j = 1, cols(A) do T[j][i] = A[i][j] end
  end
  return T
end

-- A + s B
local function add(A, B, s)
  local C = zeros(rows(A), cols(A))
  s = s or 1.0
  for i = 1, rows(A) do
    for j = 1, cols(A) do C[i][j] = A[i][j] + s * B[i][j] end
  end
  return C
end

local function scale(A, s) return add(zeros(rows(A), cols(A)), A, s) end

local function sym(A)
  local S = zeros(rows(A), cols(A))
  for i = 1, rows(A) do
    for j = 1, cols(A) do S[i][j] = 0.5 * (A[i][j] + A[j][i]) end
  end
  return S
end

local function norm(A) -- Frobenius
  local s = 0.0
  for i = 1, rows(A) do
    for j = 1, cols(A) do s = s + A[i][j] * A[i][j] end
  end
  return math.sqrt(s)
end

-- LU with partial pivoting of a square matrix: lu, perm, log|det|, sign;
-- nil when a pivot is zero or below round-off of the matrix's scale
local function lu(A)
  local n = rows(A)
  local L, p, logdet, sgn = {}, {}, 0.0, 1
  local big = norm(A)
  for i = 1, n do
    L[i] = {}
    for j = 1, n do L[i][j] = A[i][j] end
    p[i] = i
  end
  for k = 1, n do
    local piv, best = k, math.abs(L[k][k])
    for i = k + 1, n do
      if math.abs(L[i][k]) > best then piv, best = i, math.abs(L[i][k]) end
    end
    if not (best > 1e-14 * big) then return nil end
    if piv ~= k then
      L[k], L[piv] = L[piv], L[k]
      p[k], p[piv] = p[piv], p[k]
      sgn = -sgn
    end
    local d = L[k][k]
    logdet = logdet + math.log(math.abs(d))
    if d < 0 then sgn = -sgn end
    for i = k + 1, n do
      local f = L[i][k] / d
      L[i][k] = f
      if f ~= 0.0 then
        for j = k + 1, n do L[i][j] = L[i][j] - f * L[k][j] end
      end
    end
  end
  return L, p, logdet, sgn
end

-- X with A X = B (nil when A is singular)
local function solve(A, B)
  local L, p = lu(A)
  if not L then return nil end
  local n, m = rows(A), cols(B)
  local X = zeros(n, m)
  for c = 1, m do
    local y = {}
    for i = 1, n do
      local s = B[p[i]][c]
      for j = 1, i - 1 do s = s - L[i][j] * y[j] end
      y[i] = s
    end
    for i = n, 1, -1 do
      local s = y[i]
      for j = i + 1, n do s = s - L[i][j] * X[j][c] end
      X[i][c] = s / L[i][i]
    end
  end
  return X
end

local function inv(A) return solve(A, eye(rows(A))) end

-- 1 when A (symmetric) is positive definite (Cholesky succeeds)
local function posdef(A)
  local n, L = rows(A), zeros(rows(A), rows(A))
  for j = 1, n do
    local s = A[j][j]
    for k = 1, j - 1 do s = s - L[j][k] * L[j][k] end
    if not (s > 0.0) then return false end
    L[j][j] = math.sqrt(s)
    for i = j + 1, n do
      local t = A[i][j]
      for k = 1, j - 1 do t = t - L[i][k] * L[j][k] end
      L[i][j] = t / L[j][j]
    end
  end
  return true
end

M.mul, M.tr, M.add, M.solve, M.inv, M.eye, M.zeros, M.norm = mul, tr, add, solve, inv, eye, zeros, norm

-- ---- stability -----------------------------------------------------------

-- The spectral radius of A, from the norms of A^(2^k) (repeated squaring,
-- renormalized): accurate to a relative 2^-40 of the logarithm.
function M.spectral_radius(A)
  local S, logs = A, 0.0
  for k = 1, 40 do
    local s = norm(S)
    if s == 0.0 then return 0.0 end
    S = scale(S, 1.0 / s)
    logs = logs + math.log(s) / 2 ^ (k - 1)
    S = mul(S, S)
  end
  local s = norm(S)
  if s == 0.0 then return 0.0 end
  return math.exp(logs + math.log(s) / 2 ^ 40)
end

-- true when every eigenvalue of A has a negative real part: the Cayley
-- transform (cI - A)^-1 (cI + A) is then Schur
function M.hurwitz(A)
  local n = rows(A)
  local c = math.max(norm(A), 1e-300)
  local C = solve(add(scale(eye(n), c), A, -1.0), add(scale(eye(n), c), A))
  if not C then return false end -- c is an eigenvalue: unstable
  return M.spectral_radius(C) < 1.0 - 1e-12
end

-- ---- Lyapunov and Stein equations (Kronecker form) ------------------------

-- X with F'X + XF + Y = 0 (continuous) or F'XF - X + Y = 0 (discrete)
local function lyap(F, Y, discrete)
  local n = rows(F)
  local K, rhs = zeros(n * n, n * n), zeros(n * n, 1)
  for i = 1, n do
    for j = 1, n do
      local r = (i - 1) * n + j
      rhs[r][1] = -Y[i][j]
      -- (F'X)_ij = sum_k F_ki X_kj ; (XF)_ij = sum_k X_ik F_kj
      if discrete then
        for k = 1, n do
          for l = 1, n do
            local c = (k - 1) * n + l
            K[r][c] = K[r][c] + F[k][i] * F[l][j]
          end
        end
        K[r][r] = K[r][r] - 1.0
      else
        for k = 1, n do
          K[r][(k - 1) * n + j] = K[r][(k - 1) * n + j] + F[k][i]
          K[r][(i - 1) * n + k] = K[r][(i - 1) * n + k] + F[k][j]
        end
      end
    end
  end
  local x = solve(K, rhs)
  if not x then return nil end
  local X = zeros(n, n)
  for i = 1, n do
    for j = 1, n do X[i][j] = x[(i - 1) * n + j][1] end
  end
  return sym(X)
end

-- ---- checks of the arguments ----------------------------------------------

local function check_matrix(X, name, n, m)
  if type(X) ~= "table" or #X == 0 then return string.format("%s must be a matrix (a table of rows)", name) end
  for i, r in ipairs(X) do
    if type(r) ~= "table" or #r ~= #X[1] then
      return string.format("%s must be a matrix: row %d has %s elements, row 1 has %d", name, i,
        type(r) == "table" and tostring(#r) or "no", #X[1])
    end
    for j, v in ipairs(r) do
      if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
        return string.format("%s[%d][%d] must be a finite number", name, i, j)
      end
    end
  end
  if n and #X ~= n then return string.format("%s must have %d rows, has %d", name, n, #X) end
  if m and #X[1] ~= m then return string.format("%s must have %d columns, has %d", name, m, #X[1]) end
  return nil
end

local function symmetric(X)
  local s = norm(X)
  for i = 1, rows(X) do
    for j = 1, i - 1 do
      if math.abs(X[i][j] - X[j][i]) > 1e-12 * math.max(s, 1e-300) then return false end
    end
  end
  return true
end

-- the common checks; returns the sizes or nil, problem
local function arguments(A, B, Q, R, N)
  local e = check_matrix(A, "A")
  if e then return nil, e end
  local n = rows(A)
  if cols(A) ~= n then return nil, string.format("A must be square, is %d x %d", n, cols(A)) end
  if n > M.MAX_ORDER then
    return nil, string.format("A has %d states; the Riccati solver takes at most %d", n, M.MAX_ORDER)
  end
  e = check_matrix(B, "B", n)
  if e then return nil, e end
  local m = cols(B)
  e = check_matrix(Q, "Q", n, n) or check_matrix(R, "R", m, m) or (N and check_matrix(N, "N", n, m))
  if e then return nil, e end
  if not symmetric(Q) then return nil, "Q must be symmetric" end
  if not symmetric(R) then return nil, "R must be symmetric" end
  if not posdef(sym(R)) then return nil, "R must be positive definite" end
  if not posdef(add(sym(Q), eye(n), 1e-12 * math.max(norm(Q), 1.0))) then
    return nil, "Q must be positive semidefinite"
  end
  return n, m
end

-- without a cross term: A - B R^-1 N', Q - N R^-1 N'
local function uncross(A, B, Q, R, N)
  if not N then return A, Q end
  local RiNt = solve(R, tr(N))
  return add(A, mul(B, RiNt), -1.0), sym(add(Q, mul(N, RiNt), -1.0))
end

-- X, K, residual when the closed loop is stable and the residual small;
-- else nil and why
local function accepted(X, K, stable, res)
  if not stable then return nil, "no stabilizing solution: A - B K is not stable ((A, B) is not stabilizable)" end
  if not (res <= M.TOL) then
    return nil, string.format("the solution's relative residual %.3g is above %.0e (an ill-conditioned problem)",
      res, M.TOL)
  end
  return X, K, res
end

-- ---- the continuous equation ------------------------------------------------

local function care_residual(A, B, Q, R, N, X)
  local XBN = mul(X, B)
  if N then XBN = add(XBN, N) end
  local Res = add(add(mul(tr(A), X), mul(X, A)), Q)
  Res = add(Res, mul(XBN, solve(R, tr(XBN))), -1.0)
  return norm(Res) / math.max(norm(X), norm(Q), 1e-300)
end

function M.care(A, B, Q, R, N)
  local n, m = arguments(A, B, Q, R, N)
  if not n then return nil, m end
  local A0, Q0 = uncross(A, B, Q, R, N)
  local G = sym(mul(B, solve(R, tr(B))))
  -- the sign of the Hamiltonian [A -G; -Q -A']
  local Z = zeros(2 * n, 2 * n)
  for i = 1, n do
    for j = 1, n do
      Z[i][j], Z[i][n + j] = A0[i][j], -G[i][j]
      Z[n + i][j], Z[n + i][n + j] = -Q0[i][j], -A0[j][i]
    end
  end
  local converged = false
  for _ = 1, 100 do
    local L, _, logdet = lu(Z)
    if not L then
      return nil, "no stabilizing solution: the Hamiltonian has an eigenvalue on the imaginary axis "
        .. "((A, B) not stabilizable, or (A, Q) with an unobservable mode there)"
    end
    local c = math.exp(logdet / (2 * n))
    local Zn = scale(add(scale(Z, 1.0 / c), inv(Z), c), 0.5)
    local d = norm(add(Zn, Z, -1.0))
    Z = Zn
    if d <= 1e-13 * norm(Z) then
      converged = true
      break
    end
  end
  if not converged then return nil, "no stabilizing solution: the sign iteration did not converge" end
  -- [W12; W22 + I] X = -[W11 + I; W21], by its normal equations
  local Mx, Rx = zeros(2 * n, n), zeros(2 * n, n)
  for i = 1, n do
    for j = 1, n do
      Mx[i][j], Mx[n + i][j] = Z[i][n + j], Z[n + i][n + j] + (i == j and 1.0 or 0.0)
      Rx[i][j], Rx[n + i][j] = -(Z[i][j] + (i == j and 1.0 or 0.0)), -Z[n + i][j]
    end
  end
  local X = solve(mul(tr(Mx), Mx), mul(tr(Mx), Rx))
  if not X then return nil, "no stabilizing solution: (A, B) is not stabilizable" end
  X = sym(X)
  -- Kleinman's Newton steps: (A0 - G X)' X+ + X+ (A0 - G X) + Q0 + X G X = 0
  for _ = 1, n <= M.POLISH_ORDER and 3 or 0 do
    if care_residual(A, B, Q, R, N, X) <= 1e-15 then break end
    local F = add(A0, mul(G, X), -1.0)
    local Xn = lyap(F, add(Q0, mul(mul(X, G), X)), false)
    if not Xn then break end
    if care_residual(A, B, Q, R, N, Xn) >= care_residual(A, B, Q, R, N, X) then break end
    X = Xn
  end
  local XBN = mul(X, B)
  if N then XBN = add(XBN, N) end
  local K = solve(R, tr(XBN))
  return accepted(X, K, K and M.hurwitz(add(A, mul(B, K), -1.0)), care_residual(A, B, Q, R, N, X))
end

-- ---- the discrete equation --------------------------------------------------

local function dare_parts(A, B, R, N, X)
  local BtXA = mul(mul(tr(B), X), A)
  if N then BtXA = add(BtXA, tr(N)) end
  return add(R, mul(mul(tr(B), X), B)), BtXA
end

local function dare_residual(A, B, Q, R, N, X)
  local S, BtXA = dare_parts(A, B, R, N, X)
  local Res = add(add(mul(mul(tr(A), X), A), X, -1.0), Q)
  Res = add(Res, mul(tr(BtXA), solve(S, BtXA)), -1.0)
  return norm(Res) / math.max(norm(X), norm(Q), 1e-300)
end

function M.dare(A, B, Q, R, N)
  local n, m = arguments(A, B, Q, R, N)
  if not n then return nil, m end
  local Ak, Hk = uncross(A, B, Q, R, N)
  local Gk = sym(mul(B, solve(R, tr(B))))
  local I, converged = eye(n), false
  for _ = 1, 100 do
    local Wi = inv(add(I, mul(Gk, Hk)))
    if not Wi then return nil, "no stabilizing solution: the doubling iteration broke down" end
    local AW = mul(Ak, Wi)
    local An = mul(AW, Ak)
    local Gn = sym(add(Gk, mul(mul(AW, Gk), tr(Ak))))
    local Hn = sym(add(Hk, mul(mul(mul(tr(Ak), Hk), Wi), Ak)))
    local d = norm(add(Hn, Hk, -1.0))
    Ak, Gk, Hk = An, Gn, Hn
    if d <= 1e-14 * norm(Hk) then
      converged = true
      break
    end
    if norm(Hk) ~= norm(Hk) or norm(Hk) == math.huge then break end
  end
  if not converged then return nil, "no stabilizing solution: (A, B) is not stabilizable" end
  local X = Hk
  -- Hewer's Newton steps: X+ = F' X+ F + Q0 + K' R K with F = A - B K
  for _ = 1, n <= M.POLISH_ORDER and 3 or 0 do
    if dare_residual(A, B, Q, R, N, X) <= 1e-15 then break end
    local S, BtXA = dare_parts(A, B, R, N, X)
    local K = solve(S, BtXA)
    local F = add(A, mul(B, K), -1.0)
    local Y = add(add(Q, mul(mul(tr(K), R), K)), N and add(mul(N, K), mul(tr(K), tr(N))) or zeros(n, n), -1.0)
    local Xn = lyap(F, Y, true)
    if not Xn then break end
    if dare_residual(A, B, Q, R, N, Xn) >= dare_residual(A, B, Q, R, N, X) then break end
    X = Xn
  end
  local S, BtXA = dare_parts(A, B, R, N, X)
  local K = solve(S, BtXA)
  local stable = K and M.spectral_radius(add(A, mul(B, K), -1.0)) < 1.0 - 1e-12
  return accepted(X, K, stable, stable and dare_residual(A, B, Q, R, N, X))
end

-- ---- the steady-state Kalman filter (the dual problem) ----------------------

function M.kalman(A, C, W, V, discrete)
  local e = check_matrix(A, "A") or check_matrix(C, "C", nil, A and A[1] and #A[1] or nil)
  if e then return nil, e end
  local solver = discrete and M.dare or M.care
  local P, problem, res = solver(tr(A), tr(C), W, V)
  if not P then
    return nil, (problem:gsub("%(A, B%) is not stabilizable", "(A, C) is not detectable")
      :gsub("Q must", "W must"):gsub("R must", "V must"))
  end
  local L
  if discrete then
    L = mul(mul(P, tr(C)), inv(add(mul(mul(C, P), tr(C)), V)))
  else
    L = mul(mul(P, tr(C)), inv(V))
  end
  return L, P, res or problem
end

return M
