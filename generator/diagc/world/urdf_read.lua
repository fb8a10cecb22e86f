-- world/urdf_read.lua: a URDF document (the element tree of the host's
-- xml_parse) -> the robot it describes, every number checked at the line
-- of its element:
--   { name=, line=, links = { link... }, joints = { joint... },
--     link = {name -> link}, joint = {name -> joint} }   (document order)
--   link  = { name=, line=, inertial = nil | { line=, mass=, xyz=, rpy=,
--             inertia = {ixx, iyy, izz, ixy, ixz, iyz} },
--             collisions = { { line=, type = "box"|"sphere"|"cylinder"|"capsule",
--             size = {x, y, z} | radius=, length=, xyz=, rpy= } ... } }
--   joint = { name=, line=, type= (the URDF's), parent=, child= (link
--             names), xyz=, rpy=, axis= (nonzero), damping=, limit = nil |
--             { line=, lower=, upper= (nil when neither is given), effort=,
--             velocity= (nil when absent or 0) } }
-- <visual>, <dynamics friction>, <material>, <transmission> and <gazebo>
-- carry nothing a world simulates and are skipped.  Every number
-- is checked against its quantity's range (world/ranges.lua) at its element.
local errors = require("diagc.errors")
local ranges = require("diagc.world.ranges")

local M = {}

local function child(el, tag)
  for _, c in ipairs(el.children) do
    if c.tag == tag then return c end
  end
  return nil
end

local function children(el, tag)
  local out = {}
  for _, c in ipairs(el.children) do
    if c.tag == tag then out[#out + 1] = c end
  end
  return out
end

-- a decimal number as URDF writes them (no hex, inf or nan)
local function decimal(s)
  if not (s:match("^[+-]?%d+%.?%d*$") or s:match("^[+-]?%d*%.%d+$")
      or s:match("^[+-]?%d+%.?%d*[eE][+-]?%d+$") or s:match("^[+-]?%d*%.%d+[eE][+-]?%d+$")) then
    return nil
  end
  local v = tonumber(s)
  if v == nil or v ~= v or v == math.huge or v == -math.huge then return nil end
  return v
end

-- path: { file =, via = the spec location that imports it (or nil) }
local function make_reader(path)
  local R = {}
  function R.raise(el, fmt, ...)
    errors.raise({ file = path.file, line = el.line, via = path.via }, fmt, ...)
  end
  -- attribute `attr` of `el` as n numbers (n = 1: a number); `default`
  -- when absent (nil: required)
  function R.numbers(el, attr, n, default, what)
    local s = el.attrs[attr]
    if s == nil then
      if default ~= nil then return default end
      R.raise(el, "%s: <%s> needs the attribute %s", what, el.tag, attr)
    end
    local out = {}
    for tok in s:gmatch("%S+") do
      local v = decimal(tok)
      if v == nil then
        R.raise(el, "%s: <%s %s=\"%s\">: '%s' is not a number", what, el.tag, attr, errors.sanitize(s, 80),
          errors.sanitize(tok, 40))
      end
      out[#out + 1] = v
    end
    if #out ~= n then
      R.raise(el, "%s: <%s %s=\"%s\"> must hold %d number%s, got %d", what, el.tag, attr,
        errors.sanitize(s, 80), n, n == 1 and "" or "s", #out)
    end
    return n == 1 and out[1] or out
  end
  -- each number of `v` (attribute `attr` of `el`) in the range of `key`
  function R.ranged(el, attr, key, v, what)
    local list = type(v) == "table" and v or { v }
    for _, x in ipairs(list) do
      local why = ranges.why_not(key, x)
      if why then R.raise(el, "%s: <%s %s>: %s (range %s)", what, el.tag, attr, why, ranges.describe(key)) end
    end
    return v
  end
  -- attribute `attr` as n numbers in the range of `key`
  function R.quantity(el, attr, n, default, key, what)
    return R.ranged(el, attr, key, R.numbers(el, attr, n, default, what), what)
  end
  -- <origin xyz= rpy=> of `el` (identity when absent)
  function R.origin(el, what)
    local o = child(el, "origin")
    if o == nil then return { 0, 0, 0 }, { 0, 0, 0 } end
    return R.quantity(o, "xyz", 3, { 0, 0, 0 }, "position", what), R.quantity(o, "rpy", 3, { 0, 0, 0 }, "angle", what)
  end
  function R.name(el, what)
    local n = el.attrs.name
    if n == nil or n == "" then R.raise(el, "a <%s> needs a name attribute", what) end
    return n
  end
  return R
end

local function inertial(R, el, what)
  local xyz, rpy = R.origin(el, what)
  local m = child(el, "mass")
  if m == nil then R.raise(el, "%s: <inertial> needs a <mass value=\"...\"/>", what) end
  local mass = R.numbers(m, "value", 1, nil, what)
  if mass < 0 then R.raise(m, "%s: <mass value> must not be negative, got %.17g", what, mass) end
  if mass ~= 0 then R.ranged(m, "value", "mass", mass, what) end
  local i = child(el, "inertia")
  if i == nil then
    R.raise(el, "%s: <inertial> needs an <inertia ixx= ixy= ixz= iyy= iyz= izz=/>", what)
  end
  local I = {}
  for k, a in ipairs({ "ixx", "iyy", "izz", "ixy", "ixz", "iyz" }) do
    I[k] = R.numbers(i, a, 1, nil, what)
    -- moments: 0 (a massless link's) or in the range; products in theirs
    if k > 3 or I[k] ~= 0 then R.ranged(i, a, k > 3 and "inertia_product" or "inertia", I[k], what) end
  end
  return { line = el.line, mass = mass, xyz = xyz, rpy = rpy, inertia = I }
end

local GEOMETRIES = { "box", "sphere", "cylinder", "capsule", "mesh" }

local function geometry(R, el, what, s)
  local g = child(el, "geometry")
  local shape = g and g.children[1]
  if shape == nil or #g.children ~= 1 then
    R.raise(g or el, "%s: <collision> needs a <geometry> holding one of <box>, <sphere>, <cylinder>", what)
  end
  if shape.tag == "box" then
    s.type, s.size = "box", R.quantity(shape, "size", 3, nil, "size", what)
  elseif shape.tag == "sphere" then
    s.type, s.radius = "sphere", R.quantity(shape, "radius", 1, nil, "size", what)
  elseif shape.tag == "cylinder" or shape.tag == "capsule" then
    s.type, s.radius, s.length = shape.tag, R.quantity(shape, "radius", 1, nil, "size", what),
      R.quantity(shape, "length", 1, nil, "length", what)
  elseif shape.tag == "mesh" then
    R.raise(shape, "%s: mesh collision geometry is not supported; replace the <mesh> by primitives "
      .. "(<box>, <sphere>, <cylinder>)", what)
  else
    R.raise(shape, "%s: unknown collision geometry <%s> (%s)", what, errors.sanitize(shape.tag, 40),
      table.concat(GEOMETRIES, ", "))
  end
end

local function link(R, el)
  local name = R.name(el, "link")
  local what = string.format("link '%s'", errors.sanitize(name, 80))
  local l = { name = name, line = el.line, collisions = {} }
  local inert = children(el, "inertial")
  if #inert > 1 then R.raise(inert[2], "%s has two <inertial> elements", what) end
  if inert[1] then l.inertial = inertial(R, inert[1], what) end
  for _, c in ipairs(children(el, "collision")) do
    local s = { line = c.line }
    s.xyz, s.rpy = R.origin(c, what)
    geometry(R, c, what, s)
    l.collisions[#l.collisions + 1] = s
  end
  return l
end

local function link_ref(R, el, tag, what)
  local c = child(el, tag)
  local n = c and c.attrs.link
  if n == nil or n == "" then R.raise(c or el, "%s needs a <%s link=\"...\"/>", what, tag) end
  return n
end

local function joint(R, el)
  local name = R.name(el, "joint")
  local what = string.format("joint '%s'", errors.sanitize(name, 80))
  local t = el.attrs.type
  if t == nil then R.raise(el, "%s needs a type attribute", what) end
  local j = { name = name, line = el.line, type = t }
  j.parent, j.child = link_ref(R, el, "parent", what), link_ref(R, el, "child", what)
  j.xyz, j.rpy = R.origin(el, what)
  local a = child(el, "axis")
  j.axis = a and R.numbers(a, "xyz", 3, nil, what) or { 1, 0, 0 }
  if j.axis[1] == 0 and j.axis[2] == 0 and j.axis[3] == 0 then
    R.raise(a, "%s: <axis xyz> must be a nonzero direction, got \"0 0 0\"", what)
  end
  local d = child(el, "dynamics")
  j.damping = d and R.quantity(d, "damping", 1, 0, "damping", what) or 0
  local lim = child(el, "limit")
  if lim then
    -- URDF: lower and upper default to 0; a <limit> with neither (a
    -- continuous joint's effort and velocity) bounds no position
    local key = t == "prismatic" and "position" or "angle"
    j.limit = { line = lim.line }
    if lim.attrs.lower ~= nil or lim.attrs.upper ~= nil then
      j.limit.lower = R.quantity(lim, "lower", 1, 0, key, what)
      j.limit.upper = R.quantity(lim, "upper", 1, 0, key, what)
      if j.limit.lower > j.limit.upper then
        R.raise(lim, "%s: <limit lower=\"%s\"> is above upper=\"%s\"; write the smaller bound as lower", what,
          errors.sanitize(lim.attrs.lower, 40), errors.sanitize(lim.attrs.upper, 40))
      end
    end
    -- effort and velocity 0 (or absent): no limit
    local e = R.quantity(lim, "effort", 1, 0, "effort", what)
    local v = R.quantity(lim, "velocity", 1, 0, "speed", what)
    if v < 0 then R.raise(lim, "%s: <limit velocity> must be >= 0 (0: no limit), got %s", what, lim.attrs.velocity) end
    j.limit.effort = e > 0 and e or nil
    j.limit.velocity = v > 0 and v or nil
  end
  local m = child(el, "mimic")
  if m then
    R.raise(m, "%s: <mimic> joints are not supported; remove the <mimic> to make the joint independent", what)
  end
  return j
end

-- The robot of the element tree `root`, read from `path` (for locations:
-- a file name, or { file =, via = the spec location that imports it }).
function M.robot(root, path)
  local R = make_reader(type(path) == "string" and { file = path } or path)
  if root.tag ~= "robot" then
    R.raise(root, "a URDF's root element is <robot>, not <%s>", errors.sanitize(root.tag, 40))
  end
  local robot = { name = root.attrs.name, line = root.line, links = {}, joints = {}, link = {}, joint = {} }
  for _, el in ipairs(root.children) do
    if el.tag == "link" then
      local l = link(R, el)
      if robot.link[l.name] then
        R.raise(el, "link '%s' is declared twice (first at line %d)", errors.sanitize(l.name, 80),
          robot.link[l.name].line)
      end
      robot.links[#robot.links + 1], robot.link[l.name] = l, l
    elseif el.tag == "joint" then
      local j = joint(R, el)
      if robot.joint[j.name] then
        R.raise(el, "joint '%s' is declared twice (first at line %d)", errors.sanitize(j.name, 80),
          robot.joint[j.name].line)
      end
      robot.joints[#robot.joints + 1], robot.joint[j.name] = j, j
    end
  end
  if #robot.links == 0 then R.raise(root, "the URDF declares no <link>") end
  return robot
end

return M
