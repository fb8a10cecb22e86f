-- coder/jacobian_fd.lua: the local Jacobian of a calc declared
-- jacobian = "finite_difference" (check/calc.lua), for the chain rule of
-- coder/jacobian_chain.lua: central differences of the calc's own C
-- function.  Each differentiated input (the calc's values that can depend
-- on the state or the inputs) is copied; each element in turn is moved by
-- ±h, h = ∛ε·max(1, |value|), the calc is called into two local output
-- buffers, and every output element's difference quotient is stored.  The
-- pattern is dense (every output element against every differentiated
-- input element), in the order: input, its element, output, its element.
-- Adds nothing to the model.
local util = require("diagc.util")
local names = require("diagc.coder.names")
local value_fn = require("diagc.coder.value_fn")

local M = {}

local H = util.c_double(2 ^ (-52 / 3))

local function sizes(itf)
  local s = {}
  for _, x in ipairs(itf.inputs) do s[x.name] = x.size end
  for _, x in ipairs(itf.outputs) do s[x.name] = x.size end
  return s
end

-- {name=, pattern=, fd=, lt=, calc=, cols= (the differentiated params),
-- outs= (the written params), size=}
function M.local_jacobian(K, e, inputs, suffix)
  local calc, size = e.calc, sizes(e.calc.diff.fd)
  local cols, outs, pattern = {}, {}, {}
  for _, p in ipairs(calc.params) do
    if p.write then outs[#outs + 1] = p
    elseif inputs[p.name] and size[p.name] then cols[#cols + 1] = p end
  end
  for _, c in ipairs(cols) do
    for i = 0, size[c.name] - 1 do
      for _, o in ipairs(outs) do
        for j = 0, size[o.name] - 1 do
          pattern[#pattern + 1] = { input = c.name, in_index = i, out = o.name, out_index = j }
        end
      end
    end
  end
  return { name = names.calc_fn(K.P, e.ctx.type, calc) .. suffix, pattern = pattern, fd = true,
    lt = e.ctx.type, calc = calc, cols = cols, outs = outs, size = size }
end

-- the calc's call with the copies `diagc_x_*` and the buffers `prefix*`
local function call(K, lj, prefix)
  local a = {}
  for _, p in ipairs(lj.calc.params) do
    local moved = false
    for _, c in ipairs(lj.cols) do moved = moved or c == p end
    a[#a + 1] = (p.write and (prefix .. p.name)) or (moved and ("diagc_x_" .. p.name)) or p.name
  end
  return string.format("%s(%s)", names.calc_fn(K.P, lj.lt, lj.calc), table.concat(a, ", "))
end

local function emit_column(K, lj, c, base, nout)
  local C, n = K.C, lj.size[c.name]
  C:linef("  for (diagc_i = 0; diagc_i < %d; ++diagc_i) {", n)
  C:linef("    const double diagc_v = %s[diagc_i];", c.name)
  C:linef("    const double diagc_h = %s * fmax(1.0, fabs(diagc_v));", H)
  C:line("    const double diagc_up = diagc_v + diagc_h, diagc_dn = diagc_v - diagc_h;")
  C:linef("    diagc_x_%s[diagc_i] = diagc_up;", c.name)
  C:linef("    if (%s != 0) return 1;", call(K, lj, "diagc_p_"))
  C:linef("    diagc_x_%s[diagc_i] = diagc_dn;", c.name)
  C:linef("    if (%s != 0) return 1;", call(K, lj, "diagc_m_"))
  C:linef("    diagc_x_%s[diagc_i] = diagc_v;", c.name)
  local off = 0
  for _, o in ipairs(lj.outs) do
    C:linef("    for (diagc_j = 0; diagc_j < %d; ++diagc_j)", lj.size[o.name])
    C:linef("      diagc_jac[%d + %d * diagc_i + %d + diagc_j] = (diagc_p_%s[diagc_j] - diagc_m_%s[diagc_j]) / (diagc_up - diagc_dn);",
      base, nout, off, o.name, o.name)
    off = off + lj.size[o.name]
  end
  C:line("  }")
end

-- slot `jacobian_fd_table`: the entries whose local Jacobian is by finite
-- differences (K.jac_fd, filled by coder/jacobian_chain.lua), for the
-- descriptor
function M.table(K)
  return function(C)
    local rows = {}
    for i, path in ipairs(K.jac_fd or {}) do rows[i] = "  " .. util.c_string(path) .. "," end
    K.jac_fd_table = names.table_of(C, K.P, "char *const", "jac_fd_calcs", rows)
    if #rows > 0 then C:line() end
  end
end

-- `static int NAME(the calc's params..., double *diagc_jac)`
function M.emit(K, lj)
  local C = K.C
  local decl = value_fn.declarations(lj.calc.params)
  decl[#decl + 1] = "double *diagc_jac"
  C:linef("/* d(%s) by central differences (jacobian = \"finite_difference\") */", util.c_comment(lj.calc.name))
  C:linef("static int %s(%s)", lj.name, table.concat(decl, ", "))
  C:line("{")
  local nout = 0
  for _, o in ipairs(lj.outs) do
    nout = nout + lj.size[o.name]
    C:linef("  double diagc_p_%s[%d], diagc_m_%s[%d];", o.name, lj.size[o.name], o.name, lj.size[o.name])
    C:linef("  (void)%s;", o.name)
  end
  for _, c in ipairs(lj.cols) do
    C:linef("  double diagc_x_%s[%d];", c.name, lj.size[c.name])
  end
  C:line("  int diagc_i, diagc_j;")
  for _, c in ipairs(lj.cols) do
    C:linef("  memcpy(diagc_x_%s, %s, sizeof diagc_x_%s);", c.name, c.name, c.name)
  end
  local base = 0
  for _, c in ipairs(lj.cols) do
    emit_column(K, lj, c, base, nout)
    base = base + nout * lj.size[c.name]
  end
  if #lj.cols == 0 then C:line("  (void)diagc_i; (void)diagc_j; (void)diagc_jac;") end
  C:line("  return 0;")
  C:line("}")
  C:line()
end

return M
