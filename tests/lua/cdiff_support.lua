-- tests/lua/cdiff_support.lua: shared by the cdiff_*_test.lua files
-- (loaded with dofile).  Compiles a calc body and its generated Jacobian
-- code in-process with TinyCC, and checks the Jacobian against central
-- finite differences.
local ffi = require("ffi")
local host = require("diagc_host")
local cdiff = require("diagc.cdiff")

local S = { lex = host.lex_c }

-- {inputs=, outputs=, body=, preamble=} -> cdiff result (raises on a problem)
function S.analyze(spec)
  local r, p = cdiff.analyze({ body = spec.body, preamble = spec.preamble, inputs = spec.inputs,
    outputs = spec.outputs, lex = S.lex })
  if not r then
    error(string.format("cdiff problem at %s %d:%d: %s (%s)", p.source, p.line, p.col, p.message,
      p.construct), 2)
  end
  return r
end

-- Offsets of each interface entry in one flat array.
local function layout(list)
  local off, n = {}, 0
  for _, x in ipairs(list) do
    off[x.name] = n
    n = n + (x.size or 1)
  end
  return off, n
end
S.layout = layout

-- The C function `name(const double *in, double *out[, double *jac])`
-- running `code` with the interface's names bound into in/out.
local function wrap(spec, name, code, with_jac)
  local ioff = layout(spec.inputs)
  local ooff = layout(spec.outputs)
  local t = { "void " .. name .. "(const double *in_, double *out_" .. (with_jac and ", double *jac" or "")
    .. ") {" }
  for _, x in ipairs(spec.inputs) do
    if x.size then
      t[#t + 1] = string.format("  const double *%s = in_ + %d; (void)%s;", x.name, ioff[x.name], x.name)
    else
      t[#t + 1] = string.format("  const double %s = in_[%d]; (void)%s;", x.name, ioff[x.name], x.name)
    end
  end
  for _, x in ipairs(spec.outputs) do
    if x.preload then
      -- an update's x_next starts as a copy of x
      t[#t + 1] = string.format("  for (int i_ = 0; i_ < %d; i_++) out_[%d + i_] = in_[%d + i_];",
        x.size or 1, ooff[x.name], ioff[x.preload])
    end
    if x.size then
      t[#t + 1] = string.format("  double *%s = out_ + %d; (void)%s;", x.name, ooff[x.name], x.name)
    else
      t[#t + 1] = string.format("  double %s = out_[%d];", x.name, ooff[x.name])
    end
  end
  t[#t + 1] = "  {\n" .. code .. "\n  }"
  for _, x in ipairs(spec.outputs) do
    if not x.size then t[#t + 1] = string.format("  out_[%d] = %s;", ooff[x.name], x.name) end
  end
  t[#t + 1] = "}"
  return table.concat(t, "\n")
end

-- C source of the primal (the body as written) and of the Jacobian code.
function S.source(spec, r, suffix)
  suffix = suffix or ""
  local j = r.jacobian()
  return "#include <math.h>\n" .. (spec.preamble or "") .. "\n"
    .. wrap(spec, "primal" .. suffix, spec.body, false) .. "\n"
    .. wrap(spec, "jacobian" .. suffix, j.code, true) .. "\n", j
end

-- Compiled functions: f(x) -> y (Lua arrays, 1-based), J(x) -> y, jac.
function S.compile(spec, r)
  local src, j = S.source(spec, r)
  local st, msgs = host.tcc_compile(src, { options = "-Wall -Werror", name = "cdiff_test.c",
    defines = { __STRICT_ANSI__ = true } })
  if not st then error("tcc: " .. tostring(msgs) .. "\n" .. src, 2) end
  local pf = ffi.cast("void (*)(const double *, double *)", host.tcc_symbol(st, "primal"))
  local jf = ffi.cast("void (*)(const double *, double *, double *)", host.tcc_symbol(st, "jacobian"))
  local _, nin = layout(spec.inputs)
  local _, nout = layout(spec.outputs)
  local nnz = #j.pattern
  local function call(fn, x, with_jac)
    local xin = ffi.new("double[?]", nin + 1)
    for i = 1, nin do xin[i - 1] = x[i] end
    local out = ffi.new("double[?]", nout + 1)
    for i = 0, nout - 1 do out[i] = 12345.0 end
    local jac = ffi.new("double[?]", nnz + 1)
    if with_jac then fn(xin, out, jac) else fn(xin, out) end
    local y, jv = {}, {}
    for i = 1, nout do y[i] = out[i - 1] end
    for i = 1, nnz do jv[i] = jac[i - 1] end
    return y, jv
  end
  return {
    state = st, src = src, pattern = j.pattern, nin = nin, nout = nout,
    f = function(x) return (call(pf, x, false)) end,
    J = function(x) return call(jf, x, true) end,
  }
end

-- Row/column numbers (1-based, in the flat arrays) of pattern entries.
function S.positions(spec, pattern)
  local ioff = layout(spec.inputs)
  local ooff = layout(spec.outputs)
  local out = {}
  for k, e in ipairs(pattern) do
    out[k] = { row = ooff[e.out] + e.out_index + 1, col = ioff[e.input] + e.in_index + 1 }
  end
  return out
end

local function fd(f, x, col, h)
  local xp, xm = {}, {}
  for i = 1, #x do xp[i], xm[i] = x[i], x[i] end
  xp[col], xm[col] = x[col] + h, x[col] - h
  local yp, ym = f(xp), f(xm)
  local d = {}
  for i = 1, #yp do d[i] = (yp[i] - ym[i]) / (2 * h) end
  return d
end

-- Checks the Jacobian at x against central differences (1e-6 relative):
-- every pattern value agrees; every entry outside the pattern is zero;
-- entries whose difference quotients do not settle (a kink or branch
-- within the step) are skipped.  Returns the numbers of entries checked
-- and skipped, and the set of entries perturbation finds nonzero.
function S.check_fd(spec, c, x, opts)
  opts = opts or {}
  local y, jv = c.J(x)
  local y0 = c.f(x)
  for i = 1, #y do
    if not (y[i] == y0[i] or math.abs(y[i] - y0[i]) <= 1e-12 * math.max(1, math.abs(y0[i]))) then
      error(string.format("output %d: Jacobian code computes %.17g, the body %.17g", i, y[i], y0[i]), 0)
    end
  end
  local at = {}
  for k, p in ipairs(S.positions(spec, c.pattern)) do at[p.row .. ":" .. p.col] = k end
  local checked, skipped, nonzero = 0, 0, {}
  for col = 1, c.nin do
    local h = 1e-5 * math.max(1, math.abs(x[col]))
    local d1, d2 = fd(c.f, x, col, h), fd(c.f, x, col, h / 4)
    for row = 1, c.nout do
      local a, b = d1[row], d2[row]
      local scale = math.max(1, math.abs(y0[row]) / math.max(1, math.abs(x[col])))
      local settled = math.abs(a - b) <= 1e-5 * math.max(math.abs(a), math.abs(b)) + 1e-7 * scale
      local k = at[row .. ":" .. col]
      if not settled then
        skipped = skipped + 1
      else
        local g = k and jv[k] or 0
        if math.abs(b) > 1e-6 * scale then nonzero[row .. ":" .. col] = true end
        if not k and math.abs(b) > 1e-6 * scale then
          error(string.format("entry (row %d, col %d): perturbation finds %.10g, not in the pattern%s",
            row, col, b, opts.what and (" (" .. opts.what .. ")") or ""), 0)
        end
        if math.abs(g - b) > 1e-6 * math.max(math.abs(g), math.abs(b)) + 1e-6 * scale then
          error(string.format("entry (row %d, col %d): Jacobian %.12g, central differences %.12g%s",
            row, col, g, b, opts.what and (" (" .. opts.what .. ")") or ""), 0)
        end
        checked = checked + 1
      end
    end
  end
  return checked, skipped, nonzero
end

-- A deterministic generator (Park-Miller), uniform in [0, 1).
function S.rng(seed)
  local s = seed % 2147483647
  if s <= 0 then s = s + 2147483646 end
  return function()
    s = (s * 16807) % 2147483647
    return (s - 1) / 2147483646
  end
end

function S.point(n, rnd, lo, hi)
  local x = {}
  for i = 1, n do x[i] = lo + (hi - lo) * rnd() end
  return x
end

return S
