-- lib/blocks/discrete.lua: discrete blocks: a periodic update of period and offset
-- (docs/library.md, "Blocks").  M.add(B, K) puts this category's blocks
-- in the library table B, with K the shared checks (lib/blocks/common.lua).

local lti = require("diagc.lib.lti")

local M = {}

-- x[k+1] = A x[k] + B u(t_k) at offset + k period, y = C x + D u (D zero
-- at generation: y does not read u)
function M.state_space(K, loc, typename, A, Bm, C, D, x0, period, offset)
  local ctors, flat = K.ctors, K.flat
  local items, n, m, p, feed = K.lti_parameters(A, Bm, C, D)
  items[#items + 1] = ctors.discrete_state { "x", default = x0 }
  local more = {
    ctors.input_port { "u", size = m },
    ctors.periodic_discrete_update { "step", period = period, offset = offset, prerequisites = { "x", "u", "A", "B" },
      writes = { "x" }, calc = string.format(
      "for (int i = 0; i < %d; i++) { double a = 0.0; for (int j = 0; j < %d; j++) a += A[i * %d + j] * x[j]; "
      .. "for (int j = 0; j < %d; j++) a += B[i * %d + j] * u[j]; x_next[i] = a; }", n, n, n, m, m) },
  }
  for _, it in ipairs(more) do items[#items + 1] = it end
  local pre, dterm = { "x", "C" }, ""
  if feed then
    items[#items + 1] = ctors.parameter { "D", default = flat(D) }
    pre = { "x", "u", "C", "D" }
    dterm = string.format(" for (int j = 0; j < %d; j++) a += D[i * %d + j] * u[j];", m, m)
  end
  items[#items + 1] = ctors.output_port { "y", size = p, prerequisites = pre, calc = string.format(
    "for (int i = 0; i < %d; i++) { double a = 0.0; for (int j = 0; j < %d; j++) a += C[i * %d + j] * x[j];%s y[i] = a; }",
    p, n, n, dterm) }
  return K.leaf(loc, typename, items)
end

function M.add(B, K)
  local def = K.definer(B)
  local ctors, settings, count, vector, leaf, timing, raise = K.ctors, K.settings, K.count, K.vector, K.leaf, K.timing, K.raise
  -- x[k+1] = u(t_k), y = x: the input sampled and held; a unit delay is
  -- the same update read one period later
  local function held(loc, name, typename, s)
    s = settings(loc, name, s, { period = true, offset = true, x0 = true, size = true })
    local period, offset = timing(loc, name, s)
    local n = count(loc, name, "size", s.size, 1)
    return leaf(loc, typename, {
      ctors.discrete_state { "x", default = vector(loc, name, "x0", s.x0 or 0, n) },
      ctors.input_port { "u", size = n },
      ctors.periodic_discrete_update { "sample", period = period, offset = offset, prerequisites = { "u" },
        writes = { "x" }, calc = string.format("for (int i = 0; i < %d; i++) x_next[i] = u[i];", n) },
      ctors.output_port { "y", size = n, prerequisites = { "x" },
        calc = string.format("for (int i = 0; i < %d; i++) y[i] = x[i];", n) },
    })
  end
  def("zero_order_hold", function(s, loc) return held(loc, "zero_order_hold", "ZeroOrderHold", s) end)
  def("unit_delay", function(s, loc) return held(loc, "unit_delay", "UnitDelay", s) end)


  def("discrete_state_space", function(s, loc)
    local name = "discrete_state_space"
    s = settings(loc, name, s, { A = true, B = true, C = true, D = true, x0 = true, period = true, offset = true })
    local period, offset = timing(loc, name, s)
    local A, Bm, C, D = K.lti_matrices(loc, name, s)
    return M.state_space(K, loc, "DiscreteStateSpace", A, Bm, C, D, vector(loc, name, "x0", s.x0 or 0, #A), period, offset)
  end)

  -- num(z^-1) / den(z^-1): coefficients of z^0, z^-1, ...; den[1] nonzero
  def("discrete_transfer_function", function(s, loc)
    local name = "discrete_transfer_function"
    s = settings(loc, name, s, { num = true, den = true, period = true, offset = true })
    local period, offset = timing(loc, name, s)
    local num = type(s.num) == "number" and { s.num } or s.num
    if type(num) ~= "table" or type(s.den) ~= "table" or #num == 0 or #s.den == 0 then
      raise(loc, "blocks.%s needs num and den, coefficients of z^0, z^-1, ...", name)
    end
    if s.den[1] == 0 then raise(loc, "blocks.%s: den[1] (the z^0 coefficient) must not be 0: the filter would not be causal", name) end
    local L = math.max(#num, #s.den)
    local b, a = {}, {}
    for i = 1, L do b[i], a[i] = num[i] or 0, s.den[i] or 0 end
    local ok, A, Bm, C, D = pcall(lti.tf2ss, b, a)
    if not ok then raise(loc, "blocks.%s: %s", name, tostring(A):gsub("^.-: ", "")) end
    if A == nil then raise(loc, "blocks.%s: %s", name, Bm) end
    return M.state_space(K, loc, "DiscreteTransferFunction", A, Bm, C, D, vector(loc, name, "x0", 0, #A), period, offset)
  end)

  -- y[k] = y[k-1] + k T (forward Euler: u[k-1]; backward Euler: u[k];
  -- trapezoidal: (u[k] + u[k-1]) / 2) at offset + k period, y[0] = x0,
  -- kept in [lower, upper] (the state stops at a limit: no windup)
  def("discrete_integrator", function(s, loc)
    local name = "discrete_integrator"
    s = settings(loc, name, s, { method = true, k = true, x0 = true, lower = true, upper = true, period = true, offset = true, size = true })
    local period, offset = timing(loc, name, s)
    local n = count(loc, name, "size", s.size, 1)
    local method = K.choice(loc, name, "method", s.method, "forward_euler", { "forward_euler", "backward_euler", "trapezoidal" })
    local lo = vector(loc, name, "lower", s.lower or -1e300, n)
    local hi = vector(loc, name, "upper", s.upper or 1e300, n)
    local x0 = vector(loc, name, "x0", s.x0 or 0, n)
    for i = 1, n do
      if not (lo[i] <= x0[i] and x0[i] <= hi[i]) then
        raise(loc, "blocks.%s: x0[%d] = %s is outside [lower, upper] = [%s, %s]", name, i, K.fmt(x0[i]), K.fmt(lo[i]), K.fmt(hi[i]))
      end
    end
    local inc = ({ forward_euler = "up[i]", backward_euler = "u[i]", trapezoidal = "0.5 * (u[i] + up[i])" })[method]
    return leaf(loc, "DiscreteIntegrator", {
      ctors.parameter { "k", default = { K.number(loc, name, "k", s.k, 1) } },
      ctors.parameter { "lower", default = lo },
      ctors.parameter { "upper", default = hi },
      ctors.discrete_state { "x", default = x0 },
      ctors.discrete_state { "up", default = vector(loc, name, "up", 0, n) },
      ctors.discrete_state { "started", default = { 0 } },
      ctors.input_port { "u", size = n },
      ctors.periodic_discrete_update { "step", period = period, offset = offset, writes = { "x", "up", "started" },
        prerequisites = { "x", "up", "started", "u", "k", "lower", "upper" }, calc = string.format([[
for (int i = 0; i < %d; i++) {
  double v = started[0] != 0.0 ? x[i] + k[0] * %s * (%s) : x[i];
  x_next[i] = v < lower[i] ? lower[i] : v > upper[i] ? upper[i] : v;
  up_next[i] = u[i];
}
started_next[0] = 1.0;]], n, K.fmt(period), inc) },
      ctors.output_port { "y", size = n, prerequisites = { "x" },
        calc = string.format("for (int i = 0; i < %d; i++) y[i] = x[i];", n) },
    })
  end)

  -- y = the mean of the last `samples` samples of u (taken at offset +
  -- k period; x0 stands for the samples before the first)
  def("moving_average", function(s, loc)
    local name = "moving_average"
    s = settings(loc, name, s, { samples = true, x0 = true, period = true, offset = true, size = true })
    local period, offset = timing(loc, name, s)
    local n, N = count(loc, name, "size", s.size, 1), count(loc, name, "samples", s.samples)
    if n * N > 10000 then raise(loc, "blocks.%s: size * samples = %d; at most 10000", name, n * N) end
    local x0 = vector(loc, name, "x0", s.x0 or 0, n)
    local buf = {}
    for j = 0, N - 1 do
      for i = 1, n do buf[j * n + i] = x0[i] end
    end
    return leaf(loc, "MovingAverage", {
      ctors.discrete_state { "w", default = buf },
      ctors.input_port { "u", size = n },
      ctors.periodic_discrete_update { "sample", period = period, offset = offset, prerequisites = { "w", "u" }, writes = { "w" },
        calc = string.format([[
for (int j = %d; j > 0; j--) for (int i = 0; i < %d; i++) w_next[j * %d + i] = w[(j - 1) * %d + i];
for (int i = 0; i < %d; i++) w_next[i] = u[i];]], N - 1, n, n, n, n) },
      ctors.output_port { "y", size = n, prerequisites = { "w" }, calc = string.format(
        "for (int i = 0; i < %d; i++) { double a = 0.0; for (int j = 0; j < %d; j++) a += w[j * %d + i]; y[i] = a / %d.0; }",
        n, N, n, N) },
    })
  end)
end

return M
