-- world/rnea.lua: emits PFX_bias(q, v, X, inertial, c), c(q, v) = C(q, v) v + g(q)
-- by the recursive Newton-Euler algorithm with vdot = 0, unrolled, in world
-- coordinates: body velocities V_i = V_parent + S_i v_i, accelerations
-- A_i = A_parent + (velocity-product terms), starting from -gravity at the
-- world; body forces I A + V x* (I V) summed from the leaves up; c_k =
-- S_k . F_body(k) + damping v_k.  Bodies welded to the world are skipped;
-- lone free bodies get their closed form (world/lone.lua).
local spatial = require("diagc.world.spatial")
local tree = require("diagc.world.tree")
local motion = require("diagc.world.motion")
local fold = require("diagc.world.fold")
local crba = require("diagc.world.crba")
local lone = require("diagc.world.lone")

local M = {}

-- the joint's spatial velocity S v over dofs first..last: 6 C expressions
local function joint_velocity(first, last)
  local e = {}
  for r = 0, 5 do
    local terms = {}
    for k = first, last do terms[#terms + 1] = string.format("S%d[%d] * v[%d]", k, r, k) end
    e[r + 1] = table.concat(terms, " + ")
  end
  return e
end

local function set6(out, name, e)
  out[#out + 1] = string.format("  const double %s[6] = { %s };", name, table.concat(e, ", "))
end

-- a free joint: V = V_p + S_l v_l + S_a v_a, A = A_p + V_p x (S_l v_l) + V x (S_a v_a)
local function free_kinematic(c, i)
  local out, V, A = c.out, "V" .. i, "A" .. i
  set6(out, "vl" .. i, joint_velocity(c.v0, c.v0 + 2))
  set6(out, "va" .. i, joint_velocity(c.v0 + 3, c.v0 + 5))
  local e = {}
  for r = 0, 5 do
    e[r + 1] = string.format("vl%d[%d] + va%d[%d]", i, r, i, r)
    if not c.static then e[r + 1] = string.format("%s[%d] + ", c.vp, r) .. e[r + 1] end
  end
  set6(out, V, e)
  out[#out + 1] = string.format("  double %s[6];", A)
  out[#out + 1] = string.format("  %s(%s, va%d, %s);", c.cross(), V, i, A)
  if not c.static then
    out[#out + 1] = string.format("  double w%d[6];", i)
    out[#out + 1] = string.format("  %s(%s, vl%d, w%d);", c.cross(), c.vp, i, i)
  end
  for r = 0, 5 do
    local extra = c.static and "" or string.format(" + w%d[%d]", i, r)
    out[#out + 1] = string.format("  %s[%d] += %s[%d]%s;", A, r, c.ap, r, extra)
  end
  return V, A
end

-- other joints: V = V_p + S v, A = A_p + V x (S v) (= A_p when V_p = 0)
local function joint_kinematic(c, i)
  local out = c.out
  local vj = joint_velocity(c.v0, c.v0 + c.nvi - 1)
  if c.static then
    set6(out, "V" .. i, vj)
    return "V" .. i, c.ap
  end
  local V, A = "V" .. i, "A" .. i
  set6(out, "vj" .. i, vj)
  local e = {}
  for r = 0, 5 do e[r + 1] = string.format("%s[%d] + vj%d[%d]", c.vp, r, i, r) end
  set6(out, V, e)
  out[#out + 1] = string.format("  double %s[6];", A)
  out[#out + 1] = string.format("  %s(%s, vj%d, %s);", c.cross(), V, i, A)
  for r = 0, 5 do out[#out + 1] = string.format("  %s[%d] += %s[%d];", A, r, c.ap, r) end
  return V, A
end

-- V and A of a body with dofs
local function kinematic(world, t, h, i, out, names)
  local b = world.bodies[i]
  local p = b.joint.parent
  local static = p == 0 or not crba.moving(t, p)
  local c = { out = out, v0 = t.v0[i], nvi = t.nvi[i], static = static, vp = names.V[p],
    ap = static and "A0" or names.A[p], cross = function() return h:use("cross_m") end }
  if b.joint.type == "free" then
    names.V[i], names.A[i] = free_kinematic(c, i)
  else
    names.V[i], names.A[i] = joint_kinematic(c, i)
  end
end

local function forward(world, t, h, out, names)
  for i, b in ipairs(world.bodies) do
    if crba.generic(world, t, i) then
      for _, l in ipairs(motion.lines(world, t, i, "  ")) do out[#out + 1] = l end
      if t.nvi[i] > 0 then
        kinematic(world, t, h, i, out, names)
      else
        local p = b.joint.parent
        names.V[i], names.A[i] = names.V[p], names.A[p]
      end
      out[#out + 1] = string.format("  double I%d[10], F%d[6];", i, i)
      out[#out + 1] = string.format("  %s(X + %d, %s, I%d);", h:use("body_inertia"), 12 * (i - 1),
        spatial.body_args(b, tree.inertial(t, i)), i)
      out[#out + 1] = string.format("  %s(I%d, %s, %s, F%d);", h:use("body_force"), i, names.V[i], names.A[i], i)
    end
  end
end

local function backward(world, t, h, out)
  for i = t.nb, 1, -1 do
    local p = world.bodies[i].joint.parent
    if crba.generic(world, t, i) and p > 0 and crba.moving(t, p) then
      for r = 0, 5 do out[#out + 1] = string.format("  F%d[%d] += F%d[%d];", p, r, i, r) end
    end
  end
  local dot = h:use("dot6")
  for k = 0, t.nv - 1 do
    local i = t.dof_body[k]
    if crba.generic(world, t, i) then
    out[#out + 1] = string.format("  c[%d] = %s(S%d, F%d);", k, dot, k, i)
    end
  end
end

function M.emit(world, t, prefix, h)
  local out = { string.format(
    "static void %s_bias(const double *q, const double *v, const double *X, const double *inertial, double *c)\n{", prefix) }
  out[#out + 1] = "  (void)q;\n  (void)inertial;"
  if t.nv == 0 then
    out[#out + 1] = "  (void)v;\n  (void)X;\n  (void)c;\n}\n"
    return table.concat(out, "\n")
  end
  local g = world.gravity or { 0, 0, 0 }
  local generic = false
  for i = 1, t.nb do generic = generic or crba.generic(world, t, i) end
  if generic then
    out[#out + 1] = string.format("  const double A0[6] = { 0.0, 0.0, 0.0, %s, %s, %s };", fold.num(-g[1]),
      fold.num(-g[2]), fold.num(-g[3]))
    local names = { V = {}, A = { [0] = "A0" } }
    forward(world, t, h, out, names)
    backward(world, t, h, out)
  else
    out[#out + 1] = "  (void)X;"
  end
  for i = 1, t.nb do
    if lone.is_lone(world, t, i) then
      for _, l in ipairs(lone.bias_lines(world, t, i)) do out[#out + 1] = l end
    end
  end
  out[#out + 1] = "}\n"
  return table.concat(out, "\n")
end

-- the moving joints' index (0-based, in body order) of each body, or nil
function M.joint_index(t)
  local j, out = 0, {}
  for i = 1, t.nb do
    if t.nqi[i] > 0 then out[i], j = j, j + 1 end
  end
  return out, j
end

-- PFX_damping(d, v, c): c_k += d_j v_k for each dof k of moving joint j
function M.emit_damping(world, t, prefix)
  local out = { string.format("static void %s_damping(const double *d, const double *v, double *c)\n{", prefix) }
  if t.nv == 0 then
    out[#out + 1] = "  (void)d;\n  (void)v;\n  (void)c;\n}\n"
    return table.concat(out, "\n")
  end
  local ji = M.joint_index(t)
  for k = 0, t.nv - 1 do
    out[#out + 1] = string.format("  c[%d] += d[%d] * v[%d];", k, ji[t.dof_body[k]], k)
  end
  out[#out + 1] = "}\n"
  return table.concat(out, "\n")
end

return M
