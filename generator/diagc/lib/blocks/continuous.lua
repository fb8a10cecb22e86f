-- lib/blocks/continuous.lua: continuous blocks: integrators, state spaces, transfer functions, filters
-- (docs/library.md, "Blocks").  M.add(B, K) puts this category's blocks
-- in the library table B, with K the shared checks (lib/blocks/common.lua).
local lti = require("diagc.lib.lti")
local edges = require("diagc.lib.blocks.edges")
local M = {}

-- x' = A x + B u, y = C x + D u (a D that is zero at generation is
-- structurally zero: y does not depend on u, so loops through it are not
-- algebraic)
function M.state_space(K, loc, name, typename, A, Bm, C, D, x0)
  local ctors, flat, leaf = K.ctors, K.flat, K.leaf
  local items, n, m, p, feed = K.lti_parameters(A, Bm, C, D)
  items[#items + 1] = ctors.continuous_state { z = n, z0 = x0 }
  local more = {
    ctors.input_port { "u", size = m },
    ctors.derivatives { prerequisites = { "z", "u", "A", "B" }, calc = string.format(
      "for (int i = 0; i < %d; i++) { double a = 0.0; for (int j = 0; j < %d; j++) a += A[i * %d + j] * z[j]; "
      .. "for (int j = 0; j < %d; j++) a += B[i * %d + j] * u[j]; zdot[i] = a; }", n, n, n, m, m) },
  }
  for _, it in ipairs(more) do items[#items + 1] = it end
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

-- the [n/n] Pade approximant of e^(-T s): num, den from the highest power
function M.pade(T, n)
  local function fact(k) local f = 1 for i = 2, k do f = f * i end return f end
  local num, den = {}, {}
  for k = n, 0, -1 do
    local c = fact(2 * n - k) * fact(n) / (fact(2 * n) * fact(k) * fact(n - k)) * T ^ k
    num[#num + 1] = (k % 2 == 1) and -c or c
    den[#den + 1] = c
  end
  return num, den
end

function M.add(B, K)
  local def = K.definer(B)
  local ctors, raise, fmt, settings, number, count, vector, matrix, leaf = K.ctors, K.raise, K.fmt, K.settings, K.number, K.count, K.vector, K.matrix, K.leaf
  -- x' = u, y = x.  With limits, x stays in [lower, upper]: a mode per
  -- element (the discrete state `at`: 0 free, 1 at upper, -1 at lower)
  -- stops x while u pushes outwards; witnesses switch it when x reaches a
  -- limit (which sets x to it exactly) and when u turns back.  With
  -- reset, an edge of the input `reset` through 0 sets x to x0 and frees
  -- it (lib/blocks/edges.lua).
  def("integrator", function(s, loc)
    s = settings(loc, "integrator", s, { x0 = true, size = true, lower = true, upper = true, reset = true })
    local n = count(loc, "integrator", "size", s.size, 1)
    local x0 = vector(loc, "integrator", "x0", s.x0 or 0, n)
    local limited = s.lower ~= nil or s.upper ~= nil
    local reset = s.reset ~= nil and K.choice(loc, "integrator", "reset", s.reset, nil, edges.KINDS) or nil
    if not limited and not reset then
      return leaf(loc, "Integrator", {
        ctors.continuous_state { z = n, z0 = x0 },
        ctors.input_port { "u", size = n },
        ctors.derivatives { prerequisites = { "u" }, calc = string.format("for (int i = 0; i < %d; i++) zdot[i] = u[i];", n) },
        ctors.output_port { "y", size = n, prerequisites = { "z" }, calc = string.format("for (int i = 0; i < %d; i++) y[i] = z[i];", n) },
      })
    end
    local lo = vector(loc, "integrator", "lower", s.lower or -1e300, n)
    local hi = vector(loc, "integrator", "upper", s.upper or 1e300, n)
    for i = 1, n do
      if not (lo[i] <= x0[i] and x0[i] <= hi[i]) then
        raise(loc, "blocks.integrator: x0[%d] = %s is outside [lower, upper] = [%s, %s]", i, fmt(x0[i]), fmt(lo[i]), fmt(hi[i]))
      end
    end
    local items = {
      ctors.parameter { "lower", default = lo },
      ctors.parameter { "upper", default = hi },
      ctors.parameter { "x0", default = x0 },
      ctors.continuous_state { z = n, z0 = x0 },
      ctors.discrete_state { "at", default = vector(loc, "integrator", "at", 0, n) },
      ctors.input_port { "u", size = n },
      ctors.initialization_unrestricted_update { "limits", prerequisites = { "z", "u", "lower", "upper" }, writes = { "at" },
        calc = string.format("for (int i = 0; i < %d; i++) at_next[i] = z[i] >= upper[i] && u[i] > 0.0 ? 1.0 "
          .. ": z[i] <= lower[i] && u[i] < 0.0 ? -1.0 : 0.0;", n) },
      ctors.derivatives { prerequisites = { "at", "u" }, calc = string.format(
        "for (int i = 0; i < %d; i++) zdot[i] = at[i] != 0.0 ? 0.0 : u[i];", n) },
      ctors.output_port { "y", size = n, prerequisites = { "z", "lower", "upper" }, calc = string.format(
        "for (int i = 0; i < %d; i++) y[i] = z[i] < lower[i] ? lower[i] : z[i] > upper[i] ? upper[i] : z[i];", n) },
    }
    for i = 0, n - 1 do
      local function w(name, value, body, writes)
        items[#items + 1] = ctors.witness { name .. (i + 1), direction = "positive_to_nonpositive",
          prerequisites = { "z", "u", "at", "lower", "upper" }, calc = "value = " .. value:gsub("@", i) .. ";",
          unrestricted_update = body:gsub("@", i), writes = writes }
      end
      w("upper", "at[@] == 0.0 ? upper[@] - z[@] : 1.0", "at_next[@] = 1.0; z_next[@] = upper[@];", { "at", "z" })
      w("lower", "at[@] == 0.0 ? z[@] - lower[@] : 1.0", "at_next[@] = -1.0; z_next[@] = lower[@];", { "at", "z" })
      w("free", "at[@] > 0.0 ? u[@] : at[@] < 0.0 ? -u[@] : 1.0", "at_next[@] = 0.0;", { "at" })
    end
    if reset then
      items[#items + 1] = ctors.parameter { "threshold", default = { 0 } }
      items[#items + 1] = ctors.input_port { "reset", size = 1 }
      for _, it in ipairs(edges.items(ctors, "reset", reset,
        string.format("for (int i = 0; i < %d; i++) { z_next[i] = x0[i]; at_next[i] = 0.0; }", n), { "z", "at" }, { "x0" })) do
        items[#items + 1] = it
      end
    end
    return leaf(loc, "LimitedIntegrator", items)
  end)

  def("state_space", function(s, loc)
    s = settings(loc, "state_space", s, { A = true, B = true, C = true, D = true, x0 = true })
    local A, Bm, C, Dm = K.lti_matrices(loc, "state_space", s)
    local n = #A
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


  -- s / (tau s + 1): a derivative filtered at 1/tau rad/s, as x' = (u -
  -- x) / tau, y = (u - x) / tau (x follows u; y is the rate it follows it
  -- at, which keeps the cancellation small)
  def("derivative", function(s, loc)
    s = settings(loc, "derivative", s, { tau = true, size = true })
    local tau = number(loc, "derivative", "tau", s.tau)
    if not (tau > 0) then raise(loc, "blocks.derivative: tau must be positive, got %s", fmt(tau)) end
    local n = count(loc, "derivative", "size", s.size, 1)
    return leaf(loc, "Derivative", {
      ctors.parameter { "tau", default = { tau } },
      ctors.continuous_state { z = n, z0 = vector(loc, "derivative", "x0", 0, n) },
      ctors.input_port { "u", size = n },
      ctors.derivatives { prerequisites = { "z", "u", "tau" },
        calc = string.format("for (int i = 0; i < %d; i++) zdot[i] = (u[i] - z[i]) / tau[0];", n) },
      ctors.output_port { "y", size = n, prerequisites = { "z", "u", "tau" },
        calc = string.format("for (int i = 0; i < %d; i++) y[i] = (u[i] - z[i]) / tau[0];", n) },
    })
  end)

  -- e^(-delay s) as its [order/order] Pade approximant: num(s) = sum c_k
  -- (-delay s)^k, den(s) = sum c_k (delay s)^k, c_k = (2n - k)! n! /
  -- ((2n)! k! (n - k)!)
  def("transport_delay", function(s, loc)
    s = settings(loc, "transport_delay", s, { delay = true, order = true })
    local T = number(loc, "transport_delay", "delay", s.delay)
    if not (T > 0) then raise(loc, "blocks.transport_delay: delay must be positive, got %s", fmt(T)) end
    local n = count(loc, "transport_delay", "order", s.order, 3)
    if n > 10 then raise(loc, "blocks.transport_delay: order must be at most 10, got %d", n) end
    return M.tf(K, loc, "transport_delay", "TransportDelay", M.pade(T, n))
  end)
end

return M
