-- world/tangent.lua: the smooth-part derivatives of a world's generated
-- dynamics (GRAD_API.md "Smooth derivatives"), in tangent coordinates of
-- the configuration, by cdiff's source transformation of the generated
-- dynamics (generator/diagc/cdiff): each function is the forward-mode
-- Jacobian of a subset C body that builds qt = q (+) dq to first order
-- from an active input dq (taken as zeros), calls the emitted
-- prefix_kinematics (and prefix_bias) and combines the poses with the
-- generated motion columns S_k (world/motion.lua) and spatial helpers
-- (world/spatial.lua) along the tree (world/tree.lua): M y as the sum over
-- bodies of J_i^T I_i J_i y (velocities down the tree, composite forces up;
-- CRBA's M entries, each depending on every dof below, would make the
-- derivative code O(nv^3) instead of O(nv^2)), V_b down the tree, J^T W up.
--
--   local text = tangent.emit(world, prefix[, {functions = {...}}])
--
-- text: C99 static inline functions, to follow dynamics.emit's text of the
-- same world and prefix (they call nothing of it: cdiff inlines it), each
-- writing every entry of its dense row-major outputs:
--   void P_d_kinematics(const double *q, double *dX)     (12 nb) x nv
--   void P_d_rnea(const double *q, const double *v, const double *a, const double *inertial, double *Dq, double *Dv)
--        Dq = d(M a + c)/d dq, Dv = d c/d v             nv x nv each
--   void P_d_mvec(const double *q, const double *y, const double *inertial, double *D)   d(M y)/d dq, nv x nv
--        (inertial: the world's parameters mass, com, inertia, 10 per moving body: world/tree.lua)
--   void P_d_bvel(const double *q, const double *y, double *D)     (6 nb) x nv: d V / d dq,
--        V_b = sum over body b's chain of S_k y_k (world/motion.lua: omega, v_o)
--   void P_d_gforce(const double *q, const double *W, double *D)   nv x nv: d tau / d dq,
--        tau_k = sum over the bodies b dof k moves of S_k . W_b (W_b = n_o, f)
--   void P_d_bjac(const double *X, double *Jb)     (6 nb) x nv: the bodies' spatial
--        Jacobians at the poses X, straight from the motion columns
--   void P_d_bvel_at(const double *X, const double *y, const unsigned char *hit, double *D)
--        d_bvel's blocks of the bodies i with hit[i + 1] only, at the poses X
--   void P_d_rnea_at(X, v, a, inertial, Dq, Dv), P_d_mvec_at(X, y, inertial, D),
--        P_d_gforce_at(X, W, D): d_rnea, d_mvec, d_gforce at the poses X of q
--        (the step's: no kinematics of their own)
--   (these for looped tangents only, in opts.functions: M.LOOPED_ONLY; the
--   unrolled ones form the Jacobians from d_kinematics, world/grad_ops.lua)
-- Tangent coordinates: dq of a revolute/prismatic dof adds to q; a ball
-- joint's rotation vector d turns its quaternion q -> q (x) (1, d/2) (unit
-- q: the first-order increment is tangent to the sphere, so no
-- normalization is needed to first order); a free joint adds its linear
-- part to q[0..2] and turns q[3..6] as a ball.
-- opts.functions: a subset of M.FUNCTIONS (default all), emitted in that order;
-- opts.lex: the C lexer (default the host's, require("diagc_host").lex_c).
-- A world whose tangents are looped (dynamics.mode(world, t, "tangents"))
-- gets world/tangent_looped.lua's functions instead: the same signatures
-- and outputs, hand-derived directional derivatives looped over the dofs
-- (their text self-contained, whatever the dynamics' form).
local cdiff = require("diagc.cdiff")
local dynamics = require("diagc.world.dynamics")
local tree = require("diagc.world.tree")
local motion = require("diagc.world.motion")
local spatial = require("diagc.world.spatial")
local lone = require("diagc.world.lone")

local M = {}

M.FUNCTIONS = { "kinematics", "rnea", "mvec", "bvel", "gforce" }
M.LOOPED_ONLY = { "bjac", "bvel_at", "rnea_at", "mvec_at", "gforce_at", "primal", "rnea_pre", "mvec_pre", "gforce_pre",
  "bvel_pre", "bjac_pre" }
local LOOPED_ONLY = {}
for _, name in ipairs(M.LOOPED_ONLY) do LOOPED_ONLY[name] = true end

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

-- the C lines defining S<k> (world/motion.lua) for every dof
local function motion_lines(world, t, out)
  for i = 1, t.nb do
    for _, l in ipairs(motion.lines(world, t, i, "")) do out[#out + 1] = l end
  end
end

local function moving(t, i) return #t.chain[i] > 0 end

-- U<i> = U<parent> + sum of body i's own S_k y[k] (J_i y: body i's spatial
-- velocity for joint velocity y), for every moving body
local function velocity_lines(world, t, y, out, skip)
  for i = 1, t.nb do
    if moving(t, i) and not (skip and skip(i)) then
      local p = world.bodies[i].joint.parent
      local e = {}
      for r = 0, 5 do
        local terms = {}
        if p > 0 and moving(t, p) then terms[1] = string.format("U%d[%d]", p, r) end
        for k = t.v0[i], t.v0[i] + t.nvi[i] - 1 do terms[#terms + 1] = string.format("S%d[%d] * %s[%d]", k, r, y, k) end
        e[r + 1] = table.concat(terms, " + ")
      end
      out[#out + 1] = string.format("const double U%d[6] = { %s };", i, table.concat(e, ", "))
    end
  end
end

-- F<i> accumulated from the leaves up: F<parent> += F<i>
local function composite_lines(world, t, out)
  for i = t.nb, 1, -1 do
    local p = world.bodies[i].joint.parent
    if moving(t, i) and p > 0 and moving(t, p) then
      for r = 0, 5 do out[#out + 1] = string.format("F%d[%d] += F%d[%d];", p, r, i, r) end
    end
  end
end

-- out[k] = init(k) + S_k . F<body of k> (or, for a lone body's dof, the
-- row of M(qt) times y)
local function project_lines(world, t, out, name, init, y)
  for k = 0, t.nv - 1 do
    local b, terms = t.dof_body[k], { init and init(k) or nil }
    if y and lone.is_lone(world, t, b) then
      for j = t.v0[b], t.v0[b] + t.nvi[b] - 1 do
        terms[#terms + 1] = string.format("M[%d] * %s[%d]", t.mindex(k, j), y, j)
      end
    else
      for r = 0, 5 do terms[#terms + 1] = string.format("S%d[%d] * F%d[%d]", k, r, b, r) end
    end
    out[#out + 1] = string.format("%s[%d] = %s;", name, k, table.concat(terms, " + "))
  end
end

-- tau = M(qt) y (+ init).  A lone free body (world/lone.lua) takes its
-- block of the generated mass matrix (its closed form: constant when its
-- centre of mass is its origin); the other bodies the sum of J_i^T I_i J_i y
-- with the generated spatial helpers (world-frame inertias about the
-- origin), composite forces accumulated up the tree: O(nv) values, so the
-- derivative code is O(nv^2) (CRBA's M entries would make it O(nv^3))
local function mass_times_lines(world, t, P, h, y, out, init)
  local function is_lone(i) return lone.is_lone(world, t, i) end
  local any_lone = false
  for i = 1, t.nb do any_lone = any_lone or is_lone(i) end
  if any_lone then
    out[#out + 1] = string.format("double M[%d] = { 0.0 };", t.nm)
    out[#out + 1] = string.format("%s_mass_matrix(qt, X, inertial, M);", P)
  end
  velocity_lines(world, t, y, out, is_lone)
  local bi, apply = h:use("body_inertia"), h:use("inertia_apply")
  for i, b in ipairs(world.bodies) do
    if moving(t, i) and not is_lone(i) then
      out[#out + 1] = string.format("double I%d[10], F%d[6];", i, i)
      out[#out + 1] = string.format("%s(X + %d, %s, I%d);", bi, 12 * (i - 1), spatial.body_args(b, tree.inertial(t, i)), i)
      out[#out + 1] = string.format("%s(I%d, U%d, F%d);", apply, i, i, i)
    end
  end
  composite_lines(world, t, out)
  project_lines(world, t, out, "tau", init, y)
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

function BODIES.rnea(world, t, P, h)
  local out = kin_lines(world, t, P)
  out[#out + 1] = string.format("double c[%d];", t.nv)
  out[#out + 1] = string.format("%s_bias(qt, v, X, inertial, c);", P)
  motion_lines(world, t, out)
  mass_times_lines(world, t, P, h, "a", out, function(k) return "c[" .. k .. "]" end)
  return {
    params = "const double *q, const double *v, const double *a, const double *inertial, double *Dq, double *Dv",
    body = out,
    inputs = { { name = "q", size = t.nq, active = false }, { name = "v", size = t.nv },
      { name = "a", size = t.nv, active = false }, { name = "inertial", size = tree.INERTIAL * math.max(tree.nmass(t), 1), active = false } },
    outputs = { { name = "tau", size = t.nv } },
    dense = { dq = "Dq", v = "Dv" }, zero = { "Dq", "Dv" }, rows = t.nv,
  }
end

function BODIES.mvec(world, t, P, h)
  local out = kin_lines(world, t, P)
  motion_lines(world, t, out)
  mass_times_lines(world, t, P, h, "y", out)
  return {
    params = "const double *q, const double *y, const double *inertial, double *D",
    body = out,
    inputs = { { name = "q", size = t.nq, active = false }, { name = "y", size = t.nv, active = false },
      { name = "inertial", size = tree.INERTIAL * math.max(tree.nmass(t), 1), active = false } },
    outputs = { { name = "tau", size = t.nv } },
    dense = { dq = "D" }, zero = { "D" }, rows = t.nv,
  }
end

function BODIES.bvel(world, t, P)
  local out = kin_lines(world, t, P)
  motion_lines(world, t, out)
  velocity_lines(world, t, "y", out)
  for b = 1, t.nb do
    for r = 0, 5 do
      -- a body no dof moves has V = 0; a fixed child has its parent's
      out[#out + 1] = string.format("V[%d] = %s;", 6 * (b - 1) + r, moving(t, b) and string.format("U%d[%d]", b, r)
        or "0.0")
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
  -- the forces on each subtree (W is no input of the derivative: no columns)
  for i = 1, t.nb do
    if moving(t, i) then
      local e = {}
      for r = 0, 5 do e[r + 1] = string.format("W[%d]", 6 * (i - 1) + r) end
      out[#out + 1] = string.format("double F%d[6] = { %s };", i, table.concat(e, ", "))
    end
  end
  composite_lines(world, t, out)
  project_lines(world, t, out, "tau")
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
local function derivative_code(spec, t, preamble, lex)
  local inputs = { spec.inputs[1], { name = "dq", size = t.nv } }
  for k = 2, #spec.inputs do inputs[#inputs + 1] = spec.inputs[k] end
  local r, p = cdiff.analyze({ body = table.concat(spec.body, "\n"), preamble = preamble, inputs = inputs,
    outputs = spec.outputs, lex = lex })
  if not r then
    -- world/lower.lua makes it an error at the world's line
    error({ world_tangent = string.format("%s (%s %d:%d%s)", cdiff.describe(p), p.source or "body", p.line, p.col,
      p.helper and (" in " .. p.helper) or "") }, 0)
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

local function emit_one(t, P, name, spec, preamble, lex)
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
    for l in derivative_code(spec, t, preamble, lex):gmatch("[^\n]+") do line("  " .. l) end
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
    assert(BODIES[name] or LOOPED_ONLY[name], "tangent.emit: unknown function " .. tostring(name))
    want[name] = true
  end
  if dynamics.mode(world, t, "tangents") == "looped" then
    -- the looped dynamics: directional derivatives over their tables
    local names = {}
    for _, name in ipairs(M.FUNCTIONS) do
      if want[name] then names[#names + 1] = name end
    end
    for _, name in ipairs(M.LOOPED_ONLY) do
      if want[name] then names[#names + 1] = name end
    end
    return string.format("/* %s: tangent derivatives of the dynamics (looped, %d bodies, nv %d) */\n", prefix,
      t.nb, t.nv) .. require("diagc.world.tangent_looped").emit(world, t, prefix, names)
  end
  for name in pairs(LOOPED_ONLY) do
    assert(not want[name], "tangent.emit: " .. name .. " is a function of the looped tangents only")
  end
  local lex = opts.lex or require("diagc_host").lex_c
  -- the spatial helpers the bodies call besides the dynamics' own (named
  -- apart: cdiff inlines them, the text emitted never calls them)
  local h = spatial.helpers(prefix .. "_tg")
  local specs = {}
  for _, name in ipairs(M.FUNCTIONS) do
    if want[name] then specs[#specs + 1] = { name, BODIES[name](world, t, prefix, h) } end
  end
  local preamble = (dynamics.emit(world, prefix, { functions = { "kinematics", "mass_matrix", "bias" } }) .. "\n" .. h:text())
    :gsub("#include[^\n]*\n", "")
  local parts = {}
  for _, s in ipairs(specs) do parts[#parts + 1] = emit_one(t, prefix, s[1], s[2], preamble, lex) end
  return string.format("/* %s: tangent derivatives of the dynamics (cdiff, %d bodies, nv %d) */\n", prefix,
    t.nb, t.nv) .. table.concat(parts, "\n")
end

return M
