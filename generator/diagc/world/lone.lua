-- world/lone.lua: closed forms for a lone free body (a free joint to the
-- world, no bodies below it: a box, a ball), the usual body of a contact
-- scene.  With u the linear velocity in the joint frame, w the body-frame
-- angular velocity, Q = Ro^T R the joint's rotation, c the centre of mass
-- and Ic the inertia about it (body frame), m the mass:
--   M = [[m 1, -m Q [c]x], [m [c]x^T Q^T, Ic + m [c]x^T [c]x]]
--   c(q, v) = [m Q (w x (w x c)) - m Ro^T g ;
--              w x Ic w + c x (m w x (w x c) - m R^T g)]
-- (the joint's damping: world/rnea.lua's PFX_damping)
-- so a body with c = 0 has a block-diagonal M and few runtime products in
-- it.  m, c and Ic are the world's parameters (`inertial[10 j + k]`,
-- world/tree.lua's M.inertial), except the centre of mass of a body whose
-- spec puts it at the body's origin: that body keeps c = 0 (its closed
-- form has no c terms, and its com is no parameter: M.fixed_com).  Every
-- term is a literal times a product of parameters, so which entries are
-- zero does not depend on their values.  known_zero() lists the entries of
-- M that are zero for every q (not written by the mass matrix, skipped by
-- the factor).
local fold = require("diagc.world.fold")
local kin = require("diagc.world.kinematics")
local tree = require("diagc.world.tree")

local M = {}

function M.is_lone(world, t, i)
  local j = world.bodies[i].joint
  return j.type == "free" and j.parent == 0 and #t.children[i] == 0
end

-- Is body i a lone free body whose spec puts its centre of mass at its
-- origin (its closed form keeps c = 0: the com is no parameter)?
function M.fixed_com(world, t, i)
  local c = world.bodies[i].com or { 0, 0, 0 }
  return M.is_lone(world, t, i) and c[1] == 0 and c[2] == 0 and c[3] == 0
end

-- body i's mass, centre of mass (nil for c = 0: M.fixed_com) and Ic
-- (row-major 3x3) as C expressions
local function params(world, t, i)
  local e = tree.inertial(t, i)
  local Ic = { e[5], e[8], e[9], e[8], e[6], e[10], e[9], e[10], e[7] }
  local c = not M.fixed_com(world, t, i) and { e[2], e[3], e[4] } or nil
  return e[1], c, Ic
end

-- m times a runtime expression (or m alone for "")
local function times(m, e) return e == "" and m or m .. " * " .. e end

-- the product of two of c's components, in a fixed order (so that M's two
-- triangles get the same bits)
local function cc(c, a, b)
  if a > b then a, b = b, a end
  return c[a] .. " * " .. c[b]
end

-- [c]x (l, s) (0-based) as {sign, component} (nil on the diagonal)
local SKEW = { [1] = { -1, 3 }, [2] = { 1, 2 }, [3] = { 1, 3 }, [5] = { -1, 1 }, [6] = { -1, 2 }, [7] = { 1, 1 } }

-- the 36 entries of body i's block: {row, col (0-based dofs), lin}
function M.block(world, t, i)
  local b = world.bodies[i]
  local m, c, Ic = params(world, t, i)
  local Ro = kin.frame(b)
  local v0, out = t.v0[i], {}
  for a = 0, 5 do
    for d = 0, 5 do
      local lin = {}
      if a < 3 and d < 3 then
        lin[1] = { a == d and 1 or 0, m }
      elseif a >= 3 and d >= 3 then
        -- Ic + m [c]x^T [c]x: m (|c|^2 - c_a^2) on the diagonal, -m c_a c_d off it
        local r, s = a - 2, d - 2
        lin[1] = { 1, Ic[3 * (r - 1) + s] }
        if c and r == s then
          for o = 1, 3 do
            if o ~= r then lin[#lin + 1] = { 1, times(m, cc(c, o, o)) } end
          end
        elseif c then
          lin[2] = { -1, times(m, cc(c, r, s)) }
        end
      elseif c then
        local r, s = a < 3 and a or d, a < 3 and d - 3 or a - 3 -- M_la(r, s) = -m (Ro^T R [c]x)(r, s)
        for k = 0, 2 do
          for l = 0, 2 do
            local sk = SKEW[3 * l + s]
            if sk then
              lin[#lin + 1] = { -Ro[3 * k + r + 1] * sk[1], times(m, c[sk[2]] .. " * " .. kin.x(i, 3 * k + l)) }
            end
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
  local function p(a, x) return c[a] .. " * " .. x end
  line("const double k0 = %s, k1 = %s, k2 = %s;", fold.str({ { 1, p(3, w[2]) }, { -1, p(2, w[3]) } }),
    fold.str({ { 1, p(1, w[3]) }, { -1, p(3, w[1]) } }), fold.str({ { 1, p(2, w[1]) }, { -1, p(1, w[2]) } }))
  line("const double e0 = %s * k2 - %s * k1, e1 = %s * k0 - %s * k2, e2 = %s * k1 - %s * k0;", w[2], w[3], w[3],
    w[1], w[1], w[2])
  local cyc = { { 2, 3 }, { 3, 1 }, { 1, 2 } } -- (c x f)_a = c_p f_q - c_q f_p
  local need = {}
  for a = 1, 3 do
    local p, q = cyc[a][1], cyc[a][2]
    for _, x in ipairs({ { 1, c[p], "e" .. (q - 1) }, { -1, c[p], "g" .. (q - 1) },
        { -1, c[q], "e" .. (p - 1) }, { 1, c[q], "g" .. (p - 1) } }) do
      ang[a][#ang[a] + 1] = { x[1], times(m, x[2] .. " * " .. x[3]) }
      need[x[3]] = true
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
    for a = 1, 3 do lin[a][#lin[a] + 1] = { Ro[3 * k + a], times(m, "r" .. k) } end
  end
end

-- the bias lines of body i
function M.bias_lines(world, t, i)
  local b = world.bodies[i]
  local m, c, Ic = params(world, t, i)
  local Ro = kin.frame(b)
  local g = world.gravity or { 0, 0, 0 }
  local v0 = t.v0[i]
  local w = { "v[" .. (v0 + 3) .. "]", "v[" .. (v0 + 4) .. "]", "v[" .. (v0 + 5) .. "]" }
  local out = { string.format("  { /* %s: lone free body (closed form) */", kin.label(i, b)) }
  local function line(fmt, ...) out[#out + 1] = "    " .. string.format(fmt, ...) end
  local lin, ang = {}, {}
  for a = 1, 3 do
    line("const double i%d = %s;", a - 1, fold.str({ { 1, Ic[3 * (a - 1) + 1] .. " * " .. w[1] },
      { 1, Ic[3 * (a - 1) + 2] .. " * " .. w[2] }, { 1, Ic[3 * (a - 1) + 3] .. " * " .. w[3] } }))
    lin[a] = { { -(Ro[a] * g[1] + Ro[3 + a] * g[2] + Ro[6 + a] * g[3]), m } } -- -m (Ro^T g)_a
  end
  -- w x Ic w
  ang[1] = { { 1, w[2] .. " * i2" }, { -1, w[3] .. " * i1" } }
  ang[2] = { { 1, w[3] .. " * i0" }, { -1, w[1] .. " * i2" } }
  ang[3] = { { 1, w[1] .. " * i1" }, { -1, w[2] .. " * i0" } }
  if c then offset_terms(i, m, c, Ro, g, w, line, lin, ang) end
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
