-- world/urdf_visual.lua: a link's <visual> elements, kept as metadata for
-- the viewer (docs/world.md §5, docs/viewer.md "Worlds in 3D"): never
-- collided, never in the generated C.  A <visual> is read leniently: one
-- that diagc cannot draw (a malformed number, an unknown geometry, a
-- material naming no colour) is left out with a note, never an error, so
-- a URDF that imported before still imports to the same world.
--
--   M.materials(root) -> { name -> {r, g, b, a} }: the robot's top-level
--     <material name=><color rgba=/></material>
--   M.read(el, mats, notes) -> visual or nil
--     visual = { line=, type = "box"|"sphere"|"cylinder"|"capsule"|"mesh",
--       size = {x, y, z} (full extents, as URDF) | radius=, length= |
--       filename=, mesh_line= (the <mesh>'s), scale = {3}, xyz=, rpy= (in
--       the link frame), rgba = nil | {r, g, b, a} }
--     notes: a list; each visual left out adds { line=, what= }
local M = {}

local function child(el, tag)
  for _, c in ipairs(el.children) do
    if c.tag == tag then return c end
  end
  return nil
end

-- n finite decimals of attribute `attr` (default when absent); nil, why
local function numbers(el, attr, n, default)
  local s = el.attrs[attr]
  if s == nil then
    if default then return default end
    return nil, string.format("<%s> has no %s", el.tag, attr)
  end
  local out = {}
  for tok in s:gmatch("%S+") do
    local v = tok:match("^[+-]?[%d.][%deE.+-]*$") and tonumber(tok)
    if not v or v ~= v or v == math.huge or v == -math.huge or math.abs(v) > 1e9 then
      return nil, string.format("<%s %s> holds '%s', not a number", el.tag, attr, tok:sub(1, 40))
    end
    out[#out + 1] = v
  end
  if #out ~= n then return nil, string.format("<%s %s> needs %d numbers, got %d", el.tag, attr, n, #out) end
  return out
end

local function rgba(el)
  local c = el and child(el, "color")
  if not c then return nil end
  local v, why = numbers(c, "rgba", 4)
  if not v then return nil, why end
  for i = 1, 4 do v[i] = math.max(0, math.min(1, v[i])) end
  return v
end

function M.materials(root)
  local out = {}
  for _, el in ipairs(root.children) do
    if el.tag == "material" and el.attrs.name and rgba(el) then out[el.attrs.name] = rgba(el) end
  end
  return out
end

local function geometry(el, v)
  local g = child(el, "geometry")
  local s = g and g.children[1]
  if s == nil then return "it has no <geometry>" end
  local why
  if s.tag == "box" then
    v.size, why = numbers(s, "size", 3)
    if v.size then
      for i = 1, 3 do if v.size[i] <= 0 then return "<box size> must be positive" end end
    end
  elseif s.tag == "sphere" then
    local r
    r, why = numbers(s, "radius", 1)
    v.radius = r and r[1]
  elseif s.tag == "cylinder" or s.tag == "capsule" then
    local r, l
    r, why = numbers(s, "radius", 1)
    if r then l, why = numbers(s, "length", 1) end
    v.radius, v.length = r and r[1], l and l[1]
  elseif s.tag == "mesh" then
    v.filename, v.mesh_line = s.attrs.filename, s.line
    if v.filename == nil or v.filename == "" then return "<mesh> has no filename" end
    v.scale, why = numbers(s, "scale", 3, { 1, 1, 1 })
  else
    return string.format("<%s> is not a geometry diagc draws (box, sphere, cylinder, capsule, mesh)", s.tag:sub(1, 40))
  end
  if why then return why end
  if (v.radius and v.radius <= 0) or (v.length and v.length < 0) then return "a radius must be positive" end
  v.type = s.tag
  return nil
end

function M.read(el, mats, notes, what)
  local v = { line = el.line }
  local function drop(why)
    notes[#notes + 1] = { line = el.line, what = string.format("%s: <visual> left out: %s", what, why) }
    return nil
  end
  local o = child(el, "origin")
  local why
  v.xyz, v.rpy = { 0, 0, 0 }, { 0, 0, 0 }
  if o then
    v.xyz, why = numbers(o, "xyz", 3, { 0, 0, 0 })
    if not v.xyz then return drop(why) end
    v.rpy, why = numbers(o, "rpy", 3, { 0, 0, 0 })
    if not v.rpy then return drop(why) end
  end
  why = geometry(el, v)
  if why then return drop(why) end
  -- the colour: inline <color rgba>, else the named top-level material's;
  -- a material without a colour (a texture only) leaves the mesh's own
  local m = child(el, "material")
  if m then
    v.rgba, why = rgba(m)
    if why then return drop(why) end
    if not v.rgba and m.attrs.name then v.rgba = mats[m.attrs.name] end
  end
  return v
end

return M
