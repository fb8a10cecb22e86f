-- world/joints.lua: a body's joint declaration -> its checked joint (type,
-- parent name, placement, axis, damping, actuation, limits (world/limits.lua:
-- limit = { lower, upper, restitution =, effort =, velocity = }), Coulomb
-- friction and a mimic coupling (world/couplings.lua), initial q
-- and v), the
-- body's nq and nv, and the world's q/v layout (initial values, actuated
-- dofs).
local errors = require("diagc.errors")
local util = require("diagc.util")
local vals = require("diagc.world.values")

local M = {}

-- nq, nv per joint type
M.SIZES = { revolute = { 1, 1 }, prismatic = { 1, 1 }, fixed = { 0, 0 }, ball = { 4, 3 }, free = { 7, 6 } }
M.TYPES = { "revolute", "prismatic", "fixed", "ball", "free" }
local FIELDS = { "type", "name", "parent", "xyz", "rpy", "axis", "damping", "actuated", "limit", "friction", "mimic",
  "q", "v" }

local function only_fields(b, j)
  for _, k in ipairs(util.sorted_keys(j)) do
    local ok = k == 1
    for _, f in ipairs(FIELDS) do ok = ok or k == f end
    if not ok then
      local best = util.suggest(tostring(k), FIELDS)
      errors.raise(b.loc, "body '%s': joint has no field '%s'%s", b.name, tostring(k),
        best and string.format("; did you mean '%s'?", best) or
          " (fields: " .. table.concat(FIELDS, ", ") .. ")")
    end
  end
end

-- the quantity (world/ranges.lua) of each coordinate of q; quaternion
-- entries are checked as a unit quaternion instead
local Q_KEYS = { revolute = { "angle" }, prismatic = { "position" }, ball = {},
  free = { "position", "position", "position" } }

local function initial(b, j, t, what, n, default)
  local v = j[what]
  if v == nil then return default end
  if n == 0 then errors.raise(b.loc, "body '%s': a fixed joint has no %s", b.name, what) end
  local out = vals.list(b.loc, string.format("body '%s' joint %s", b.name, what), v, n)
  for i = 1, n do
    local key = what == "v" and "speed" or Q_KEYS[t][i]
    if key then vals.ranged(b.loc, string.format("body '%s' joint %s[%d]", b.name, what, i - 1), key, out[i]) end
  end
  return out
end

function M.check(b, j)
  if type(j) ~= "table" then
    errors.raise(b.loc, "body '%s' needs a joint = { \"free\" | \"revolute\" | \"prismatic\" | \"ball\" "
      .. "| \"fixed\", parent = \"world\" or a body name, ... }", b.name)
  end
  only_fields(b, j)
  local t = j[1] == nil and j.type or j[1]
  if M.SIZES[t] == nil then
    local best = type(t) == "string" and util.suggest(t, M.TYPES)
    errors.raise(b.loc, "body '%s': unknown joint type %s%s", b.name, errors.describe(t),
      best and string.format("; did you mean '%s'?", best) or " (types: " .. table.concat(M.TYPES, ", ") .. ")")
  end
  local parent = j.parent == nil and "world" or j.parent
  if type(parent) ~= "string" then
    errors.raise(b.loc, "body '%s': joint parent must be a body name or \"world\", got %s", b.name,
      errors.describe(parent))
  end
  local what = string.format("body '%s' joint", b.name)
  -- the joint's name (its outputs world.NAME.q, world.NAME.v; --state
  -- world.NAME): the body's unless given
  local name = j.name == nil and b.name or vals.identifier(b.loc, what .. " name", j.name)
  local out = { type = t, parent_name = parent, name = name,
    xyz = j.xyz == nil and { 0, 0, 0 } or vals.ranged_list(b.loc, what .. " xyz", "position", j.xyz, 3),
    rpy = j.rpy == nil and { 0, 0, 0 } or vals.ranged_list(b.loc, what .. " rpy", "angle", j.rpy, 3),
    damping = j.damping == nil and 0 or vals.ranged(b.loc, what .. " damping", "damping", j.damping),
    actuated = j.actuated == true }
  if j.actuated ~= nil and type(j.actuated) ~= "boolean" then
    errors.raise(b.loc, "body '%s': joint actuated must be true or false", b.name)
  end
  if t == "revolute" or t == "prismatic" then
    out.axis = j.axis == nil and { 0, 0, 1 } or vals.unit3(b.loc, what .. " axis", j.axis)
  elseif j.axis ~= nil then
    errors.raise(b.loc, "body '%s': a %s joint has no axis", b.name, t)
  end
  if out.actuated and (t == "fixed") then
    errors.raise(b.loc, "body '%s': a fixed joint cannot be actuated", b.name)
  end
  if j.limit ~= nil then
    if t ~= "revolute" and t ~= "prismatic" then
      errors.raise(b.loc, "body '%s': a %s joint has no limit (only revolute and prismatic joints do)", b.name, t)
    end
    out.limit = require("diagc.world.limits").check(b.loc, what .. " limit", t, j.limit)
  end
  -- Coulomb friction and a mimic coupling (world/couplings.lua)
  local couplings = require("diagc.world.couplings")
  if j.friction ~= nil then out.friction = couplings.check_friction(b.loc, what, t, j.friction) end
  if j.mimic ~= nil then out.mimic = couplings.check_mimic(b.loc, what, t, j.mimic) end
  b.nq, b.nv = M.SIZES[t][1], M.SIZES[t][2]
  local q0 = { ball = { 1, 0, 0, 0 }, free = { 0, 0, 0, 1, 0, 0, 0 } }
  out.q = initial(b, j, t, "q", b.nq, q0[t] or (b.nq == 1 and { 0 } or {}))
  out.v = initial(b, j, t, "v", b.nv, b.nv == 0 and {} or (b.nv == 1 and { 0 } or (b.nv == 3 and { 0, 0, 0 }
    or { 0, 0, 0, 0, 0, 0 })))
  if t == "ball" then vals.unit_quaternion(b.loc, "body '" .. b.name .. "' joint q", out.q) end
  if t == "free" then
    vals.unit_quaternion(b.loc, "body '" .. b.name .. "' joint q[3..6]", { out.q[4], out.q[5], out.q[6], out.q[7] })
  end
  return out
end

-- The world's layout: actuated dofs in tree order, initial q and v.
function M.layout(bodies)
  local act, q, v = {}, {}, {}
  for _, b in ipairs(bodies) do
    for i = 1, b.nv do
      if b.joint.actuated then act[#act + 1] = { body = b.index, dof = b.v0 + i - 1 } end
      v[#v + 1] = b.joint.v[i]
    end
    for i = 1, b.nq do q[#q + 1] = b.joint.q[i] end
  end
  return act, q, v
end

return M
