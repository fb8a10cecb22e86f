-- testing/world_tangent.lua: a world's configuration in tangent
-- coordinates, for the finite-difference reference of its step Jacobians
-- (testing/step_jacobians.lua): perturb a context's pos/vel/effort along
-- one tangent direction, and the tangent difference of two configurations
-- (docs/world.md "Gradients": a ball or free joint's rotation is
-- q (x) exp(d / 2), d in the child frame; everything else adds).
local dyn = require("diagc.world.dynamics")

local M = {}

-- the quaternion product a (x) b (w, x, y, z)
local function qmul(a, b)
  return { a[1] * b[1] - a[2] * b[2] - a[3] * b[3] - a[4] * b[4],
    a[1] * b[2] + a[2] * b[1] + a[3] * b[4] - a[4] * b[3],
    a[1] * b[3] - a[2] * b[4] + a[3] * b[1] + a[4] * b[2],
    a[1] * b[4] + a[2] * b[3] - a[3] * b[2] + a[4] * b[1] }
end

M.qmul = qmul

local function qexp(d)
  local th = math.sqrt(d[1] * d[1] + d[2] * d[2] + d[3] * d[3])
  if th == 0 then return { 1, 0, 0, 0 } end
  local s = math.sin(th / 2) / th
  return { math.cos(th / 2), s * d[1], s * d[2], s * d[3] }
end

-- rotation vector of a unit quaternion (its shortest)
local function qlog(q)
  if q[1] < 0 then q = { -q[1], -q[2], -q[3], -q[4] } end
  local n = math.sqrt(q[2] * q[2] + q[3] * q[3] + q[4] * q[4])
  if n == 0 then return { 0, 0, 0 } end
  local th = 2 * math.atan2(n, q[1])
  return { th * q[2] / n, th * q[3] / n, th * q[4] / n }
end

-- per body: {kind = "scalar" | "rot" | "free", q0, v0, nv}
local function layout(C)
  local f = dyn.facts(C)
  local l = {}
  for i, b in ipairs(C.bodies) do
    local t = b.joint.type
    if f.nvi[i] > 0 then l[#l + 1] = { kind = (t == "ball" and "rot") or (t == "free" and "free") or "scalar",
      q0 = f.q0[i], v0 = f.v0[i], nv = f.nvi[i] } end
  end
  return l
end

-- q (+) e_k eps (k: 0-based tangent index): a new table
function M.add(C, q, k, eps)
  local out = { unpack(q) }
  for _, j in ipairs(layout(C)) do
    if k >= j.v0 and k < j.v0 + j.nv then
      local r = k - j.v0
      if j.kind == "scalar" or (j.kind == "free" and r < 3) then
        out[j.q0 + r + 1] = q[j.q0 + r + 1] + eps
      else
        local o = j.q0 + (j.kind == "free" and 3 or 0)
        local d = { 0, 0, 0 }
        d[r - (j.kind == "free" and 3 or 0) + 1] = eps
        local n = qmul({ q[o + 1], q[o + 2], q[o + 3], q[o + 4] }, qexp(d))
        for i = 1, 4 do out[o + i] = n[i] end
      end
    end
  end
  return out
end

-- (qa (-) qb) / h in tangent coordinates (nv)
function M.difference(C, qa, qb, h)
  local d = {}
  for _, j in ipairs(layout(C)) do
    local lin = j.kind == "scalar" and j.nv or (j.kind == "free" and 3 or 0)
    for r = 0, lin - 1 do d[j.v0 + r + 1] = (qa[j.q0 + r + 1] - qb[j.q0 + r + 1]) / h end
    if j.kind ~= "scalar" then
      local o = j.q0 + (j.kind == "free" and 3 or 0)
      local a = { qa[o + 1], qa[o + 2], qa[o + 3], qa[o + 4] }
      local b = { qb[o + 1], -qb[o + 2], -qb[o + 3], -qb[o + 4] }
      local w = qlog(qmul(b, a))
      for r = 1, 3 do d[j.v0 + lin + r] = w[r] / h end
    end
  end
  return d
end

-- the perturbation of a context's world state along column c (1-based:
-- dq, dv, effort): {apply(c, eps), restore(), effort = bool}
function M.perturber(ctx, leaf)
  local C = leaf.type.world
  local path = leaf.path
  local q0, v0 = ctx:get(path .. ".pos"), ctx:get(path .. ".vel")
  if type(q0) == "number" then q0 = { q0 } end
  if type(v0) == "number" then v0 = { v0 } end
  local eff_name = path .. ".effort"
  local has_effort = #C.actuated > 0 and ctx.model.sources[eff_name] ~= nil
  local u0 = has_effort and ctx:get(eff_name) or nil
  if type(u0) == "number" then u0 = { u0 } end
  local s = { effort = has_effort }
  function s.apply(c, eps)
    local nv = C.nv
    if c <= nv then
      ctx:set(path .. ".pos", M.add(C, q0, c - 1, eps))
    elseif c <= 2 * nv then
      local v = { unpack(v0) }
      v[c - nv] = v[c - nv] + eps
      ctx:set(path .. ".vel", v)
    else
      local u = { unpack(u0) }
      u[c - 2 * nv] = u[c - 2 * nv] + eps
      ctx:set(eff_name, u)
    end
  end
  function s.restore()
    ctx:set(path .. ".pos", q0)
    ctx:set(path .. ".vel", v0)
    if has_effort then ctx:set(eff_name, u0) end
  end
  return s
end

return M
