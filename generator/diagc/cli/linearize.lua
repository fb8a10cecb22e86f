-- cli/linearize.lua: diagc linearize SPEC.lua -- compile in-process with
-- TinyCC (it runs the spec's C, as `run` does), set the operating point
-- (-p, --state, --input, --time), and print A, B, C, D with row and column
-- names (testing/linear.lua; Drake's Linearize, or with --mode
-- first_order_taylor its FirstOrderTaylorApproximation and the affine
-- terms f0, y0).  Formats: text (default), json, csv.
local errors = require("diagc.errors")
local cli = require("diagc.cli.main")
local model = require("diagc.testing.model")
local linear = require("diagc.testing.linear")
local assign = require("diagc.cli.assign")
local output = require("diagc.cli.output")
local json = require("diagc.cli.json")

local M = {}
local text_eig

local CMD = "diagc linearize"

local FLAGS = {
  ["-p"] = true, ["--state"] = true, ["--input"] = true, ["--time"] = true,
  ["--mode"] = true, ["--input-port"] = true, ["--output-port"] = true,
  ["--jacobian"] = true, ["--tolerance"] = true, ["--format"] = true, ["-o"] = true, ["--eig"] = false,
}
local MULTI = { ["-p"] = true, ["--state"] = true, ["--input"] = true }
local FORMATS = { "text", "json", "csv" }

local function one_of(opt, v, list)
  for _, x in ipairs(list) do if x == v then return v end end
  errors.raise(nil, "%s: %s: unknown value '%s'%s", CMD, opt, cli.show(v), cli.hint(v, list, "values"))
end

local function options(o)
  local opts = {
    mode = o["--mode"] and one_of("--mode", o["--mode"], linear.MODES),
    jacobian = o["--jacobian"] and one_of("--jacobian", o["--jacobian"], { "model", "fd" }),
    input = o["--input-port"], output = o["--output-port"], eig = o["--eig"] or nil,
  }
  if o["--tolerance"] then
    opts.tolerance = cli.number(CMD, "--tolerance", o["--tolerance"], model.option(linear.OPTIONS, "tolerance").range)
  end
  return opts
end

-- -0 prints as 0 in every format (a zero's sign says nothing about a
-- derivative)
local function unsigned_zero(x) return x == 0 and 0 or x end

-- text: 10 significant digits
local function g(x) return string.format("%.10g", unsigned_zero(x)) end

-- one matrix as text: a header of column names, a row per row name; every
-- column as wide as its widest name or value plus two spaces (at least 14
-- characters), right-aligned, so columns never run together
local function text_matrix(out, name, m, rnames, cnames)
  out[#out + 1] = string.format("%s (%d x %d)", name, #rnames, #cnames)
  if #rnames == 0 or #cnames == 0 then return end
  local w = 8
  for _, n in ipairs(rnames) do w = math.max(w, #n) end
  local cells, cw = {}, {}
  for j, n in ipairs(cnames) do cw[j] = math.max(14, #n + 2) end
  for i = 1, #rnames do
    cells[i] = {}
    for j = 1, #cnames do
      cells[i][j] = g(m[i][j])
      cw[j] = math.max(cw[j], #cells[i][j] + 2)
    end
  end
  local head = { string.rep(" ", w + 2) }
  for j, n in ipairs(cnames) do head[#head + 1] = string.format("%" .. cw[j] .. "s", n) end
  out[#out + 1] = table.concat(head)
  for i, rn in ipairs(rnames) do
    local row = { string.format("  %-" .. w .. "s", rn) }
    for j = 1, #cnames do row[#row + 1] = string.format("%" .. cw[j] .. "s", cells[i][j]) end
    out[#out + 1] = table.concat(row)
  end
end

local function text_vector(out, name, v, names)
  if #names == 0 then return end
  local parts = {}
  for i, n in ipairs(names) do parts[i] = n .. " = " .. g(v[i]) end
  out[#out + 1] = name .. ": " .. table.concat(parts, ", ")
end

-- the eigenvalues of A: continuous "re +- im i"; discrete z, |z| and the
-- continuous-time equivalent log(z) / h
local function complex(re, im)
  if im == 0 then return g(re) end
  return string.format("%s %s %si", g(re), im < 0 and "-" or "+", g(math.abs(im)))
end

text_eig = function(out, eig, h)
  out[#out + 1] = string.format("eigenvalues of A (%d)%s", #eig, h > 0 and ": z, |z|, log(z)/h" or "")
  for _, e in ipairs(eig) do
    if h > 0 then
      out[#out + 1] = string.format("  %-34s |z| = %-16s s = %s", complex(e.re, e.im), g(e.abs),
        e.s_re == -math.huge and "-inf" or complex(e.s_re, e.s_im))
    else
      out[#out + 1] = "  " .. complex(e.re, e.im)
    end
  end
end

local function as_text(r, name, t)
  local out = {}
  out[#out + 1] = string.format("%s of %s at t = %s", r.mode, name, g(t))
  local disc = r.time_period > 0
  if disc then out[#out + 1] = "  discrete time, period " .. g(r.time_period) end
  if r.mode == "linearize" then
    out[#out + 1] = disc and "  x[n+1] - x0 = A (x[n] - x0) + B (u[n] - u0),  y - y0 = C (x[n] - x0) + D (u[n] - u0)"
      or "  d/dt (x - x0) = A (x - x0) + B (u - u0),  y - y0 = C (x - x0) + D (u - u0)"
  else
    out[#out + 1] = disc and "  x[n+1] = A x[n] + B u[n] + f0,  y = C x[n] + D u[n] + y0"
      or "  dx/dt = A x + B u + f0,  y = C x + D u + y0"
  end
  if r.left_out then
    out[#out + 1] = "  left out: " .. table.concat(r.left_out, ", ")
      .. " (bookkeeping: nothing in the system reads them)"
  end
  text_vector(out, "x0", r.x0, r.states)
  text_vector(out, "u0", r.u0, r.inputs)
  text_vector(out, "y0", r.y0, r.outputs)
  if r.mode ~= "linearize" then text_vector(out, "f0", r.f0, r.states) end
  text_matrix(out, "A", r.A, r.states, r.states)
  text_matrix(out, "B", r.B, r.states, r.inputs)
  text_matrix(out, "C", r.C, r.outputs, r.states)
  text_matrix(out, "D", r.D, r.outputs, r.inputs)
  if r.eig then text_eig(out, r.eig, r.time_period) end
  return table.concat(out, "\n") .. "\n"
end

-- [{re, im, abs[, s_re, s_im]}]; s_re of z = 0 is null (minus infinity)
local function eig_json(eig)
  local a = json.array()
  for i, e in ipairs(eig) do
    local s_re = e.s_re
    if s_re == -math.huge then s_re = nil end
    a[i] = { re = unsigned_zero(e.re), im = unsigned_zero(e.im), abs = e.abs,
      s_re = s_re and unsigned_zero(s_re), s_im = e.s_im and unsigned_zero(e.s_im) }
  end
  return a
end

local function as_json(r, name, t)
  local function mat(m, ncol)
    local a = json.array()
    for i, row in ipairs(m) do
      a[i] = json.array()
      for j = 1, ncol do a[i][j] = unsigned_zero(row[j]) end
    end
    return a
  end
  local function vec(v)
    local a = json.array()
    for i, x in ipairs(v) do a[i] = unsigned_zero(x) end
    return a
  end
  local nx, nu = #r.states, #r.inputs
  return json.encode({
    model = name, mode = r.mode, t = t, time_period = r.time_period,
    states = json.array(r.states), inputs = json.array(r.inputs), outputs = json.array(r.outputs),
    A = mat(r.A, nx), B = mat(r.B, nu), C = mat(r.C, nx), D = mat(r.D, nu),
    x0 = vec(r.x0), u0 = vec(r.u0), y0 = vec(r.y0), f0 = vec(r.f0), eigenvalues = r.eig and eig_json(r.eig),
    left_out = r.left_out and json.array(r.left_out),
  })
end

-- one line per element: matrix,row,column,value (vectors: column empty);
-- values in the shortest form that reads back, as `diagc run` writes
local function as_csv(r)
  local out = { "matrix,row,column,value" }
  local function q(s) return s:find('[,"]') and ('"' .. s:gsub('"', '""') .. '"') or s end
  local function num(x) return json.number(unsigned_zero(x)) end
  local function mat(name, m, rn, cn)
    for i = 1, #rn do
      for j = 1, #cn do out[#out + 1] = string.format("%s,%s,%s,%s", name, q(rn[i]), q(cn[j]), num(m[i][j])) end
    end
  end
  local function vec(name, v, rn)
    for i = 1, #rn do out[#out + 1] = string.format("%s,%s,,%s", name, q(rn[i]), num(v[i])) end
  end
  mat("A", r.A, r.states, r.states)
  mat("B", r.B, r.states, r.inputs)
  mat("C", r.C, r.outputs, r.states)
  mat("D", r.D, r.outputs, r.inputs)
  vec("x0", r.x0, r.states)
  vec("u0", r.u0, r.inputs)
  vec("y0", r.y0, r.outputs)
  vec("f0", r.f0, r.states)
  for i, e in ipairs(r.eig or {}) do
    for _, k in ipairs({ "re", "im", "abs", "s_re", "s_im" }) do
      if e[k] then out[#out + 1] = string.format("eig,%d,%s,%s", i, k, e[k] == -math.huge and "-inf" or num(e[k])) end
    end
  end
  return table.concat(out, "\n") .. "\n"
end

function M.main(args)
  local o, pos = cli.parse(args, { flags = FLAGS, multi = MULTI }, CMD)
  if #pos ~= 1 then errors.raise(nil, "%s: expected one spec file, as in: diagc linearize spec.lua", CMD) end
  local fmt = one_of("--format", o["--format"] or "text", FORMATS)
  local opts = options(o)
  local m = model.jit(pos[1])
  if (opts.jacobian or "model") == "model" and m.desc.jac_lin == nil and m.gen.jac_lin_missing then
    local why = m.gen.jac_lin_missing
    errors.raise(why.loc, "%s", why.message)
  end
  local ctx = m:context()
  assign.apply_options(m, ctx, o, CMD)
  local t = o["--time"] and cli.number(CMD, "--time", o["--time"], {}) or 0
  if o["--time"] then ctx:set("t", t) end
  local r, msg = linear.linearize(m, ctx, opts)
  if not r then errors.raise(nil, "%s: %s", CMD, msg) end
  r.mode = opts.mode or "linearize"
  local name = m.prefix
  local text = fmt == "json" and as_json(r, name, t) or fmt == "csv" and as_csv(r) or as_text(r, name, t)
  output.report(CMD, o["-o"], text, function() return require("diagc.cli.generate").inputs(m.gen) end)
  return 0
end

return M
