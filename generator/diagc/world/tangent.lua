-- world/tangent.lua: the smooth-part derivatives of a world's generated
-- dynamics (GRAD_API.md "Smooth derivatives"), in tangent coordinates of
-- the configuration, by cdiff's source transformation of the generated
-- dynamics (generator/diagc/cdiff): each function is the forward-mode
-- Jacobian of a subset C body that builds qt = q (+) dq to first order
-- from an active input dq (taken as zeros) and calls the emitted
-- prefix_kinematics / prefix_mass_matrix / prefix_bias.
--
--   local text = tangent.emit(world, prefix[, {functions = {...}}])
--
-- text: C99 static inline functions, to follow dynamics.emit's text of the
-- same world and prefix (they call nothing of it: cdiff inlines it), each
-- writing every entry of its dense row-major outputs:
--   void P_d_kinematics(const double *q, double *dX)     (12 nb) x nv
--   void P_d_rnea(const double *q, const double *v, const double *a, double *Dq, double *Dv)
--        Dq = d(M a + c)/d dq, Dv = d c/d v             nv x nv each
--   void P_d_mvec(const double *q, const double *y, double *D)     d(M y)/d dq, nv x nv
--   void P_d_bvel(const double *q, const double *y, double *D)     (6 nb) x nv: d V / d dq,
--        V_b = sum over body b's chain of S_k y_k (world/motion.lua: omega, v_o)
--   void P_d_gforce(const double *q, const double *W, double *D)   nv x nv: d tau / d dq,
--        tau_k = sum over the bodies b dof k moves of S_k . W_b (W_b = n_o, f)
-- Tangent coordinates: dq of a revolute/prismatic dof adds to q; a ball
-- joint's rotation vector d turns its quaternion q -> q (x) (1, d/2) (unit
-- q: the first-order increment is tangent to the sphere, so no
-- normalization is needed to first order); a free joint adds its linear
-- part to q[0..2] and turns q[3..6] as a ball.
-- opts.functions: a subset of M.FUNCTIONS (default all), emitted in that order.
local cdiff = require("diagc.cdiff")
local dynamics = require("diagc.world.dynamics")
local tree = require("diagc.world.tree")
local motion = require("diagc.world.motion")

local M = {}

M.FUNCTIONS = { "kinematics", "rnea", "mvec", "bvel", "gforce" }

local function lexer() return require("diagc_host").lex_c end

-- C lines of qt = q (+) dq (first order) for every joint
local function retract_lines(world, t)
  local out = { string.format("double qt[%d];", t.nq) }
  local function add(f, ...) out[#out + 1] = string.format(f, ...) end
  local function quat(q0, v0)
    local w, x, y, z = "q[" .. q0 .. "]", "q[" .. (q0 + 1) .. "]", "q[" .. (q0 + 2) .. "]", "q[" .. (q0 + 3) .. "]"
    local a, b, c = "dq[" .. v0 .. "]", "dq[" .. (v0 + 1) .. "]", "dq[" .. (v0 + 2) .. "]"
    add("qt[%d] = %s - 0.5 * (%s * %s + %s * %s + %s * %s);", q0, w, x, a, y, b, z, c)
    add("qt[%d] = %s + 0.5 * (%s * %s + %s * %s - %s * %s);", q0 + 1, x, w, a, y, c, z, b)
    add("qt[%d] = %s + 0.5 * (%s * %s + %s * %s - %s * %s);", q0 + 2, y, w, b, z, a, x, c)
    add("qt[%d] = %s + 0.5 * (%s * %s + %s * %s - %s * %s);", q0 + 3, z, w, c, x, b, y, a)
  end
  for i, b in ipairs(world.bodies) do
    local ty, q0, v0 = b.joint.type, t.q0[i], t.v0[i]
    if ty == "revolute" or ty == "prismatic" then
      add("qt[%d] = q[%d] + dq[%d];", q0, q0, v0)
    elseif ty == "ball" then
      quat(q0, v0)
    elseif ty == "free" then
      for e = 0, 2 do add("qt[%d] = q[%d] + dq[%d];", q0 + e, q0 + e, v0 + e) end
      quat(q0 + 3, v0 + 3)
    end
  end
  return out
end

-- qt, then the poses X(qt) (into the output X when as_output)
local function kin_lines(world, t, P, as_output)
  local out = retract_lines(world, t)
  if not as_output then out[#out + 1] = string.format("double X[%d];", 12 * t.nb) end
  out[#out + 1] = string.format("%s_kinematics(qt, X);", P)
  return out
end

-- M(qt) (structural zeros included: a zero initializer)
local function mass_lines(t, P, out)
  out[#out + 1] = string.format("double M[%d] = { 0.0 };", t.nv * t.nv)
  out[#out + 1] = string.format("%s_mass_matrix(qt, X, M);", P)
end

-- out[i] = (init_i) + sum_j M[i][j] y[j] over the structural nonzeros
local function mat_vec_lines(t, out, name, y, init)
  for i = 0, t.nv - 1 do
    local terms = { init and init(i) or nil }
    for j = 0, t.nv - 1 do
      if tree.dof_ancestor(t, i, j) or tree.dof_ancestor(t, j, i) then
        terms[#terms + 1] = string.format("M[%d] * %s[%d]", i * t.nv + j, y, j)
      end
    end
    out[#out + 1] = string.format("%s[%d] = %s;", name, i, table.concat(terms, " + "))
  end
end

local function motion_lines(world, t, out)
  for i = 1, t.nb do
    for _, l in ipairs(motion.lines(world, t, i, "")) do out[#out + 1] = l end
  end
end

-- Each function: its C parameters, the subset body and its interface.
local BODIES = {}

function BODIES.kinematics(world, t, P)
  return {
    params = "const double *q, double *dX",
    body = kin_lines(world, t, P, true),
    inputs = { { name = "q", size = t.nq, active = false } },
    outputs = { { name = "X", size = 12 * t.nb } },
    dense = { dq = "dX" }, zero = { "dX" }, rows = 12 * t.nb,
  }
end

function BODIES.rnea(world, t, P)
  local out = kin_lines(world, t, P)
  mass_lines(t, P, out)
  out[#out + 1] = string.format("double c[%d];", t.nv)
  out[#out + 1] = string.format("%s_bias(qt, v, X, c);", P)
  mat_vec_lines(t, out, "tau", "a", function(i) return "c[" .. i .. "]" end)
  return {
    params = "const double *q, const double *v, const double *a, double *Dq, double *Dv",
    body = out,
    inputs = { { name = "q", size = t.nq, active = false }, { name = "v", size = t.nv },
      { name = "a", size = t.nv, active = false } },
    outputs = { { name = "tau", size = t.nv } },
    dense = { dq = "Dq", v = "Dv" }, zero = { "Dq", "Dv" }, rows = t.nv,
  }
end

function BODIES.mvec(world, t, P)
  local out = kin_lines(world, t, P)
  mass_lines(t, P, out)
  mat_vec_lines(t, out, "tau", "y")
  return {
    params = "const double *q, const double *y, double *D",
    body = out,
    inputs = { { name = "q", size = t.nq, active = false }, { name = "y", size = t.nv, active = false } },
    outputs = { { name = "tau", size = t.nv } },
    dense = { dq = "D" }, zero = { "D" }, rows = t.nv,
  }
end

function BODIES.bvel(world, t, P)
  local out = kin_lines(world, t, P)
  motion_lines(world, t, out)
  for b = 1, t.nb do
    for r = 0, 5 do
      local terms = {}
      for _, k in ipairs(t.chain[b]) do terms[#terms + 1] = string.format("S%d[%d] * y[%d]", k, r, k) end
      out[#out + 1] = string.format("V[%d] = %s;", 6 * (b - 1) + r, #terms > 0 and table.concat(terms, " + ") or "0.0")
    end
  end
  return {
    params = "const double *q, const double *y, double *D",
    body = out,
    inputs = { { name = "q", size = t.nq, active = false }, { name = "y", size = t.nv, active = false } },
    outputs = { { name = "V", size = 6 * t.nb } },
    dense = { dq = "D" }, zero = { "D" }, rows = 6 * t.nb,
  }
end

function BODIES.gforce(world, t, P)
  local out = kin_lines(world, t, P)
  motion_lines(world, t, out)
  local moved = {}
  for k = 0, t.nv - 1 do moved[k] = {} end
  for b = 1, t.nb do
    for _, k in ipairs(t.chain[b]) do moved[k][#moved[k] + 1] = b end
  end
  for k = 0, t.nv - 1 do
    local terms = {}
    for _, b in ipairs(moved[k]) do
      for r = 0, 5 do terms[#terms + 1] = string.format("S%d[%d] * W[%d]", k, r, 6 * (b - 1) + r) end
    end
    out[#out + 1] = string.format("tau[%d] = %s;", k, #terms > 0 and table.concat(terms, " + ") or "0.0")
  end
  return {
    params = "const double *q, const double *W, double *D",
    body = out,
    inputs = { { name = "q", size = t.nq, active = false }, { name = "W", size = 6 * t.nb, active = false } },
    outputs = { { name = "tau", size = t.nv } },
    dense = { dq = "D" }, zero = { "D" }, rows = t.nv,
  }
end

-- the parameter names of a C parameter list
local function param_names(params)
  local names = {}
  for name in params:gmatch("([%a_][%w_]*)%s*,") do names[#names + 1] = name end
  names[#names + 1] = params:match("([%a_][%w_]*)%s*$")
  return names
end

-- cdiff's forward code of spec, its Jacobian entries written into the dense outputs
local function derivative_code(spec, t, preamble)
  local inputs = { spec.inputs[1], { name = "dq", size = t.nv } }
  for k = 2, #spec.inputs do inputs[#inputs + 1] = spec.inputs[k] end
  local r, p = cdiff.analyze({ body = table.concat(spec.body, "\n"), preamble = preamble, inputs = inputs,
    outputs = spec.outputs, lex = lexer() })
  if not r then
    error(string.format("world/tangent: the generated dynamics are outside cdiff's subset: %s (%s %d:%d%s)",
      cdiff.describe(p), p.source or "body", p.line, p.col, p.helper and (" in " .. p.helper) or ""), 0)
  end
  local cols = {}
  for name in pairs(spec.dense) do cols[name] = true end
  local j = r.jacobian({ inputs = cols, outputs = false, jac = "JAC_" })
  local code = j.code:gsub("JAC_%[(%d+)%]", function(k)
    local e = j.pattern[tonumber(k) + 1]
    return string.format("%s[%d]", spec.dense[e.input], e.out_index * t.nv + e.in_index)
  end)
  return code
end

local function emit_one(world, t, P, name, preamble)
  local spec = BODIES[name](world, t, P)
  local out = { string.format("static inline void %s_d_%s(%s)\n{", P, name, spec.params) }
  local function line(s) out[#out + 1] = "  " .. s end
  if t.nv == 0 or t.nb == 0 then
    for _, n in ipairs(param_names(spec.params)) do line("(void)" .. n .. ";") end
  else
    line(string.format("const double dq[%d] = { 0.0 };", t.nv))
    line("int k_;")
    for _, n in ipairs(param_names(spec.params)) do line("(void)" .. n .. ";") end
    line("(void)dq;")
    for _, d in ipairs(spec.zero) do
      line(string.format("for (k_ = 0; k_ < %d; ++k_) %s[k_] = 0.0;", spec.rows * t.nv, d))
    end
    line("{")
    for l in derivative_code(spec, t, preamble):gmatch("[^\n]+") do line("  " .. l) end
    line("}")
  end
  out[#out + 1] = "}\n"
  return table.concat(out, "\n")
end

function M.emit(world, prefix, opts)
  opts = opts or {}
  assert(type(prefix) == "string" and prefix:match("^[%a_][%w_]*$"), "tangent.emit: prefix must be a C identifier")
  local t = tree.facts(world)
  local want = {}
  for _, name in ipairs(opts.functions or M.FUNCTIONS) do
    assert(BODIES[name], "tangent.emit: unknown function " .. tostring(name))
    want[name] = true
  end
  local preamble = dynamics.emit(world, prefix, { functions = { "kinematics", "mass_matrix", "bias" } })
    :gsub("#include[^\n]*\n", "")
  local parts = {}
  for _, name in ipairs(M.FUNCTIONS) do
    if want[name] then parts[#parts + 1] = emit_one(world, t, prefix, name, preamble) end
  end
  return string.format("/* %s: tangent derivatives of the dynamics (cdiff, %d bodies, nv %d) */\n", prefix,
    t.nb, t.nv) .. table.concat(parts, "\n")
end

return M
