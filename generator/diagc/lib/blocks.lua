-- lib/blocks.lua: the standard block library a spec sees as `blocks`
-- (issue #28; docs/library.md, "Blocks").  Each block is a Lua function
-- of a table of settings that returns an ordinary leaf type, built with
-- the spec language's own constructors: numeric parameters (so -p,
-- sweeps and parameter_jacobian work on them), generated C calcs in the
-- differentiable subset, narrow prerequisites.  Ports: `u` (or `u1`,
-- `u2`, ...) in, `y` out.
--
--   M.library(ctors, at) -> the `blocks` table
--     ctors: the spec language's constructors (leaf, parameter, ...)
--     at(level) -> {file=, line=}: the spec's line that called a block
--   A block's items are recorded at that line, so every message about its
--   leaf points at the spec, never at this file.
local lti = require("diagc.lib.lti")

local M = {}

local function fmt(v) return string.format("%.17g", v) end

local function finite(v) return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge end

function M.library(ctors, at, relocate, raise)
  local B = {}
  -- B[name](settings): the spec's line is found once, here (the block is
  -- called by the spec), and handed down
  local function def(name, fn)
    B[name] = function(s) return fn(s, at(2)) end
  end

  -- the settings table of a block, checked against its known keys
  local function settings(loc, name, s, known)
    if type(s) ~= "table" then raise(loc, "blocks.%s expects a table of settings, as in blocks.%s { ... }", name, name) end
    for k in pairs(s) do
      if not known[k] then
        local list = {}
        for n in pairs(known) do list[#list + 1] = n end
        table.sort(list)
        raise(loc, "blocks.%s: unknown setting '%s' (settings: %s)", name, tostring(k), table.concat(list, ", "))
      end
    end
    return s
  end

  local function number(loc, name, key, v, dflt)
    if v == nil then
      if dflt == nil then raise(loc, "blocks.%s needs %s", name, key) end
      return dflt
    end
    if not finite(v) then raise(loc, "blocks.%s: %s must be a finite number, got %s", name, key, tostring(v)) end
    return v
  end

  local function count(loc, name, key, v, dflt)
    v = number(loc, name, key, v, dflt)
    if v ~= math.floor(v) or v < 1 or v > 10000 then
      raise(loc, "blocks.%s: %s must be a whole number from 1 to 10000, got %s", name, key, tostring(v))
    end
    return v
  end

  -- a list of n finite numbers (a number is a list of n equal ones)
  local function vector(loc, name, key, v, n)
    if type(v) == "number" then
      local out = {}
      for i = 1, n do out[i] = v end
      v = out
    end
    if type(v) ~= "table" or #v ~= n then
      raise(loc, "blocks.%s: %s must be %d number%s", name, key, n, n == 1 and "" or "s")
    end
    for i = 1, n do
      if not finite(v[i]) then raise(loc, "blocks.%s: %s[%d] must be a finite number", name, key, i) end
    end
    return v
  end

  -- a matrix as rows (a number is 1 x 1); returns rows, r, c
  local function matrix(loc, name, key, v)
    if type(v) == "number" then v = { { v } } end
    if type(v) ~= "table" or #v == 0 or type(v[1]) ~= "table" then
      raise(loc, "blocks.%s: %s must be a matrix (a table of rows)", name, key)
    end
    local c = #v[1]
    for i, row in ipairs(v) do
      if type(row) ~= "table" or #row ~= c or c == 0 then
        raise(loc, "blocks.%s: %s must be a matrix: row %d has %s elements, row 1 has %d", name, key, i,
          type(row) == "table" and tostring(#row) or "no", c)
      end
      for j = 1, c do
        if not finite(row[j]) then raise(loc, "blocks.%s: %s[%d][%d] must be a finite number", name, key, i, j) end
      end
    end
    return v, #v, c
  end

  local function flat(rows)
    local out = {}
    for _, r in ipairs(rows) do
      for _, x in ipairs(r) do out[#out + 1] = x end
    end
    return out
  end

  -- leaf "Name" { items } with every item recorded at the spec's line
  local function leaf(loc, name, items)
    for _, it in ipairs(items) do relocate(it, loc) end
    return relocate(ctors.leaf(name)(items), loc)
  end

  -- y = k u (k a number: elementwise over size; a matrix: y = K u)
  def("gain", function(s, loc)
    s = settings(loc, "gain", s, { k = true, size = true })
    if type(s.k) == "table" then
      local K, r, c = matrix(loc, "gain", "k", s.k)
      if s.size ~= nil and count(loc, "gain", "size", s.size) ~= c then
        raise(loc, "blocks.gain: k has %d columns but size is %d", c, s.size)
      end
      return leaf(loc, "Gain", {
        ctors.parameter { "k", default = flat(K) },
        ctors.input_port { "u", size = c },
        ctors.output_port { "y", size = r, prerequisites = { "u", "k" }, calc = string.format(
          "for (int i = 0; i < %d; i++) { double a = 0.0; for (int j = 0; j < %d; j++) a += k[i * %d + j] * u[j]; y[i] = a; }",
          r, c, c) },
      })
    end
    local n = count(loc, "gain", "size", s.size, 1)
    return leaf(loc, "Gain", {
      ctors.parameter { "k", default = { number(loc, "gain", "k", s.k) } },
      ctors.input_port { "u", size = n },
      ctors.output_port { "y", size = n, prerequisites = { "u", "k" },
        calc = string.format("for (int i = 0; i < %d; i++) y[i] = k[0] * u[i];", n) },
    })
  end)

  -- y = sum of signs[i] u_i over the inputs u1, u2, ...
  def("sum", function(s, loc)
    s = settings(loc, "sum", s, { signs = true, size = true })
    local signs = s.signs or "++"
    if type(signs) ~= "string" or not signs:match("^[+-]+$") or #signs > 64 then
      raise(loc, "blocks.sum: signs must be a string of + and - (one per input), got %s", tostring(signs))
    end
    local n = count(loc, "sum", "size", s.size, 1)
    local items, terms, pre = {}, {}, {}
    for i = 1, #signs do
      items[#items + 1] = ctors.input_port { "u" .. i, size = n }
      terms[#terms + 1] = string.format("%s u%d[i]", signs:sub(i, i), i)
      pre[#pre + 1] = "u" .. i
    end
    items[#items + 1] = ctors.output_port { "y", size = n, prerequisites = pre,
      calc = string.format("for (int i = 0; i < %d; i++) y[i] = %s;", n, table.concat(terms, " ")) }
    return leaf(loc, "Sum", items)
  end)

  -- y = min(max(u, lower), upper)
  def("saturation", function(s, loc)
    s = settings(loc, "saturation", s, { lower = true, upper = true, size = true })
    local n = count(loc, "saturation", "size", s.size, 1)
    local lo, hi = vector(loc, "saturation", "lower", s.lower, n), vector(loc, "saturation", "upper", s.upper, n)
    for i = 1, n do
      if lo[i] > hi[i] then raise(loc, "blocks.saturation: lower[%d] = %s is above upper[%d] = %s", i, fmt(lo[i]), i, fmt(hi[i])) end
    end
    return leaf(loc, "Saturation", {
      ctors.parameter { "lower", default = lo },
      ctors.parameter { "upper", default = hi },
      ctors.input_port { "u", size = n },
      ctors.output_port { "y", size = n, prerequisites = { "u", "lower", "upper" }, calc = string.format(
        "for (int i = 0; i < %d; i++) y[i] = u[i] < lower[i] ? lower[i] : u[i] > upper[i] ? upper[i] : u[i];", n) },
    })
  end)

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

  -- x' = A x + B u, y = C x + D u (a D that is zero at generation is
  -- structurally zero: y does not depend on u, so loops through it are not
  -- algebraic)
  local function state_space(loc, name, typename, A, Bm, C, D, x0)
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
    return state_space(loc, "state_space", "StateSpace", A, Bm, C, Dm, vector(loc, "state_space", "x0", s.x0 or 0, n))
  end)

  -- num(s) / den(s), coefficients from the highest power; a controllable
  -- canonical state space of order deg den
  local function tf(loc, name, typename, num, den)
    local ok, A, Bm, C, D = pcall(lti.tf2ss, num, den)
    if not ok then raise(loc, "blocks.%s: %s", name, tostring(A):gsub("^.-: ", "")) end
    if A == nil then raise(loc, "blocks.%s: %s", name, Bm) end
    return state_space(loc, name, typename, A, Bm, C, D, vector(loc, name, "x0", 0, #A))
  end

  def("transfer_function", function(s, loc)
    s = settings(loc, "transfer_function", s, { num = true, den = true })
    if type(s.num) ~= "table" and type(s.num) ~= "number" then raise(loc, "blocks.transfer_function needs num (coefficients from the highest power)") end
    if type(s.den) ~= "table" then raise(loc, "blocks.transfer_function needs den (coefficients from the highest power)") end
    return tf(loc, "transfer_function", "TransferFunction", type(s.num) == "number" and { s.num } or s.num, s.den)
  end)

  -- k / (tau s + 1)
  def("low_pass", function(s, loc)
    s = settings(loc, "low_pass", s, { tau = true, k = true })
    local tau, k = number(loc, "low_pass", "tau", s.tau), number(loc, "low_pass", "k", s.k, 1)
    if not (tau > 0) then raise(loc, "blocks.low_pass: tau must be positive, got %s", fmt(tau)) end
    return tf(loc, "low_pass", "LowPass", { k }, { tau, 1 })
  end)

  -- k wn^2 / (s^2 + 2 zeta wn s + wn^2)
  def("second_order", function(s, loc)
    s = settings(loc, "second_order", s, { wn = true, zeta = true, k = true })
    local wn, z, k = number(loc, "second_order", "wn", s.wn), number(loc, "second_order", "zeta", s.zeta), number(loc, "second_order", "k", s.k, 1)
    if not (wn > 0) then raise(loc, "blocks.second_order: wn must be positive, got %s", fmt(wn)) end
    if not (z >= 0) then raise(loc, "blocks.second_order: zeta must be at least 0, got %s", fmt(z)) end
    return tf(loc, "second_order", "SecondOrder", { k * wn * wn }, { 1, 2 * z * wn, wn * wn })
  end)

  -- ---- sources (no input; y is a function of time) ----------------------

  def("constant", function(s, loc)
    s = settings(loc, "constant", s, { value = true, size = true })
    local n = count(loc, "constant", "size", s.size, type(s.value) == "table" and #s.value or 1)
    return leaf(loc, "Constant", {
      ctors.parameter { "value", default = vector(loc, "constant", "value", s.value, n) },
      ctors.output_port { "y", size = n, prerequisites = { "value" },
        calc = string.format("for (int i = 0; i < %d; i++) y[i] = value[i];", n) },
    })
  end)

  -- A source that switches at a time holds its phase in a discrete state
  -- `on` (0, then 1), set by an event at that time: the simulator lands on
  -- it, every evaluation before it (an integrator's stages included) sees
  -- 0 and every one after it 1, so a plant driven by the source is
  -- integrated exactly across the switch.
  local function switch(at_time)
    return ctors.next_update_time { "turn_on", prerequisites = { "time", at_time },
      calc = string.format("if (t < %s[0]) t_next = %s[0];", at_time, at_time),
      discrete_update = "on_next[0] = 1.0;", writes = { "on" } }
  end

  -- y = initial before time, final from then on
  def("step", function(s, loc)
    s = settings(loc, "step", s, { time = true, initial = true, final = true, size = true })
    local n = count(loc, "step", "size", s.size, 1)
    return leaf(loc, "Step", {
      ctors.parameter { "step_time", default = { number(loc, "step", "time", s.time, 0) } },
      ctors.parameter { "initial", default = vector(loc, "step", "initial", s.initial or 0, n) },
      ctors.parameter { "final", default = vector(loc, "step", "final", s.final or 1, n) },
      ctors.discrete_state { "on", default = { 0 } },
      switch("step_time"),
      ctors.output_port { "y", size = n, prerequisites = { "on", "initial", "final" },
        calc = string.format("for (int i = 0; i < %d; i++) y[i] = on[0] != 0.0 ? final[i] : initial[i];", n) },
    })
  end)

  -- y = initial, and initial + slope (t - start) from start on
  def("ramp", function(s, loc)
    s = settings(loc, "ramp", s, { slope = true, start = true, initial = true })
    return leaf(loc, "Ramp", {
      ctors.parameter { "slope", default = { number(loc, "ramp", "slope", s.slope, 1) } },
      ctors.parameter { "start", default = { number(loc, "ramp", "start", s.start, 0) } },
      ctors.parameter { "initial", default = { number(loc, "ramp", "initial", s.initial, 0) } },
      ctors.discrete_state { "on", default = { 0 } },
      switch("start"),
      ctors.output_port { "y", size = 1, prerequisites = { "time", "on", "slope", "start", "initial" },
        calc = "y[0] = on[0] != 0.0 ? initial[0] + slope[0] * (t - start[0]) : initial[0];" },
    })
  end)

  -- y = amplitude sin(frequency t + phase) + bias (frequency in rad/s)
  def("sine", function(s, loc)
    s = settings(loc, "sine", s, { amplitude = true, frequency = true, phase = true, bias = true })
    return leaf(loc, "Sine", {
      ctors.parameter { "amplitude", default = { number(loc, "sine", "amplitude", s.amplitude, 1) } },
      ctors.parameter { "frequency", default = { number(loc, "sine", "frequency", s.frequency, 1) } },
      ctors.parameter { "phase", default = { number(loc, "sine", "phase", s.phase, 0) } },
      ctors.parameter { "bias", default = { number(loc, "sine", "bias", s.bias, 0) } },
      ctors.output_port { "y", size = 1, prerequisites = { "time", "amplitude", "frequency", "phase", "bias" },
        calc = "y[0] = amplitude[0] * sin(frequency[0] * t + phase[0]) + bias[0];" },
    })
  end)

  -- ---- discrete (a periodic update of period and offset) ----------------

  local function timing(loc, name, s)
    local period = number(loc, name, "period", s.period)
    if not (period > 0) then raise(loc, "blocks.%s: period must be positive, got %s", name, fmt(period)) end
    local offset = number(loc, name, "offset", s.offset, 0)
    if not (offset >= 0) then raise(loc, "blocks.%s: offset must be at least 0, got %s", name, fmt(offset)) end
    return period, offset
  end

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

  -- ---- more math -----------------------------------------------------------

  -- y = f(u) elementwise
  local function unary(name, typename, expr)
    def(name, function(s, loc)
      s = settings(loc, name, s, { size = true })
      local n = count(loc, name, "size", s.size, 1)
      return leaf(loc, typename, {
        ctors.input_port { "u", size = n },
        ctors.output_port { "y", size = n, prerequisites = { "u" },
          calc = string.format("for (int i = 0; i < %d; i++) y[i] = %s;", n, expr) },
      })
    end)
  end
  unary("abs", "Abs", "fabs(u[i])")
  unary("sign", "Sign", "u[i] > 0.0 ? 1.0 : u[i] < 0.0 ? -1.0 : 0.0")

  -- y = op(u1, u2, ...) elementwise over `inputs` inputs
  local function nary(name, typename, first, step)
    def(name, function(s, loc)
      s = settings(loc, name, s, { inputs = true, size = true })
      local n = count(loc, name, "size", s.size, 1)
      local k = count(loc, name, "inputs", s.inputs, 2)
      if k > 64 then raise(loc, "blocks.%s: inputs must be at most 64, got %d", name, k) end
      local items, pre, body = {}, {}, { string.format("for (int i = 0; i < %d; i++) { double a = %s;", n, first) }
      for j = 1, k do
        items[#items + 1] = ctors.input_port { "u" .. j, size = n }
        pre[#pre + 1] = "u" .. j
        if j > 1 then body[#body + 1] = (step:gsub("@", "u" .. j)) end
      end
      body[#body + 1] = "y[i] = a; }"
      items[#items + 1] = ctors.output_port { "y", size = n, prerequisites = pre, calc = table.concat(body, " ") }
      return leaf(loc, typename, items)
    end)
  end
  nary("product", "Product", "u1[i]", "a *= @[i];")
  nary("min", "Min", "u1[i]", "a = @[i] < a ? @[i] : a;")
  nary("max", "Max", "u1[i]", "a = @[i] > a ? @[i] : a;")

  -- y = u1 / u2 elementwise (IEEE: a zero divisor gives an infinity or a
  -- NaN, which the simulator reports as a non-finite value; the calc stays
  -- in the differentiable subset)
  def("divide", function(s, loc)
    s = settings(loc, "divide", s, { size = true })
    local n = count(loc, "divide", "size", s.size, 1)
    return leaf(loc, "Divide", {
      ctors.input_port { "u1", size = n },
      ctors.input_port { "u2", size = n },
      ctors.output_port { "y", size = n, prerequisites = { "u1", "u2" }, calc = string.format(
        "for (int i = 0; i < %d; i++) y[i] = u1[i] / u2[i];", n) },
    })
  end)

  -- zero inside [lower, upper], the distance past it outside
  def("dead_zone", function(s, loc)
    s = settings(loc, "dead_zone", s, { lower = true, upper = true, size = true })
    local n = count(loc, "dead_zone", "size", s.size, 1)
    local lo, hi = vector(loc, "dead_zone", "lower", s.lower, n), vector(loc, "dead_zone", "upper", s.upper, n)
    for i = 1, n do
      if lo[i] > hi[i] then raise(loc, "blocks.dead_zone: lower[%d] = %s is above upper[%d] = %s", i, fmt(lo[i]), i, fmt(hi[i])) end
    end
    return leaf(loc, "DeadZone", {
      ctors.parameter { "lower", default = lo },
      ctors.parameter { "upper", default = hi },
      ctors.input_port { "u", size = n },
      ctors.output_port { "y", size = n, prerequisites = { "u", "lower", "upper" }, calc = string.format(
        "for (int i = 0; i < %d; i++) y[i] = u[i] < lower[i] ? u[i] - lower[i] : u[i] > upper[i] ? u[i] - upper[i] : 0.0;", n) },
    })
  end)

  -- y = u1 .. uk stacked (sizes = {n1, ..., nk})
  def("mux", function(s, loc)
    s = settings(loc, "mux", s, { sizes = true })
    if type(s.sizes) ~= "table" or #s.sizes == 0 or #s.sizes > 64 then
      raise(loc, "blocks.mux needs sizes, a list of 1 to 64 input sizes")
    end
    local items, pre, body, off = {}, {}, {}, 0
    for j, nj in ipairs(s.sizes) do
      nj = count(loc, "mux", "sizes[" .. j .. "]", nj)
      items[#items + 1] = ctors.input_port { "u" .. j, size = nj }
      pre[#pre + 1] = "u" .. j
      body[#body + 1] = string.format("for (int i = 0; i < %d; i++) y[%d + i] = u%d[i];", nj, off, j)
      off = off + nj
    end
    items[#items + 1] = ctors.output_port { "y", size = off, prerequisites = pre, calc = table.concat(body, " ") }
    return leaf(loc, "Mux", items)
  end)

  -- y = u[from .. from + size - 1] (1-based elements of an input of width)
  def("selector", function(s, loc)
    s = settings(loc, "selector", s, { width = true, from = true, size = true })
    local w = count(loc, "selector", "width", s.width)
    local from, n = count(loc, "selector", "from", s.from, 1), count(loc, "selector", "size", s.size, 1)
    if from + n - 1 > w then
      raise(loc, "blocks.selector: elements %d to %d are past the input's width %d", from, from + n - 1, w)
    end
    return leaf(loc, "Selector", {
      ctors.input_port { "u", size = w },
      ctors.output_port { "y", size = n, prerequisites = { "u" },
        calc = string.format("for (int i = 0; i < %d; i++) y[i] = u[%d + i];", n, from - 1) },
    })
  end)

  -- y = u1 where the control c >= threshold, else u2
  def("switch", function(s, loc)
    s = settings(loc, "switch", s, { threshold = true, size = true })
    local n = count(loc, "switch", "size", s.size, 1)
    return leaf(loc, "Switch", {
      ctors.parameter { "threshold", default = { number(loc, "switch", "threshold", s.threshold, 0) } },
      ctors.input_port { "u1", size = n },
      ctors.input_port { "c", size = 1 },
      ctors.input_port { "u2", size = n },
      ctors.output_port { "y", size = n, prerequisites = { "u1", "c", "u2", "threshold" },
        calc = string.format("for (int i = 0; i < %d; i++) y[i] = c[0] >= threshold[0] ? u1[i] : u2[i];", n) },
    })
  end)

  -- y = the table's value at u, linear between breakpoints; beyond them
  -- clamped (default) or extrapolated from the end segments
  def("lookup", function(s, loc)
    s = settings(loc, "lookup", s, { x = true, y = true, extrapolate = true })
    if type(s.x) ~= "table" or #s.x < 2 or #s.x > 256 then
      raise(loc, "blocks.lookup needs x, a list of 2 to 256 breakpoints")
    end
    local n = #s.x
    local x, y = vector(loc, "lookup", "x", s.x, n), vector(loc, "lookup", "y", s.y, n)
    for i = 2, n do
      if not (x[i] > x[i - 1]) then
        raise(loc, "blocks.lookup: the breakpoints must increase: x[%d] = %s is not above x[%d] = %s", i, fmt(x[i]), i - 1, fmt(x[i - 1]))
      end
    end
    if s.extrapolate ~= nil and type(s.extrapolate) ~= "boolean" then
      raise(loc, "blocks.lookup: extrapolate must be true or false")
    end
    -- the segment is chosen by comparisons in a loop of constant bounds
    -- (no index computed from data: the calc stays in the differentiable
    -- subset, its derivative the segment's slope)
    local body = string.format([[
double v = u[0];
if (!%s) v = v < x[0] ? x[0] : v > x[%d] ? x[%d] : v;
y[0] = 0.0;
for (int j = 0; j < %d; j++) {
  if ((j == 0 || v >= x[j]) && (j == %d || v < x[j + 1]))
    y[0] = yv[j] + (yv[j + 1] - yv[j]) * (v - x[j]) / (x[j + 1] - x[j]);
}]], s.extrapolate and "1" or "0", n - 1, n - 1, n - 1, n - 2)
    return leaf(loc, "Lookup", {
      ctors.parameter { "x", default = x },
      ctors.parameter { "yv", default = y },
      ctors.input_port { "u", size = 1 },
      ctors.output_port { "y", size = 1, prerequisites = { "u", "x", "yv" }, calc = body },
    })
  end)

  -- ---- controllers ---------------------------------------------------------

  -- PID on the reference r and the measurement y, output u (parallel form
  -- u = kp (b r - y) + I + kd D, I' = ki (r - y), D = N s / (s + N) of
  -- (c r - y); ideal form: ki = kp / ti, kd = kp td), with output limits,
  -- anti-windup (clamping or back-calculation) and, with a period, the
  -- discrete law (forward Euler on I and on the filter).
  def("pid", function(s, loc)
    s = settings(loc, "pid", s, { kp = true, ki = true, kd = true, ti = true, td = true, form = true, n = true,
      b = true, c = true, lower = true, upper = true, anti_windup = true, kb = true, period = true, offset = true })
    local form = s.form or "parallel"
    if form ~= "parallel" and form ~= "ideal" then
      raise(loc, "blocks.pid: form must be \"parallel\" or \"ideal\", got %s", tostring(form))
    end
    local kp, ki, kd = number(loc, "pid", "kp", s.kp, 0)
    if form == "ideal" then
      if s.ki ~= nil or s.kd ~= nil then raise(loc, "blocks.pid: the ideal form takes kp, ti and td (not ki, kd)") end
      local ti, td = s.ti ~= nil and number(loc, "pid", "ti", s.ti) or nil, number(loc, "pid", "td", s.td, 0)
      if ti ~= nil and not (ti > 0) then raise(loc, "blocks.pid: ti must be positive, got %s", fmt(ti)) end
      ki, kd = ti and kp / ti or 0, kp * td
    else
      if s.ti ~= nil or s.td ~= nil then raise(loc, "blocks.pid: the parallel form takes kp, ki and kd (not ti, td)") end
      ki, kd = number(loc, "pid", "ki", s.ki, 0), number(loc, "pid", "kd", s.kd, 0)
    end
    local N = number(loc, "pid", "n", s.n, 100)
    if not (N > 0) then raise(loc, "blocks.pid: n (the derivative filter's bandwidth, rad/s) must be positive, got %s", fmt(N)) end
    local limited = s.lower ~= nil or s.upper ~= nil
    local lower, upper = number(loc, "pid", "lower", s.lower, -1e300), number(loc, "pid", "upper", s.upper, 1e300)
    if lower > upper then raise(loc, "blocks.pid: lower = %s is above upper = %s", fmt(lower), fmt(upper)) end
    local aw = s.anti_windup or (limited and "clamp" or "none")
    if aw ~= "none" and aw ~= "clamp" and aw ~= "back_calculation" then
      raise(loc, "blocks.pid: anti_windup must be \"none\", \"clamp\" or \"back_calculation\", got %s", tostring(aw))
    end
    if aw ~= "none" and not limited then raise(loc, "blocks.pid: anti_windup needs output limits (lower, upper)") end
    local kb = number(loc, "pid", "kb", s.kb, 1)
    if aw == "back_calculation" and not (kb > 0) then raise(loc, "blocks.pid: kb must be positive, got %s", fmt(kb)) end
    local discrete = s.period ~= nil
    local period, offset
    if discrete then period, offset = timing(loc, "pid", s) end
    if discrete and period * N >= 2 then
      raise(loc, "blocks.pid: period * n = %s: the discrete derivative filter needs period * n < 2 (lower n or the period)",
        fmt(period * N))
    end
    -- the law, from the state I, xf and the inputs: v (unlimited), u
    local law = [[
double e = r[0] - y[0];
double dd = c[0] * r[0] - y[0] - xf[0];
double v = kp[0] * (b[0] * r[0] - y[0]) + I[0] + kd[0] * n[0] * dd;
double uu = v < lower[0] ? lower[0] : v > upper[0] ? upper[0] : v;
(void)e;]]
    local rate = ({
      none = "ki[0] * e",
      clamp = "(uu != v && e * (v - uu) > 0.0) ? 0.0 : ki[0] * e",
      back_calculation = "ki[0] * e + kb[0] * (uu - v)",
    })[aw]
    local pre = { "r", "y", "kp", "ki", "kd", "n", "b", "c", "lower", "upper", "kb" }
    local items = {
      ctors.parameter { "kp", default = { kp } }, ctors.parameter { "ki", default = { ki } },
      ctors.parameter { "kd", default = { kd } }, ctors.parameter { "n", default = { N } },
      ctors.parameter { "b", default = { number(loc, "pid", "b", s.b, 1) } },
      ctors.parameter { "c", default = { number(loc, "pid", "c", s.c, 1) } },
      ctors.parameter { "lower", default = { lower } }, ctors.parameter { "upper", default = { upper } },
      ctors.parameter { "kb", default = { kb } },
      ctors.input_port { "r", size = 1 }, ctors.input_port { "y", size = 1 },
    }
    if discrete then
      items[#items + 1] = ctors.discrete_state { "I", default = { 0 } }
      items[#items + 1] = ctors.discrete_state { "xf", default = { 0 } }
      local spre = { "I", "xf" }
      for _, p in ipairs(pre) do spre[#spre + 1] = p end
      items[#items + 1] = ctors.periodic_discrete_update { "step", period = period, offset = offset, prerequisites = spre,
        writes = { "I", "xf" }, calc = law .. string.format("\n(void)uu;\nI_next[0] = I[0] + %s * (%s);\nxf_next[0] = xf[0] + %s * n[0] * dd;",
          fmt(period), rate, fmt(period)) }
      items[#items + 1] = ctors.output_port { "u", size = 1, prerequisites = spre, calc = law .. "\nu[0] = uu;" }
    else
      items[#items + 1] = ctors.continuous_state { z = 2, z0 = { 0, 0 } }
      local zpre = { "z" }
      for _, p in ipairs(pre) do zpre[#zpre + 1] = p end
      local zlaw = "const double *I = z, *xf = z + 1;\n" .. law
      items[#items + 1] = ctors.derivatives { prerequisites = zpre,
        calc = zlaw .. string.format("\n(void)uu;\nzdot[0] = %s;\nzdot[1] = n[0] * dd;", rate) }
      items[#items + 1] = ctors.output_port { "u", size = 1, prerequisites = zpre, calc = zlaw .. "\nu[0] = uu;" }
    end
    return leaf(loc, discrete and "DiscretePID" or "PID", items)
  end)

  return B
end

return M
