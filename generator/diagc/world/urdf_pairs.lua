-- world/urdf_pairs.lua: the self-collision pairs an imported robot leaves
-- out, as robot files expect (docs/world.md, "URDF import"): after
-- world/shapes.lua has made the candidate pairs, removes from C.pairs the
-- pairs of two bodies of one robot that are
--   "adjacent"  links joined by a joint of the file (parent and child, also
--               across a fixed joint whose child kept a body of its own),
--   "srdf"      listed by <disable_collisions link1= link2=> of the `srdf`
--               file of the urdf item,
--   "filter group"  a member of a Drake <drake:collision_filter_group> and
--               a member of a group it ignores (itself included),
--   "overlap"   overlapping at the initial pose (C.q_init): their shapes
--               intersect before anything has moved (modelling slack of
--               the file, never a contact to resolve),
-- and records each excluded body pair once, in the order found:
--   C.excluded = { { a = body name, b = body name, reason =, robot = file } ... }
local errors = require("diagc.errors")
local load = require("diagc.spec.load")
local util = require("diagc.util")
local fold = require("diagc.world.fold")

local M = {}

-- 3x3 row-major (9 numbers) helpers
local function mul(A, B)
  local C = {}
  for i = 0, 2 do
    for j = 0, 2 do
      C[3 * i + j + 1] = A[3 * i + 1] * B[j + 1] + A[3 * i + 2] * B[3 + j + 1] + A[3 * i + 3] * B[6 + j + 1]
    end
  end
  return C
end
local function apply(A, v)
  return { A[1] * v[1] + A[2] * v[2] + A[3] * v[3], A[4] * v[1] + A[5] * v[2] + A[6] * v[3],
    A[7] * v[1] + A[8] * v[2] + A[9] * v[3] }
end
local function add(a, b) return { a[1] + b[1], a[2] + b[2], a[3] + b[3] } end
local function sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end
local function scale(a, s) return { a[1] * s, a[2] * s, a[3] * s } end

local function axis_angle(a, th)
  local n = math.sqrt(dot(a, a))
  local x, y, z = a[1] / n, a[2] / n, a[3] / n
  local c, s = math.cos(th), math.sin(th)
  local t = 1 - c
  return { t * x * x + c, t * x * y - s * z, t * x * z + s * y,
    t * x * y + s * z, t * y * y + c, t * y * z - s * x,
    t * x * z - s * y, t * y * z + s * x, t * z * z + c }
end
local function quat(w, x, y, z)
  local n = math.sqrt(w * w + x * x + y * y + z * z)
  w, x, y, z = w / n, x / n, y / n, z / n
  return { 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y) }
end

-- every body's world pose {R, p} at the initial q (world/kinematics.lua's
-- convention: X_child = X_parent * origin(xyz, rpy) * motion(q))
local function poses(C)
  local X = {}
  for i, b in ipairs(C.bodies) do
    local j = b.joint
    local P = j.parent == 0 and { R = { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, p = { 0, 0, 0 } } or X[j.parent]
    local R = mul(P.R, fold.rpy(j.rpy))
    local p = add(P.p, apply(P.R, j.xyz))
    local q = {}
    for k = 1, b.nq do q[k] = C.q_init[b.q0 + k] end
    if j.type == "revolute" then
      R = mul(R, axis_angle(j.axis, q[1]))
    elseif j.type == "prismatic" then
      p = add(p, apply(R, scale(j.axis, q[1])))
    elseif j.type == "ball" then
      R = mul(R, quat(q[1], q[2], q[3], q[4]))
    elseif j.type == "free" then
      p = add(p, apply(R, { q[1], q[2], q[3] }))
      R = mul(R, quat(q[4], q[5], q[6], q[7]))
    end
    X[i] = { R = R, p = p }
  end
  return X
end

-- a shape in the world: { kind = "round" (a segment a..b swept by radius r)
-- | "box" (centre c, axes u[3] (columns of R), half extents h) }
local function placed(s, X)
  local B = X[s.body]
  local R = mul(B.R, fold.rpy(s.xyz and s.rpy or { 0, 0, 0 }))
  local c = add(B.p, apply(B.R, s.xyz))
  if s.type == "box" then
    return { kind = "box", c = c, u = { { R[1], R[4], R[7] }, { R[2], R[5], R[8] }, { R[3], R[6], R[9] } },
      h = s.size }
  end
  local half = s.type == "capsule" and s.size[2] or 0
  local ax = { R[3] * half, R[6] * half, R[9] * half }
  return { kind = "round", a = sub(c, ax), b = add(c, ax), r = s.size[1] }
end

-- closest distance between segments p0p1 and q0q1
local function seg_seg(p0, p1, q0, q1)
  local d1, d2, r = sub(p1, p0), sub(q1, q0), sub(p0, q0)
  local a, e, f = dot(d1, d1), dot(d2, d2), dot(d2, r)
  local s, t
  if a <= 1e-300 and e <= 1e-300 then
    s, t = 0, 0
  elseif a <= 1e-300 then
    s, t = 0, math.max(0, math.min(1, f / e))
  else
    local c = dot(d1, r)
    if e <= 1e-300 then
      t, s = 0, math.max(0, math.min(1, -c / a))
    else
      local b = dot(d1, d2)
      local den = a * e - b * b
      s = den > 0 and math.max(0, math.min(1, (b * f - c * e) / den)) or 0
      t = (b * s + f) / e
      if t < 0 then t, s = 0, math.max(0, math.min(1, -c / a))
      elseif t > 1 then t, s = 1, math.max(0, math.min(1, (b - c) / a)) end
    end
  end
  local w = sub(add(p0, scale(d1, s)), add(q0, scale(d2, t)))
  return math.sqrt(dot(w, w))
end

-- distance from point x to box bx (0 inside)
local function point_box(x, bx)
  local d, s = sub(x, bx.c), 0
  for k = 1, 3 do
    local v = math.abs(dot(d, bx.u[k])) - bx.h[k]
    if v > 0 then s = s + v * v end
  end
  return math.sqrt(s)
end

-- distance from segment a..b to a box: the point-box distance is convex
-- along the segment, so a golden-section search finds its minimum
local function seg_box(a, b, bx)
  local lo, hi = 0, 1
  local function f(t) return point_box(add(a, scale(sub(b, a), t)), bx) end
  local g = (math.sqrt(5) - 1) / 2
  for _ = 1, 80 do
    local m1, m2 = hi - g * (hi - lo), lo + g * (hi - lo)
    if f(m1) <= f(m2) then hi = m2 else lo = m1 end
  end
  return math.min(f((lo + hi) / 2), f(0), f(1))
end

-- boxes overlap unless one of the 15 axes of the separating-axis test
-- separates them
local function box_box(A, B)
  local axes = {}
  for k = 1, 3 do axes[#axes + 1] = A.u[k]; axes[#axes + 1] = B.u[k] end
  for i = 1, 3 do
    for j = 1, 3 do
      local a, b = A.u[i], B.u[j]
      local c = { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] }
      if dot(c, c) > 1e-18 then axes[#axes + 1] = c end
    end
  end
  local d = sub(B.c, A.c)
  for _, n in ipairs(axes) do
    local ra, rb = 0, 0
    for k = 1, 3 do
      ra = ra + A.h[k] * math.abs(dot(A.u[k], n))
      rb = rb + B.h[k] * math.abs(dot(B.u[k], n))
    end
    if math.abs(dot(d, n)) > ra + rb then return false end
  end
  return true
end

local function overlap(a, b)
  if a.kind == "round" and b.kind == "round" then return seg_seg(a.a, a.b, b.a, b.b) < a.r + b.r end
  if a.kind == "box" and b.kind == "box" then return box_box(a, b) end
  if a.kind == "box" then a, b = b, a end
  return seg_box(a.a, a.b, b) < a.r
end

-- <disable_collisions link1= link2=> of the robot's SRDF, as link pairs
local function srdf_pairs(robot)
  local spec = robot.loc.file
  local file = robot.srdf:sub(1, 1) == "/" and robot.srdf or util.dirname(spec) .. "/" .. robot.srdf
  file = load.normalize(file)
  local host = require("diagc_host")
  local text, why = host.read_source(file, load.MAX_FILE_BYTES)
  if not text then errors.raise(robot.loc, "cannot read SRDF file '%s': %s", file, why or "cannot read it") end
  local root, _, line, col, reason = host.xml_parse(text, file)
  local via = { file = robot.loc.file, line = robot.loc.line }
  if not root then errors.raise({ file = file, line = line, col = col, via = via }, "malformed XML: %s", reason) end
  if root.tag ~= "robot" then
    errors.raise({ file = file, line = root.line, via = via }, "an SRDF's root element is <robot>, not <%s>",
      errors.sanitize(root.tag, 40))
  end
  local out = {}
  for _, el in ipairs(root.children) do
    if el.tag == "disable_collisions" then
      local l1, l2 = el.attrs.link1, el.attrs.link2
      for _, l in ipairs({ l1 or "", l2 or "" }) do
        if robot.link_body[l] == nil then
          local names = {}
          for _, x in ipairs(robot.links) do names[#names + 1] = x.name end
          local best = util.suggest(l, names)
          errors.raise({ file = file, line = el.line, via = via }, "<disable_collisions>: '%s' is not a link of "
            .. "'%s'%s", errors.sanitize(l, 80), robot.name, best and string.format("; did you mean '%s'?", best) or "")
        end
      end
      out[#out + 1] = { l1, l2 }
    end
  end
  return out
end

function M.apply(C)
  C.excluded = {}
  if #C.robots == 0 then return end
  local index = {}
  for i, b in ipairs(C.bodies) do index[b.name] = i end
  local why, owner = {}, {}
  local function exclude(robot, ba, bb, reason)
    local a, b = index[ba], index[bb]
    if a == nil or b == nil or a == b then return end -- the world frame, or one body
    local key = math.min(a, b) .. ":" .. math.max(a, b)
    if why[key] then return end
    why[key] = reason
    C.excluded[#C.excluded + 1] = { a = C.bodies[math.min(a, b)].name, b = C.bodies[math.max(a, b)].name,
      reason = reason, robot = robot.file }
  end
  for r, robot in ipairs(C.robots) do
    for _, body in pairs(robot.link_body) do owner[body] = r end
    for _, p in ipairs(robot.adjacent) do
      exclude(robot, robot.link_body[p[1]], robot.link_body[p[2]], "adjacent")
    end
    for _, g in ipairs(robot.filter_groups) do
      for _, ig in ipairs(g.ignored) do
        for _, a in ipairs(g.members) do
          for _, b in ipairs(robot.filter_group[ig.name].members) do
            exclude(robot, robot.link_body[a.link], robot.link_body[b.link], "filter group")
          end
        end
      end
    end
    if robot.srdf then
      for _, p in ipairs(srdf_pairs(robot)) do
        exclude(robot, robot.link_body[p[1]], robot.link_body[p[2]], "srdf")
      end
    end
  end
  local X = poses(C)
  local function robot_pair(p)
    local sa, sb = C.shapes[p.a], C.shapes[p.b]
    local na, nb = C.bodies[sa.body].name, C.bodies[sb.body].name
    local r = owner[na]
    return r and r == owner[nb] and r, sa, sb, na, nb
  end
  for _, p in ipairs(C.pairs) do
    local r, sa, sb, na, nb = robot_pair(p)
    local key = math.min(sa.body, sb.body) .. ":" .. math.max(sa.body, sb.body)
    if r and not why[key] and overlap(placed(sa, X), placed(sb, X)) then
      exclude(C.robots[r], na, nb, "overlap")
    end
  end
  local kept = {}
  for _, p in ipairs(C.pairs) do
    local r, sa, sb = robot_pair(p)
    if not (r and why[math.min(sa.body, sb.body) .. ":" .. math.max(sa.body, sb.body)]) then kept[#kept + 1] = p end
  end
  C.pairs = kept
end

return M
