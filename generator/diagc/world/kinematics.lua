-- world/kinematics.lua: emits PFX_kinematics(q, X), the world pose of every
-- body, unrolled in body order: X_child = X_parent * joint origin (xyz, URDF
-- rpy) * joint motion(q).  The origin and the axis are folded into the
-- expressions (a revolute joint's local rotation is P0 + cos q P1 + sin q P2
-- with constant P0, P1, P2), so a joint about a coordinate axis costs a few
-- products.  Also the joint frame's constant facts shared by other emitters.
local fold = require("diagc.world.fold")

local M = {}

local function const_lins(A)
  local L = {}
  for i = 1, #A do L[i] = { { A[i], "" } } end
  return L
end

-- The joint frame of body b: Ro (9, parent <- joint frame), o (3), a (3,
-- made unit if it is not).
function M.frame(b)
  local j = b.joint
  local rpy = j.rpy or { 0, 0, 0 }
  local a = j.axis or { 1, 0, 0 }
  local n = math.sqrt(a[1] * a[1] + a[2] * a[2] + a[3] * a[3])
  if n ~= 1 and n > 0 then a = { a[1] / n, a[2] / n, a[3] / n } end
  return fold.rpy(rpy), j.xyz or { 0, 0, 0 }, a
end

-- Ro * S for a runtime matrix S named by `S` (C array), as 9 lins
local function const_times(Ro, S)
  local L = {}
  for i = 0, 2 do
    for k = 0, 2 do
      local terms = {}
      for j = 0, 2 do terms[#terms + 1] = { Ro[3 * i + j + 1], S .. "[" .. (3 * j + k) .. "]" } end
      L[3 * i + k + 1] = terms
    end
  end
  return L
end

-- the local transform of body b's joint: lines that define its variables,
-- L (9 lins: parent <- child rotation), t (3 lins: child origin in parent)
function M.local_transform(b, q0, h)
  local Ro, o, a = M.frame(b)
  local ty = b.joint.type
  local pre, L, t = {}, nil, const_lins(o)
  if ty == "revolute" then
    pre[1] = string.format("const double c = cos(q[%d]), s = sin(q[%d]);", q0, q0)
    local aa = fold.outer(a, a)
    local P0, P1, P2 = fold.mul33(Ro, aa), fold.mul33(Ro, fold.sub33(fold.I3, aa)), fold.mul33(Ro, fold.skew(a))
    L = {}
    for i = 1, 9 do L[i] = { { P0[i], "" }, { P1[i], "c" }, { P2[i], "s" } } end
  elseif ty == "prismatic" or ty == "fixed" then
    L = const_lins(Ro)
    if ty == "prismatic" then
      local d = fold.mulv(Ro, a)
      for i = 1, 3 do t[i][2] = { d[i], "q[" .. q0 .. "]" } end
    end
  else -- ball, free: the quaternion's rotation
    local qq = ty == "free" and q0 + 3 or q0
    pre[1] = "double Q[9];"
    pre[2] = string.format("%s(q + %d, Q);", h:use("quat_rot"), qq)
    L = const_times(Ro, "Q")
    if ty == "free" then
      for i = 1, 3 do
        for j = 1, 3 do t[i][#t[i] + 1] = { Ro[3 * (i - 1) + j], "q[" .. (q0 + j - 1) .. "]" } end
      end
    end
  end
  return pre, L, t
end

-- the C names of body i's pose entries (0-based k of 12)
function M.x(i, k) return "X[" .. (12 * (i - 1) + k) .. "]" end

-- the runtime row r (0-based) of body i's rotation, as 3 C expressions
function M.row(i, r)
  return { M.x(i, 3 * r), M.x(i, 3 * r + 1), M.x(i, 3 * r + 2) }
end

local function body_lines(world, i, t, h)
  local b = world.bodies[i]
  local p = b.joint.parent
  local pre, L, tr = M.local_transform(b, t.q0[i], h)
  local out = {}
  for _, l in ipairs(pre) do out[#out + 1] = "    " .. l end
  for r = 0, 2 do
    for k = 0, 2 do
      local e
      if p == 0 then e = fold.str(L[3 * r + k + 1])
      else e = fold.product(M.row(p, r), { L[k + 1], L[3 + k + 1], L[6 + k + 1] }) end
      out[#out + 1] = string.format("    %s = %s;", M.x(i, 3 * r + k), e)
    end
  end
  for r = 0, 2 do
    local e
    if p == 0 then e = fold.str(tr[r + 1])
    else
      local rot = fold.product(M.row(p, r), tr)
      e = M.x(p, 9 + r)
      if rot ~= "0.0" then e = e .. (rot:sub(1, 1) == "-" and (" - " .. rot:sub(2)) or (" + " .. rot)) end
    end
    out[#out + 1] = string.format("    %s = %s;", M.x(i, 9 + r), e)
  end
  return out
end

-- a body name safe inside a C comment
function M.label(i, b)
  return string.format("body %d %s", i, (tostring(b.name or ""):gsub("[^%w_%.%-]", "_")))
end

function M.emit(world, t, prefix, h)
  local out = { string.format("static void %s_kinematics(const double *q, double *X)\n{", prefix) }
  if t.nq == 0 then out[#out + 1] = "  (void)q;" end
  if t.nb == 0 then out[#out + 1] = "  (void)X;" end
  for i, b in ipairs(world.bodies) do
    out[#out + 1] = string.format("  { /* %s: %s joint */", M.label(i, b), b.joint.type)
    for _, l in ipairs(body_lines(world, i, t, h)) do out[#out + 1] = l end
    out[#out + 1] = "  }"
  end
  out[#out + 1] = "}\n"
  return table.concat(out, "\n")
end

return M
