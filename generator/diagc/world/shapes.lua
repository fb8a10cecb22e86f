-- world/shapes.lua: the bodies' collision shapes and the candidate pairs.
-- Adds to the checked world: C.shapes (every shape, world pose parts,
-- sizes in the runtime's convention) and C.pairs (which shapes may touch,
-- with the pair's friction and restitution).
--   default pairs: shapes of two different bodies, unless the bodies are
--   joined directly (parent and child), both fixed to the world, or listed
--   in `exclude`; the pair's friction is the smaller of the two shapes',
--   its restitution the larger, unless `pairs` gives them.
local errors = require("diagc.errors")
local util = require("diagc.util")
local vals = require("diagc.world.values")
local size = require("diagc.world.size")
local mesh = require("diagc.world.mesh")

local M = {}

M.TYPES = { "sphere", "box", "capsule", "plane", "mesh" }

-- the most contacts a pair of shape types produces (its contact slots); a
-- mesh is its convex hull ("hull" in the checked world)
local MAX = { sphere = { sphere = 1, box = 1, capsule = 1, plane = 1, hull = 1 },
  box = { box = 8, capsule = 2, plane = 8, hull = 8 }, capsule = { capsule = 2, plane = 2, hull = 2 },
  hull = { hull = 8, plane = 8 } }

function M.pair_max(ta, tb)
  return (MAX[ta] and MAX[ta][tb]) or (MAX[tb] and MAX[tb][ta]) or 0
end
local FIELDS = { sphere = { "radius" }, box = { "size" }, capsule = { "radius", "length" }, plane = {},
  mesh = { "file", "scale" } }
local COMMON = { "type", "xyz", "rpy", "friction", "restitution" }

local function only_fields(b, s, t)
  local allowed = {}
  for _, f in ipairs(COMMON) do allowed[#allowed + 1] = f end
  for _, f in ipairs(FIELDS[t]) do allowed[#allowed + 1] = f end
  for _, k in ipairs(util.sorted_keys(s)) do
    local ok = k == 1 or (k == "_hull" and t == "mesh" and mesh.is_hull(s._hull))
    for _, f in ipairs(allowed) do ok = ok or k == f end
    if not ok then
      local best = util.suggest(tostring(k), allowed)
      errors.raise(b.loc, "body '%s': a %s shape has no field '%s'%s", b.name, t, tostring(k),
        best and string.format("; did you mean '%s'?", best) or
          " (fields: " .. table.concat(allowed, ", ") .. ")")
    end
  end
end

-- size as the runtime takes it: sphere {r}; box half extents; capsule {r, half length}
local function size_of(b, s, t)
  local what = string.format("body '%s' %s", b.name, t)
  if t == "sphere" then
    -- radius 0: a point contact (URDF files use them for feet)
    if s.radius == 0 then return { 0, 0, 0 } end
    return { vals.ranged(b.loc, what .. " radius", "size", s.radius), 0, 0 }
  elseif t == "box" then
    local full = vals.ranged_list(b.loc, what .. " size", "size", s.size, 3)
    return { full[1] / 2, full[2] / 2, full[3] / 2 }
  elseif t == "capsule" then
    local r = vals.ranged(b.loc, what .. " radius", "size", s.radius)
    local l = vals.ranged(b.loc, what .. " length", "length", s.length)
    return { r, l / 2, 0 }
  elseif t == "mesh" then
    return { s._hull.radius, 0, 0 }
  end
  return { 0, 0, 0 }
end

local function shape(world, b, s)
  if type(s) ~= "table" then
    errors.raise(b.loc, "body '%s': each shape is a table such as { \"box\", size = {1, 1, 1} }", b.name)
  end
  local t = s[1] == nil and s.type or s[1]
  if FIELDS[t] == nil then
    local best = type(t) == "string" and util.suggest(t, M.TYPES)
    errors.raise(b.loc, "body '%s': unknown shape type %s%s", b.name, errors.describe(t),
      best and string.format("; did you mean '%s'?", best) or " (types: " .. table.concat(M.TYPES, ", ") .. ")")
  end
  only_fields(b, s, t)
  if t == "plane" and not b.welded then
    errors.raise(b.loc, "body '%s': a plane is a fixed half-space; put it on a body fixed to the world", b.name)
  end
  local what = string.format("body '%s' %s", b.name, t)
  if t == "mesh" and not s._hull then
    -- a spec's mesh: its file relative to the spec file
    local scale = s.scale == nil and { 1, 1, 1 } or vals.ranged_list(b.loc, what .. " scale", "scale", s.scale, 3)
    if type(s.file) ~= "string" then
      errors.raise(b.loc, "body '%s': a mesh shape needs file = \"name.stl\" (.stl, .obj or .dae)", b.name)
    end
    s = setmetatable({ _hull = mesh.load(s.file, scale, { base = util.dirname(b.loc.file), loc = b.loc,
      what = string.format("body '%s'", b.name) }) }, { __index = s })
  end
  return { body = b.index, type = t == "mesh" and "hull" or t, size = size_of(b, s, t), loc = b.loc,
    hull = s._hull,
    xyz = s.xyz == nil and { 0, 0, 0 } or vals.ranged_list(b.loc, what .. " xyz", "position", s.xyz, 3),
    rpy = s.rpy == nil and { 0, 0, 0 } or vals.ranged_list(b.loc, what .. " rpy", "angle", s.rpy, 3),
    friction = s.friction == nil and world.friction or vals.ranged(b.loc, what .. " friction", "friction", s.friction),
    restitution = s.restitution == nil and world.restitution
      or vals.ranged(b.loc, what .. " restitution", "restitution", s.restitution),
    -- which of the two are the world's (its parameters world.friction and
    -- world.restitution at run time: world/step.lua)
    default_friction = s.friction == nil, default_restitution = s.restitution == nil }
end

-- {{"a", "b"}, ...} by body names -> set of "i:j" keys (i < j)
local function body_pairs(world, list, what, extra)
  local by_name, out = {}, {}
  for _, b in ipairs(world.bodies) do by_name[b.name] = b.index end
  if list == nil then return out end
  if type(list) ~= "table" then
    errors.raise(world.loc, "%s must be a list of body pairs such as { {\"a\", \"b\"} }", what)
  end
  for i = 1, #list do
    local p = list[i]
    if type(p) ~= "table" or type(p[1]) ~= "string" or type(p[2]) ~= "string" then
      errors.raise(world.loc, "%s[%d] must be a pair of body names such as {\"a\", \"b\"}", what, i - 1)
    end
    for k = 1, 2 do
      if not by_name[p[k]] then
        errors.raise(world.loc, "%s[%d]: '%s' is not a body of this world", what, i - 1, p[k])
      end
    end
    local a, b = by_name[p[1]], by_name[p[2]]
    if a == b then errors.raise(world.loc, "%s[%d] pairs body '%s' with itself", what, i - 1, p[1]) end
    local key = math.min(a, b) .. ":" .. math.max(a, b)
    out[key] = extra and extra(p, i) or true
  end
  return out
end

local function pair_props(world)
  return function(p, i)
    local what = string.format("pairs[%d]", i - 1)
    return {
      -- the entry's position and body names as written: its numbers are
      -- the parameters "A.B.friction", "A.B.restitution" (world/step.lua)
      index = i, names = { p[1], p[2] },
      friction = p.friction ~= nil and vals.ranged(world.loc, what .. " friction", "friction", p.friction) or nil,
      restitution = p.restitution ~= nil and vals.ranged(world.loc, what .. " restitution", "restitution", p.restitution)
        or nil,
    }
  end
end

local function candidate(world, sa, sb, excluded)
  local ba, bb = world.bodies[sa.body], world.bodies[sb.body]
  if sa.body == sb.body then return false end
  if ba.welded and bb.welded then return false end
  if ba.joint.parent == sb.body or bb.joint.parent == sa.body then return false end
  if sa.type == "plane" and sb.type == "plane" then return false end
  return not excluded[math.min(sa.body, sb.body) .. ":" .. math.max(sa.body, sb.body)]
end

function M.check(world, settings)
  world.shapes = {}
  for _, b in ipairs(world.bodies) do
    local list = b.args.shapes
    if list ~= nil and type(list) ~= "table" then
      errors.raise(b.loc, "body '%s': shapes must be a list such as { { \"sphere\", radius = 0.1 } }", b.name)
    end
    b.shapes = {}
    for i = 1, list and #list or 0 do
      local s = shape(world, b, list[i])
      world.shapes[#world.shapes + 1] = s
      b.shapes[#b.shapes + 1] = s
      s.index = #world.shapes
    end
  end
  local excluded = body_pairs(world, settings.exclude, "exclude")
  local props = body_pairs(world, settings.pairs, "pairs", pair_props(world))
  world.pairs = {}
  local slots = 0
  for i = 1, #world.shapes do
    for j = i + 1, #world.shapes do
      local sa, sb = world.shapes[i], world.shapes[j]
      if candidate(world, sa, sb, excluded) then
        slots = slots + M.pair_max(sa.type, sb.type)
        size.add_slots(world, slots, #world.pairs + 1)
        local p = props[math.min(sa.body, sb.body) .. ":" .. math.max(sa.body, sb.body)] or {}
        -- mu_kind, e_kind: how the step finds them (world/step.lua): 0 the
        -- number, 1 the world's parameter, 2 min (max) of the parameter
        -- and the number (one shape has its own), 3 the `pairs` entry's
        -- own parameter (p: mu_entry, e_entry)
        local function kind(own, da, db)
          if own ~= nil then return 3 end
          if not (da or db) then return 0 end
          return (da and db) and 1 or 2
        end
        world.pairs[#world.pairs + 1] = { a = i, b = j,
          friction = p.friction or math.min(sa.friction, sb.friction),
          restitution = p.restitution or math.max(sa.restitution, sb.restitution),
          mu_kind = kind(p.friction, sa.default_friction, sb.default_friction),
          e_kind = kind(p.restitution, sa.default_restitution, sb.default_restitution),
          mu_entry = p.friction ~= nil and p or nil, e_entry = p.restitution ~= nil and p or nil,
          -- the other shape's own value, for kind 2
          mu_own = sa.default_friction and sb.friction or sa.friction,
          e_own = sa.default_restitution and sb.restitution or sa.restitution }
      end
    end
  end
end

return M
