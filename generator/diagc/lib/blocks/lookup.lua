-- lib/blocks/lookup.lua: lookup tables, 1-D and 2-D (docs/library.md,
-- "Blocks"): linear (bilinear) between breakpoints; beyond them clamped
-- (default) or extrapolated from the end segments.  The segment is chosen
-- by comparisons in a loop of constant bounds (no index computed from
-- data), so the calc stays in the differentiable subset and its
-- derivative is the slope of the segment (cell) the input is in.
local M = {}

function M.add(B, K)
  local def = K.definer(B)
  local ctors, settings, vector, leaf, raise, fmt = K.ctors, K.settings, K.vector, K.leaf, K.raise, K.fmt

  -- a list of 2 to 256 increasing breakpoints
  local function breakpoints(loc, name, key, v)
    if type(v) ~= "table" or #v < 2 or #v > 256 then
      raise(loc, "blocks.%s needs %s, a list of 2 to 256 breakpoints", name, key)
    end
    v = vector(loc, name, key, v, #v)
    for i = 2, #v do
      if not (v[i] > v[i - 1]) then
        raise(loc, "blocks.%s: the breakpoints must increase: %s[%d] = %s is not above %s[%d] = %s", name, key, i,
          fmt(v[i]), key, i - 1, fmt(v[i - 1]))
      end
    end
    return v
  end

  local function extrapolate(loc, name, v)
    if v ~= nil and type(v) ~= "boolean" then raise(loc, "blocks.%s: extrapolate must be true or false", name) end
    return v and "1" or "0"
  end

  -- C: for the segment j of the n breakpoints bp that the value v is in,
  -- with f its fraction along it, run body (the first and the last
  -- segment extend beyond the ends)
  local function segment(v, bp, n, body)
    return string.format([[
for (int j = 0; j < %d; j++) {
  if ((j == 0 || %s >= %s[j]) && (j == %d || %s < %s[j + 1])) {
    double f = (%s - %s[j]) / (%s[j + 1] - %s[j]);
    %s
  }
}]], n - 1, v, bp, n - 2, v, bp, v, bp, bp, bp, body)
  end

  local function clamp(v, bp, n, ex)
    return string.format("if (!%s) %s = %s < %s[0] ? %s[0] : %s > %s[%d] ? %s[%d] : %s;", ex, v, v, bp, bp, v, bp, n - 1, bp, n - 1, v)
  end

  -- y = the table's value at u
  def("lookup", function(s, loc)
    s = settings(loc, "lookup", s, { x = true, y = true, extrapolate = true })
    local x = breakpoints(loc, "lookup", "x", s.x)
    local n = #x
    local y = vector(loc, "lookup", "y", s.y, n)
    local body = "double v = u[0];\n" .. clamp("v", "x", n, extrapolate(loc, "lookup", s.extrapolate))
      .. "\ny[0] = 0.0;\n" .. segment("v", "x", n, "y[0] = yv[j] + (yv[j + 1] - yv[j]) * f;")
    return leaf(loc, "Lookup", {
      ctors.parameter { "x", default = x },
      ctors.parameter { "yv", default = y },
      ctors.input_port { "u", size = 1 },
      ctors.output_port { "y", size = 1, prerequisites = { "u", "x", "yv" }, calc = body },
    })
  end)

  -- y = the table's value at (u1, u2), bilinear: table[i][j] is the value
  -- at (x[i], y[j])
  def("lookup2d", function(s, loc)
    s = settings(loc, "lookup2d", s, { x = true, y = true, table = true, extrapolate = true })
    local x, y = breakpoints(loc, "lookup2d", "x", s.x), breakpoints(loc, "lookup2d", "y", s.y)
    local nx, ny = #x, #y
    local T, r, c = K.matrix(loc, "lookup2d", "table", s.table)
    if r ~= nx or c ~= ny then
      raise(loc, "blocks.lookup2d: table must be %d x %d (a row per x breakpoint, a column per y one), is %d x %d", nx, ny, r, c)
    end
    if nx * ny > 4096 then raise(loc, "blocks.lookup2d: the table has %d values; at most 4096", nx * ny) end
    local ex = extrapolate(loc, "lookup2d", s.extrapolate)
    local body = table.concat({
      "double a = u1[0], b = u2[0];",
      clamp("a", "bx", nx, ex), clamp("b", "by", ny, ex),
      string.format("double wx[%d] = {0.0}, wy[%d] = {0.0};", nx, ny),
      segment("a", "bx", nx, "wx[j] = 1.0 - f; wx[j + 1] = f;"),
      segment("b", "by", ny, "wy[j] = 1.0 - f; wy[j + 1] = f;"),
      string.format("y[0] = 0.0;\nfor (int i = 0; i < %d; i++) for (int j = 0; j < %d; j++) y[0] += wx[i] * wy[j] * tv[i * %d + j];",
        nx, ny, ny),
    }, "\n")
    return leaf(loc, "Lookup2D", {
      ctors.parameter { "bx", default = x },
      ctors.parameter { "by", default = y },
      ctors.parameter { "tv", default = K.flat(T) },
      ctors.input_port { "u1", size = 1 },
      ctors.input_port { "u2", size = 1 },
      ctors.output_port { "y", size = 1, prerequisites = { "u1", "u2", "bx", "by", "tv" }, calc = body },
    })
  end)
end

return M
