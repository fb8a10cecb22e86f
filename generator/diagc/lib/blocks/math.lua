-- lib/blocks/math.lua: static blocks: gains, sums, limits, elementwise functions, routing
-- (docs/library.md, "Blocks").  M.add(B, K) puts this category's blocks
-- in the library table B, with K the shared checks (lib/blocks/common.lua).

local M = {}

function M.add(B, K)
  local def = K.definer(B)
  local ctors, raise, fmt, settings, number, count, vector, matrix, flat, leaf = K.ctors, K.raise, K.fmt, K.settings, K.number, K.count, K.vector, K.matrix, K.flat, K.leaf
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

  -- y = f(u, lower, upper) elementwise, lower <= upper checked
  local function banded(name, typename, expr)
    def(name, function(s, loc)
      s = settings(loc, name, s, { lower = true, upper = true, size = true })
      local n = count(loc, name, "size", s.size, 1)
      local lo, hi = vector(loc, name, "lower", s.lower, n), vector(loc, name, "upper", s.upper, n)
      for i = 1, n do
        if lo[i] > hi[i] then raise(loc, "blocks.%s: lower[%d] = %s is above upper[%d] = %s", name, i, fmt(lo[i]), i, fmt(hi[i])) end
      end
      return leaf(loc, typename, {
        ctors.parameter { "lower", default = lo },
        ctors.parameter { "upper", default = hi },
        ctors.input_port { "u", size = n },
        ctors.output_port { "y", size = n, prerequisites = { "u", "lower", "upper" },
          calc = string.format("for (int i = 0; i < %d; i++) y[i] = %s;", n, expr) },
      })
    end)
  end
  -- y = min(max(u, lower), upper)
  banded("saturation", "Saturation", "u[i] < lower[i] ? lower[i] : u[i] > upper[i] ? upper[i] : u[i]")
  -- zero inside [lower, upper], the distance past it outside
  banded("dead_zone", "DeadZone", "u[i] < lower[i] ? u[i] - lower[i] : u[i] > upper[i] ? u[i] - upper[i] : 0.0")

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

  -- y1 .. yk = consecutive parts of u (sizes = {n1, ..., nk})
  def("demux", function(s, loc)
    s = settings(loc, "demux", s, { sizes = true })
    if type(s.sizes) ~= "table" or #s.sizes == 0 or #s.sizes > 64 then
      raise(loc, "blocks.demux needs sizes, a list of 1 to 64 output sizes")
    end
    local outs, off = {}, 0
    for j, nj in ipairs(s.sizes) do
      nj = count(loc, "demux", "sizes[" .. j .. "]", nj)
      outs[j] = ctors.output_port { "y" .. j, size = nj, prerequisites = { "u" },
        calc = string.format("for (int i = 0; i < %d; i++) y%d[i] = u[%d + i];", nj, j, off) }
      off = off + nj
    end
    local items = { ctors.input_port { "u", size = off } }
    for _, o in ipairs(outs) do items[#items + 1] = o end
    return leaf(loc, "Demux", items)
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

end

return M
