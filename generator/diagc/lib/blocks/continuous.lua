-- lib/blocks/continuous.lua: continuous blocks: integrators, state spaces, transfer functions, filters
-- (docs/library.md, "Blocks").  M.add(B, K) puts this category's blocks
-- in the library table B, with K the shared checks (lib/blocks/common.lua).
local lti = require("diagc.lib.lti")
local M = {}

-- x' = A x + B u, y = C x + D u (a D that is zero at generation is
-- structurally zero: y does not depend on u, so loops through it are not
-- algebraic)
function M.state_space(K, loc, name, typename, A, Bm, C, D, x0)
  local ctors, flat, leaf = K.ctors, K.flat, K.leaf
  local n, m, p = #A, #Bm[1], #C
  local feed = false
  for _, r in ipairs(D) do
    for _, v in ipairs(r) do feed = feed or v ~= 0 end
  end
  local items = {
    ctors.parameter { "A", default = flat(A) },
    ctors.parameter { "B", default = flat(Bm) },
    ctors.parameter { "C", default = flat(C) },
    ctors.continuous_state { z = n, z0 = x0 },
    ctors.input_port { "u", size = m },
    ctors.derivatives { prerequisites = { "z", "u", "A", "B" }, calc = string.format(
      "for (int i = 0; i < %d; i++) { double a = 0.0; for (int j = 0; j < %d; j++) a += A[i * %d + j] * z[j]; "
      .. "for (int j = 0; j < %d; j++) a += B[i * %d + j] * u[j]; zdot[i] = a; }", n, n, n, m, m) },
  }
  if feed then
    items[#items + 1] = ctors.parameter { "D", default = flat(D) }
    items[#items + 1] = ctors.output_port { "y", size = p, prerequisites = { "z", "u", "C", "D" }, calc = string.format(
      "for (int i = 0; i < %d; i++) { double a = 0.0; for (int j = 0; j < %d; j++) a += C[i * %d + j] * z[j]; "
      .. "for (int j = 0; j < %d; j++) a += D[i * %d + j] * u[j]; y[i] = a; }", p, n, n, m, m) }
  else
    items[#items + 1] = ctors.output_port { "y", size = p, prerequisites = { "z", "C" }, calc = string.format(
      "for (int i = 0; i < %d; i++) { double a = 0.0; for (int j = 0; j < %d; j++) a += C[i * %d + j] * z[j]; y[i] = a; }",
      p, n, n) }
  end
  return leaf(loc, typename, items)
end

-- num(s) / den(s), coefficients from the highest power; a controllable
-- canonical state space of order deg den
function M.tf(K, loc, name, typename, num, den)
  local raise = K.raise
  local ok, A, Bm, C, D = pcall(lti.tf2ss, num, den)
  if not ok then raise(loc, "blocks.%s: %s", name, tostring(A):gsub("^.-: ", "")) end
  if A == nil then raise(loc, "blocks.%s: %s", name, Bm) end
  return M.state_space(K, loc, name, typename, A, Bm, C, D, K.vector(loc, name, "x0", 0, #A))
end

function M.add(B, K)
  local def = K.definer(B)
  local ctors, raise, fmt, settings, number, count, vector, matrix, leaf = K.ctors, K.raise, K.fmt, K.settings, K.number, K.count, K.vector, K.matrix, K.leaf
  -- x' = u, y = x
  def("integrator", function(s, loc)
    s = settings(loc, "integrator", s, { x0 = true, size = true })
    local n = count(loc, "integrator", "size", s.size, 1)
    local x0 = vector(loc, "integrator", "x0", s.x0 or 0, n)
    return leaf(loc, "Integrator", {
      ctors.continuous_state { z = n, z0 = x0 },
      ctors.input_port { "u", size = n },
      ctors.derivatives { prerequisites = { "u" }, calc = string.format("for (int i = 0; i < %d; i++) zdot[i] = u[i];", n) },
      ctors.output_port { "y", size = n, prerequisites = { "z" }, calc = string.format("for (int i = 0; i < %d; i++) y[i] = z[i];", n) },
    })
  end)

  def("state_space", function(s, loc)
    s = settings(loc, "state_space", s, { A = true, B = true, C = true, D = true, x0 = true })
    local A, n, n2 = matrix(loc, "state_space", "A", s.A)
    if n ~= n2 then raise(loc, "blocks.state_space: A must be square, is %d x %d", n, n2) end
    local Bm, nb, m = matrix(loc, "state_space", "B", s.B)
    if nb ~= n then raise(loc, "blocks.state_space: B must have %d rows (A's), has %d", n, nb) end
    local C, p, nc = matrix(loc, "state_space", "C", s.C)
    if nc ~= n then raise(loc, "blocks.state_space: C must have %d columns (A's), has %d", n, nc) end
    local D = s.D
    if D == nil then
      D = {}
      for i = 1, p do
        D[i] = {}
        for j = 1, m do D[i][j] = 0 end
      end
    end
    local Dm, pd, md = matrix(loc, "state_space", "D", D)
    if pd ~= p or md ~= m then raise(loc, "blocks.state_space: D must be %d x %d (C's rows, B's columns), is %d x %d", p, m, pd, md) end
    return M.state_space(K, loc, "state_space", "StateSpace", A, Bm, C, Dm, vector(loc, "state_space", "x0", s.x0 or 0, n))
  end)


  def("transfer_function", function(s, loc)
    s = settings(loc, "transfer_function", s, { num = true, den = true })
    if type(s.num) ~= "table" and type(s.num) ~= "number" then raise(loc, "blocks.transfer_function needs num (coefficients from the highest power)") end
    if type(s.den) ~= "table" then raise(loc, "blocks.transfer_function needs den (coefficients from the highest power)") end
    return M.tf(K, loc, "transfer_function", "TransferFunction", type(s.num) == "number" and { s.num } or s.num, s.den)
  end)

  -- k / (tau s + 1)
  def("low_pass", function(s, loc)
    s = settings(loc, "low_pass", s, { tau = true, k = true })
    local tau, k = number(loc, "low_pass", "tau", s.tau), number(loc, "low_pass", "k", s.k, 1)
    if not (tau > 0) then raise(loc, "blocks.low_pass: tau must be positive, got %s", fmt(tau)) end
    return M.tf(K, loc, "low_pass", "LowPass", { k }, { tau, 1 })
  end)

  -- k wn^2 / (s^2 + 2 zeta wn s + wn^2)
  def("second_order", function(s, loc)
    s = settings(loc, "second_order", s, { wn = true, zeta = true, k = true })
    local wn, z, k = number(loc, "second_order", "wn", s.wn), number(loc, "second_order", "zeta", s.zeta), number(loc, "second_order", "k", s.k, 1)
    if not (wn > 0) then raise(loc, "blocks.second_order: wn must be positive, got %s", fmt(wn)) end
    if not (z >= 0) then raise(loc, "blocks.second_order: zeta must be at least 0, got %s", fmt(z)) end
    return M.tf(K, loc, "second_order", "SecondOrder", { k * wn * wn }, { 1, 2 * z * wn, wn * wn })
  end)


end

return M
