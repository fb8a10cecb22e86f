-- lib/blocks/state_feedback.lua: controllers designed at generation from
-- a linear model (docs/library.md, "State feedback and estimation"): the
-- LQR state feedback, the steady-state Kalman filter and the Luenberger
-- observer, continuous or, with a period, discrete.  Their gains come
-- from lib/riccati.lua (or pole placement by Ackermann's formula) and
-- become numeric parameters (K, L), so -p can replace them.
local riccati = require("diagc.lib.riccati")
local plant = require("diagc.lib.plant")

local M = {}

-- C: out[i] (+)= sum_j Mx[i * c + j] v[j] for i < r
local function mv(out, op, Mx, r, c, v)
  return string.format("for (int i = 0; i < %d; i++) { double a = 0.0; for (int j = 0; j < %d; j++) a += %s[i * %d + j] * %s; %s[i] %s a; }",
    r, c, Mx, c, v, out, op)
end

-- the coefficients of prod (s - p) (highest first); poles are numbers or
-- {re, im} pairs standing for re +- i im
local function characteristic(poles)
  local c = { 1 }
  local function times(q) -- c * (s^2 + q[2] s + q[3]) or (s + q[2])
    local out = {}
    for i = 1, #c + #q - 1 do out[i] = 0 end
    for i, a in ipairs(c) do
      for j, b in ipairs(q) do out[i + j - 1] = out[i + j - 1] + a * b end
    end
    c = out
  end
  for _, p in ipairs(poles) do
    if type(p) == "number" then times({ 1, -p }) else times({ 1, -2 * p[1], p[1] * p[1] + p[2] * p[2] }) end
  end
  return c
end

-- Ackermann's formula for the observer gain of a single-output (A, C):
-- L = phi(A) O^-1 e_n, O = [C; C A; ...; C A^(n-1)]; nil, why if O is singular
function M.place_observer(A, C, poles)
  local n = #A
  local O, row = {}, { C[1] }
  for i = 1, n do
    O[i] = {}
    for j = 1, n do O[i][j] = row[1][j] end
    row = riccati.mul(row, A)
  end
  local coef = characteristic(poles)
  local phi, P = riccati.zeros(n, n), riccati.eye(n)
  for k = n + 1, 1, -1 do -- phi = sum coef[k] A^(n + 1 - k)
    phi = riccati.add(phi, P, coef[k])
    P = riccati.mul(P, A)
  end
  local e = riccati.zeros(n, 1)
  e[n][1] = 1
  local ok, z = pcall(riccati.solve, O, e)
  if not ok or z == nil then return nil, "(A, C) is not observable" end
  for i = 1, n do
    for j = 1, 1 do
      if z[i][j] ~= z[i][j] or math.abs(z[i][j]) == math.huge then return nil, "(A, C) is not observable" end
    end
  end
  return riccati.mul(phi, z)
end

function M.add(B, K)
  local def = K.definer(B)
  local ctors, settings, leaf, raise, flat, timing = K.ctors, K.settings, K.leaf, K.raise, K.flat, K.timing

  -- u = -K (x - x_ref) + u_ref, K the LQR gain of (A, B, Q, R[, N]):
  -- continuous, or with a period the discrete LQR of x[k+1] = A x + B u,
  -- u sampled and held
  def("lqr", function(s, loc)
    s = settings(loc, "lqr", s, { A = true, B = true, Q = true, R = true, N = true, period = true, offset = true,
      reference = true, plant = true, at = true })
    local A, Bm, n, m, world
    if s.plant ~= nil then
      -- A, B: the world's step linearized at `at` (lib/plant.lua); the
      -- discrete LQR at its time step, the law a feedthrough the step samples
      for _, k in ipairs({ "A", "B", "period", "offset" }) do
        if s[k] ~= nil then
          raise(loc, "blocks.lqr: %s and plant exclude each other (the world's step gives A and B, and samples "
            .. "the law at its time_step)", k)
        end
      end
      local why
      world, why = plant.linearize(s.plant, s.at)
      if not world then raise(loc, "blocks.lqr: %s", tostring(why)) end
      A, Bm, n, m = world.A, world.B, #world.A, #world.B[1]
    else
      if s.at ~= nil then raise(loc, "blocks.lqr: at is the operating point of a plant; give plant = a world") end
      A, n = K.matrix(loc, "lqr", "A", s.A)
      Bm, _, m = K.matrix(loc, "lqr", "B", s.B)
    end
    local discrete = s.period ~= nil or world ~= nil
    local X, Kg = (discrete and riccati.dare or riccati.care)(A, Bm, s.Q, s.R, s.N)
    if not X then raise(loc, "blocks.lqr: %s", tostring(Kg)) end
    local ref = s.reference
    if ref ~= nil and type(ref) ~= "boolean" then raise(loc, "blocks.lqr: reference must be true or false") end
    local items = { ctors.parameter { "K", default = flat(Kg) }, ctors.input_port { "x", size = n } }
    local pre, e = { "x", "K" }, "x[j]"
    if ref then
      items[#items + 1] = ctors.input_port { "x_ref", size = n }
      items[#items + 1] = ctors.input_port { "u_ref", size = m }
      pre[#pre + 1], pre[#pre + 2], e = "x_ref", "u_ref", "(x[j] - x_ref[j])"
    elseif world then -- about the operating point: u = u_op - K (x - x_op)
      items[#items + 1] = ctors.parameter { "x_op", default = world.x0 }
      items[#items + 1] = ctors.parameter { "u_op", default = world.u0 }
      pre[#pre + 1], pre[#pre + 2], e = "x_op", "u_op", "(x[j] - x_op[j])"
    end
    local u0 = ref and "u_ref" or world and "u_op"
    local law = function(out)
      return (u0 and string.format("for (int i = 0; i < %d; i++) %s[i] = %s[i];\n", m, out, u0)
        or string.format("for (int i = 0; i < %d; i++) %s[i] = 0.0;\n", m, out)) .. mv(out, "-=", "K", m, n, e)
    end
    if world or not discrete then
      items[#items + 1] = ctors.output_port { "u", size = m, prerequisites = pre, calc = law("u") }
      return leaf(loc, world and "WorldLQR" or "LQR", items)
    end
    local period, offset = timing(loc, "lqr", s)
    items[#items + 1] = ctors.discrete_state { "held", default = K.vector(loc, "lqr", "u0", 0, m) }
    items[#items + 1] = ctors.periodic_discrete_update { "step", period = period, offset = offset, prerequisites = pre,
      writes = { "held" }, calc = law("held_next") }
    items[#items + 1] = ctors.output_port { "u", size = m, prerequisites = { "held" },
      calc = string.format("for (int i = 0; i < %d; i++) u[i] = held[i];", m) }
    return leaf(loc, "DiscreteLQR", items)
  end)

  -- an estimator of x from u and y for x' = A x + B u (x[k+1] = ...),
  -- y = C x + D u with the gain L: continuous x^' = A x^ + B u + L (y - C
  -- x^ - D u); discrete (predictor form) x^[k+1] = A x^ + B u + L (y - C
  -- x^ - D u), or for the Kalman filter A (x^ + L (...)) + B u
  local function estimator(loc, name, typename, s, L, kalman)
    local A, Bm, C, D = K.lti_matrices(loc, name, s)
    local n, m, p = #A, #Bm[1], #C
    local discrete = s.period ~= nil
    local items = {
      ctors.parameter { "A", default = flat(A) }, ctors.parameter { "B", default = flat(Bm) },
      ctors.parameter { "C", default = flat(C) }, ctors.parameter { "D", default = flat(D) },
      ctors.parameter { "L", default = flat(L) },
      ctors.input_port { "u", size = m }, ctors.input_port { "y", size = p },
    }
    local pre = { "u", "y", "A", "B", "C", "D", "L" }
    local x0 = K.vector(loc, name, "x0", s.x0 or 0, n)
    local state = discrete and "xh" or "z"
    local innov = string.format("double e[%d];\nfor (int i = 0; i < %d; i++) e[i] = y[i];\n", p, p)
      .. mv("e", "-=", "C", p, n, state .. "[j]") .. "\n" .. mv("e", "-=", "D", p, m, "u[j]") .. "\n"
    local out = discrete and "xh_next" or "zdot"
    local body
    if discrete and kalman then
      body = innov .. string.format("double xp[%d];\nfor (int i = 0; i < %d; i++) xp[i] = xh[i];\n", n, n)
        .. mv("xp", "+=", "L", n, p, "e[j]") .. string.format("\nfor (int i = 0; i < %d; i++) %s[i] = 0.0;\n", n, out)
        .. mv(out, "+=", "A", n, n, "xp[j]") .. "\n" .. mv(out, "+=", "B", n, m, "u[j]")
    else
      body = innov .. string.format("for (int i = 0; i < %d; i++) %s[i] = 0.0;\n", n, out)
        .. mv(out, "+=", "A", n, n, state .. "[j]") .. "\n" .. mv(out, "+=", "B", n, m, "u[j]") .. "\n"
        .. mv(out, "+=", "L", n, p, "e[j]")
    end
    table.insert(pre, 1, state)
    if discrete then
      local period, offset = timing(loc, name, s)
      items[#items + 1] = ctors.discrete_state { "xh", default = x0 }
      items[#items + 1] = ctors.periodic_discrete_update { "step", period = period, offset = offset, prerequisites = pre,
        writes = { "xh" }, calc = body }
    else
      items[#items + 1] = ctors.continuous_state { z = n, z0 = x0 }
      items[#items + 1] = ctors.derivatives { prerequisites = pre, calc = body }
    end
    items[#items + 1] = ctors.output_port { "x", size = n, prerequisites = { state },
      calc = string.format("for (int i = 0; i < %d; i++) x[i] = %s[i];", n, state) }
    return leaf(loc, (discrete and "Discrete" or "") .. typename, items)
  end

  local ESTIMATOR = { A = true, B = true, C = true, D = true, x0 = true, period = true, offset = true }
  local function with(extra)
    local t = {}
    for k in pairs(ESTIMATOR) do t[k] = true end
    for _, k in ipairs(extra) do t[k] = true end
    return t
  end

  -- the steady-state Kalman filter: L from control.kalman (continuous) or
  -- control.dkalman (discrete) with process noise W and measurement noise V
  def("kalman", function(s, loc)
    s = settings(loc, "kalman", s, with({ "W", "V" }))
    local A, _, C = K.lti_matrices(loc, "kalman", s)
    local L, why = riccati.kalman(A, C, s.W, s.V, s.period ~= nil)
    if not L then raise(loc, "blocks.kalman: %s", tostring(why)) end
    return estimator(loc, "kalman", "Kalman", s, L, true)
  end)

  -- the Luenberger observer: L given, or placed (one output) so that the
  -- error dynamics A - L C have the given poles
  def("observer", function(s, loc)
    s = settings(loc, "observer", s, with({ "L", "poles" }))
    local A, _, C = K.lti_matrices(loc, "observer", s)
    local n, p = #A, #C
    local L
    if (s.L == nil) == (s.poles == nil) then raise(loc, "blocks.observer needs either L (a gain) or poles (to place)") end
    if s.L ~= nil then
      local r, c
      L, r, c = K.matrix(loc, "observer", "L", s.L)
      if r ~= n or c ~= p then raise(loc, "blocks.observer: L must be %d x %d (states x outputs), is %d x %d", n, p, r, c) end
    else
      if p ~= 1 then raise(loc, "blocks.observer: poles are placed for one output only (C has %d rows); give L", p) end
      local poles, count = s.poles, 0
      if type(poles) ~= "table" then raise(loc, "blocks.observer: poles must be a list of numbers or {re, im} pairs") end
      for i, q in ipairs(poles) do
        if type(q) == "number" and K.finite(q) then count = count + 1
        elseif type(q) == "table" and K.finite(q[1]) and K.finite(q[2]) and #q == 2 then count = count + 2
        else raise(loc, "blocks.observer: poles[%d] must be a number or a pair {re, im} (re +- i im)", i) end
      end
      if count ~= n then raise(loc, "blocks.observer: %d poles for %d states", count, n) end
      local why
      L, why = M.place_observer(A, C, poles)
      if not L then raise(loc, "blocks.observer: %s", why) end
    end
    return estimator(loc, "observer", "Observer", s, L, false)
  end)
end

return M
