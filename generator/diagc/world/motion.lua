-- world/motion.lua: the motion subspace of each dof in world coordinates
-- (about the world origin), read from the body poses X: the C lines that
-- define `const double S<k>[6]` (angular, linear) for dof k, with the joint
-- axis and origin rotation folded in.
--   revolute: (R a, p x R a)        prismatic: (0, R a)
--   ball / free angular dof e: (R e, p x R e)   (child-frame angular velocity)
--   free linear dof e: (0, R_parent Ro e)     (joint-frame linear velocity)
-- where R, p are the body's world pose and Ro the joint origin's rotation.
local fold = require("diagc.world.fold")
local kin = require("diagc.world.kinematics")

local M = {}

-- R_i * a for a constant vector a: 3 C expressions
local function rot_const(i, a)
  local w = {}
  for r = 0, 2 do
    w[r + 1] = fold.str({ { a[1], kin.x(i, 3 * r) }, { a[2], kin.x(i, 3 * r + 1) }, { a[3], kin.x(i, 3 * r + 2) } })
  end
  return w
end

local function paren(e) return e:find("[ %-]") and ("(" .. e .. ")") or e end

-- p_i x w, w given as C expressions
local function moment(i, w)
  local p = { kin.x(i, 9), kin.x(i, 10), kin.x(i, 11) }
  local function one(a, b)
    local l, r = w[b], w[a]
    local s = {}
    if l ~= "0.0" then s[#s + 1] = p[a] .. " * " .. paren(l) end
    if r ~= "0.0" then s[#s + 1] = (#s > 0 and " - " or "-") .. p[b] .. " * " .. paren(r) end
    return #s > 0 and table.concat(s) or "0.0"
  end
  return { one(2, 3), one(3, 1), one(1, 2) }
end

local ZERO = { "0.0", "0.0", "0.0" }

-- the columns (angular, linear: 3 + 3 C expressions) of body i's dofs
function M.columns(world, t, i)
  local b = world.bodies[i]
  local ty, p = b.joint.type, b.joint.parent
  local Ro, _, a = kin.frame(b)
  local cols = {}
  if ty == "revolute" then
    local w = rot_const(i, a)
    cols[1] = { w, moment(i, w) }
  elseif ty == "prismatic" then
    cols[1] = { ZERO, rot_const(i, a) }
  elseif ty == "ball" or ty == "free" then
    if ty == "free" then
      for e = 0, 2 do
        local col = { Ro[e + 1], Ro[3 + e + 1], Ro[6 + e + 1] }
        local v = {}
        for r = 1, 3 do
          if p == 0 then v[r] = fold.num(col[r])
          else v[r] = fold.product(kin.row(p, r - 1), { { { col[1], "" } }, { { col[2], "" } }, { { col[3], "" } } }) end
        end
        cols[#cols + 1] = { ZERO, v }
      end
    end
    for e = 0, 2 do
      local w = { kin.x(i, e), kin.x(i, 3 + e), kin.x(i, 6 + e) }
      cols[#cols + 1] = { w, moment(i, w) }
    end
  end
  return cols
end

-- the C lines defining S<k> for body i's dofs (indent: a string)
function M.lines(world, t, i, indent)
  local out = {}
  for n, col in ipairs(M.columns(world, t, i)) do
    local k = t.v0[i] + n - 1
    out[#out + 1] = string.format("%sconst double S%d[6] = { %s, %s, %s,\n%s  %s, %s, %s };", indent, k,
      col[1][1], col[1][2], col[1][3], indent, col[2][1], col[2][2], col[2][3])
  end
  return out
end

-- the C lines defining S<k> for every dof of the chain of body i
function M.chain_lines(world, t, i, indent)
  local out, seen = {}, {}
  for _, k in ipairs(t.chain[i]) do
    local bk = t.dof_body[k]
    if not seen[bk] then
      seen[bk] = true
      for _, l in ipairs(M.lines(world, t, bk, indent)) do out[#out + 1] = l end
    end
  end
  return out
end

return M
