-- world/lone.lua: closed forms for a lone free body (a free joint to the
-- world, no bodies below it: a box, a ball), the usual body of a contact
-- scene.  With u the linear velocity in the joint frame, w the body-frame
-- angular velocity, Q = Ro^T R the joint's rotation, c the centre of mass
-- and Ic the inertia about it (body frame), m the mass:
--   M = [[m 1, -m Q [c]x], [m [c]x^T Q^T, Ic + m [c]x^T [c]x]]
--   c(q, v) = [m Q (w x (w x c)) - m Ro^T g ;
--              w x Ic w + c x (m w x (w x c) - m R^T g)]
-- (the joint's damping: world/rnea.lua's PFX_damping)
-- so a body with c = 0 has a constant, block-diagonal M and no runtime
-- products in it.  known_zero() lists the entries of M that are zero for
-- every q (not written by the mass matrix, skipped by the factor).
local fold = require("diagc.world.fold")
local kin = require("diagc.world.kinematics")

local M = {}

function M.is_lone(world, t, i)
  local j = world.bodies[i].joint
  return j.type == "free" and j.parent == 0 and #t.children[i] == 0
end

local function params(b)
  local c = b.com or { 0, 0, 0 }
  local I = b.inertia
  local Ic = { I[1], I[4] or 0, I[5] or 0, I[4] or 0, I[2], I[6] or 0, I[5] or 0, I[6] or 0, I[3] }
  local cx = fold.skew(c)
  local B = fold.mul33({ cx[1], cx[4], cx[7], cx[2], cx[5], cx[8], cx[3], cx[6], cx[9] }, cx)
  local Io = {}
  for k = 1, 9 do Io[k] = Ic[k] + b.mass * B[k] end
  return b.mass, c, Ic, Io, cx
end

-- the 36 entries of body i's block: {row, col (0-based dofs), lin}
function M.block(world, t, i)
  local b = world.bodies[i]
  local m, _, _, Io, cx = params(b)
  local Ro = kin.frame(b)
  local v0, out = t.v0[i], {}
  for a = 0, 5 do
    for d = 0, 5 do
      local lin = {}
      if a < 3 and d < 3 then
        lin[1] = { a == d and m or 0, "" }
      elseif a >= 3 and d >= 3 then
        lin[1] = { Io[3 * (a - 3) + (d - 3) + 1], "" }
      else
        local r, s = a < 3 and a or d, a < 3 and d - 3 or a - 3 -- M_la(r, s) = -m (Ro^T R [c]x)(r, s)
        for k = 0, 2 do
          for l = 0, 2 do
            lin[#lin + 1] = { -m * Ro[3 * k + r + 1] * cx[3 * l + s + 1], kin.x(i, 3 * k + l) }
          end
        end
      end
      out[#out + 1] = { v0 + a, v0 + d, fold.combine(lin) }
    end
  end
  return out
end

-- M's entries that are zero for every q, as keys row * nv + col
function M.known_zero(world, t)
  local z = {}
  for i = 1, t.nb do
    if M.is_lone(world, t, i) then
      for _, e in ipairs(M.block(world, t, i)) do
        if #e[3] == 0 then z[e[1] * t.nv + e[2]] = true end
      end
    end
  end
  return z
end

-- the mass matrix lines of body i
function M.mass_lines(world, t, i)
  local out = { string.format("  /* %s: lone free body (closed form) */", kin.label(i, world.bodies[i])) }
  for _, e in ipairs(M.block(world, t, i)) do
    if #e[3] > 0 then out[#out + 1] = string.format("  M[%d] = %s;", t.mindex(e[1], e[2]), fold.str(e[3])) end
  end
  return out
end

-- the terms of an offset centre of mass: lines defining k = w x c,
-- e = w x k, the body-frame gravity where needed and r = R e; adds
-- m Q e to lin and c x (m e - m R^T g) to ang
local function offset_terms(i, m, c, Ro, g, w, line, lin, ang)
  line("const double k0 = %s, k1 = %s, k2 = %s;", fold.str({ { c[3], w[2] }, { -c[2], w[3] } }),
    fold.str({ { c[1], w[3] }, { -c[3], w[1] } }), fold.str({ { c[2], w[1] }, { -c[1], w[2] } }))
  line("const double e0 = %s * k2 - %s * k1, e1 = %s * k0 - %s * k2, e2 = %s * k1 - %s * k0;", w[2], w[3], w[3],
    w[1], w[1], w[2])
  local cyc = { { 2, 3 }, { 3, 1 }, { 1, 2 } } -- (c x f)_a = c_p f_q - c_q f_p
  local need = {}
  for a = 1, 3 do
    local p, q = cyc[a][1], cyc[a][2]
    for _, x in ipairs(fold.combine({ { c[p] * m, "e" .. (q - 1) }, { -c[p] * m, "g" .. (q - 1) },
        { -c[q] * m, "e" .. (p - 1) }, { c[q] * m, "g" .. (p - 1) } })) do
      ang[a][#ang[a] + 1] = x
      need[x[2]] = true
    end
  end
  for a = 0, 2 do
    if need["g" .. a] then
      line("const double g%d = %s;", a, fold.str({ { g[1], kin.x(i, a) }, { g[2], kin.x(i, 3 + a) },
        { g[3], kin.x(i, 6 + a) } }))
    end
  end
  for k = 0, 2 do
    line("const double r%d = %s;", k, fold.product(kin.row(i, k), { { { 1, "e0" } }, { { 1, "e1" } }, { { 1, "e2" } } }))
    for a = 1, 3 do lin[a][#lin[a] + 1] = { m * Ro[3 * k + a], "r" .. k } end
  end
end

-- the bias lines of body i
function M.bias_lines(world, t, i)
  local b = world.bodies[i]
  local m, c, Ic = params(b)
  local Ro = kin.frame(b)
  local g = world.gravity or { 0, 0, 0 }
  local v0 = t.v0[i]
  local w = { "v[" .. (v0 + 3) .. "]", "v[" .. (v0 + 4) .. "]", "v[" .. (v0 + 5) .. "]" }
  local out = { string.format("  { /* %s: lone free body (closed form) */", kin.label(i, b)) }
  local function line(fmt, ...) out[#out + 1] = "    " .. string.format(fmt, ...) end
  local lin, ang = {}, {}
  for a = 1, 3 do
    line("const double i%d = %s;", a - 1, fold.str({ { Ic[3 * (a - 1) + 1], w[1] }, { Ic[3 * (a - 1) + 2], w[2] },
      { Ic[3 * (a - 1) + 3], w[3] } }))
    lin[a] = { { -m * (Ro[a] * g[1] + Ro[3 + a] * g[2] + Ro[6 + a] * g[3]), "" } } -- -m (Ro^T g)_a
  end
  -- w x Ic w
  ang[1] = { { 1, w[2] .. " * i2" }, { -1, w[3] .. " * i1" } }
  ang[2] = { { 1, w[3] .. " * i0" }, { -1, w[1] .. " * i2" } }
  ang[3] = { { 1, w[1] .. " * i1" }, { -1, w[2] .. " * i0" } }
  if c[1] ~= 0 or c[2] ~= 0 or c[3] ~= 0 then offset_terms(i, m, c, Ro, g, w, line, lin, ang) end
  for a = 1, 3 do
    line("c[%d] = %s;", v0 + a - 1, fold.str(lin[a]))
  end
  for a = 1, 3 do
    line("c[%d] = %s;", v0 + a + 2, fold.str(ang[a]))
  end
  out[#out + 1] = "  }"
  return out
end

return M
