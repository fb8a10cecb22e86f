-- world/urdf_read.lua: a URDF document (the element tree of the host's
-- xml_parse) -> the robot it describes, every number checked at the line
-- of its element:
--   { name=, line=, links = { link... }, joints = { joint... },
--     link = {name -> link}, joint = {name -> joint} }   (document order)
--     visual_notes = { { line=, what= } ... } (the <visual>s left out),
--     skipped = { tag -> count } (elements read past: visual, material,
--       transmission, gazebo and any element URDF does not define),
--     unsupported = { { line=, what= } ... } (reported together by
--       world/urdf.lua, in one message),
--     filter_groups = { { name=, line=, members = { {line=, link=} ... },
--       ignored = { {line=, name=} ... } } ... } (Drake's
--       <drake:collision_filter_group>), filter_group = {name -> group} }
--   link  = { name=, line=, inertial = nil | { line=, mass=, xyz=, rpy=,
--             inertia = {ixx, iyy, izz, ixy, ixz, iyz} },
--             collisions = { { line=, type = "box"|"sphere"|"cylinder"|"capsule"|"mesh",
--             size = {x, y, z} | radius=, length= | filename=, scale=, mesh_line=,
--             xyz=, rpy= } ... },
--             visuals = { world/urdf_visual.lua's visual ... } (for the viewer) }
--             (a <sphere radius="0"> is a point: radius 0)
--   joint = { name=, line=, type= (the URDF's), parent=, child= (link
--             names), xyz=, rpy=, axis= (nonzero), damping=, friction=
--             (<dynamics friction>, Coulomb: 0 when absent),
--             mimic = nil | { line=, joint=, multiplier=, offset= },
--             limit = nil | { line=, lower=, upper= (nil when neither is
--             given), effort=, velocity= (nil when absent or 0) } }
-- <visual>, <safety_controller>, <calibration>,
-- <material>, <transmission> and <gazebo> carry nothing a world simulates
-- and are skipped.  opts.collisions == false: <collision> elements are
-- counted as skipped, not read.  Every number is checked against its
-- quantity's range (world/ranges.lua) at its element.
local errors = require("diagc.errors")
local ranges = require("diagc.world.ranges")
local visual = require("diagc.world.urdf_visual")

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
  local R = { skipped = {}, unsupported_list = {} }
  function R.raise(el, fmt, ...)
    errors.raise({ file = path.file, line = el.line, via = path.via }, fmt, ...)
  end
  -- something the file holds that a world cannot simulate: collected, and
  -- reported with every other such element in one message
  function R.unsupported(el, fmt, ...)
    R.unsupported_list[#R.unsupported_list + 1] = { line = el.line, what = string.format(fmt, ...) }
  end
  function R.skip(tag)
    R.skipped[tag] = (R.skipped[tag] or 0) + 1
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
    R.raise(g or el, "%s: <collision> needs a <geometry> holding one of <box>, <sphere>, <cylinder>, <mesh>", what)
  end
  if shape.tag == "box" then
    s.type, s.size = "box", R.quantity(shape, "size", 3, nil, "size", what)
  elseif shape.tag == "sphere" then
    -- radius 0: a point contact (real files, e.g. Atlas's feet, use them)
    local r = R.numbers(shape, "radius", 1, nil, what)
    s.type, s.radius = "sphere", r == 0 and 0 or R.ranged(shape, "radius", "size", r, what)
  elseif shape.tag == "cylinder" or shape.tag == "capsule" then
    s.type, s.radius, s.length = shape.tag, R.quantity(shape, "radius", 1, nil, "size", what),
      R.quantity(shape, "length", 1, nil, "length", what)
  elseif shape.tag == "mesh" then
    -- read and hulled by world/mesh.lua (world/urdf.lua calls it)
    local f = shape.attrs.filename
    if f == nil or f == "" then R.raise(shape, "%s: <mesh> needs a filename attribute", what) end
    s.type, s.filename, s.mesh_line = "mesh", f, shape.line
    s.scale = R.quantity(shape, "scale", 3, { 1, 1, 1 }, "scale", what)
  else
    R.unsupported(shape, "%s: unknown collision geometry <%s> (%s)", what, errors.sanitize(shape.tag, 40),
      table.concat(GEOMETRIES, ", "))
    s.type = nil
  end
end

local LINK_CHILDREN = { inertial = true, collision = true }
local filter_group -- below

local function link(R, el, opts)
  local name = R.name(el, "link")
  local what = string.format("link '%s'", errors.sanitize(name, 80))
  local l = { name = name, line = el.line, collisions = {}, visuals = {} }
  local inert = children(el, "inertial")
  if #inert > 1 then R.raise(inert[2], "%s has two <inertial> elements", what) end
  if inert[1] then l.inertial = inertial(R, inert[1], what) end
  for _, c in ipairs(el.children) do
    if not LINK_CHILDREN[c.tag] then R.skip(c.tag) end
    -- simulated or not, a <visual> is kept for the viewer (world/urdf_visual.lua)
    if c.tag == "visual" then l.visuals[#l.visuals + 1] = visual.read(c, opts.materials, opts.visual_notes, what) end
  end
  for _, c in ipairs(children(el, "collision")) do
    if opts.collisions == false then
      R.skip("collision")
    else
      local s = { line = c.line }
      s.xyz, s.rpy = R.origin(c, what)
      geometry(R, c, what, s)
      if s.type then l.collisions[#l.collisions + 1] = s end
    end
  end
  return l
end

local JOINT_TYPES = { revolute = true, continuous = true, prismatic = true, fixed = true, floating = true,
  planar = true }

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
  if not JOINT_TYPES[t] then
    R.unsupported(el, "%s: unknown joint type '%s' (types: revolute, continuous, prismatic, fixed, floating, "
      .. "planar)", what, errors.sanitize(t, 40))
  end
  j.parent, j.child = link_ref(R, el, "parent", what), link_ref(R, el, "child", what)
  j.xyz, j.rpy = R.origin(el, what)
  local a = child(el, "axis")
  j.axis = a and R.numbers(a, "xyz", 3, nil, what) or { 1, 0, 0 }
  if j.axis[1] == 0 and j.axis[2] == 0 and j.axis[3] == 0 then
    R.raise(a, "%s: <axis xyz> must be a nonzero direction, got \"0 0 0\"", what)
  end
  local d = child(el, "dynamics")
  j.damping = d and R.quantity(d, "damping", 1, 0, "damping", what) or 0
  j.friction = d and R.quantity(d, "friction", 1, 0, "joint_friction", what) or 0
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
    local of = m.attrs.joint
    if of == nil or of == "" then R.raise(m, "%s: <mimic> needs a joint attribute", what) end
    j.mimic = { line = m.line, joint = of, multiplier = R.quantity(m, "multiplier", 1, 1, "ratio", what),
      offset = R.quantity(m, "offset", 1, 0, "position", what) }
  end
  return j
end

-- The robot of the element tree `root`, read from `path` (for locations:
-- a file name, or { file =, via = the spec location that imports it }).
-- Drake's <drake:collision_filter_group name=> (its <drake:member link=>
-- and <drake:ignored_collision_filter_group name=>): the pairs of its
-- members and an ignored group's never collide (world/urdf_pairs.lua)
filter_group = function(R, el, robot)
  local name = el.attrs.name
  if name == nil or name == "" then R.raise(el, "a <drake:collision_filter_group> needs a name attribute") end
  if robot.filter_group[name] then
    R.raise(el, "<drake:collision_filter_group name=\"%s\"> is declared twice (first at line %d)",
      errors.sanitize(name, 80), robot.filter_group[name].line)
  end
  local g = { name = name, line = el.line, members = {}, ignored = {} }
  for _, c in ipairs(el.children) do
    local key = c.tag == "drake:member" and "link" or c.tag == "drake:ignored_collision_filter_group" and "name"
    if key then
      local v = c.attrs[key]
      if v == nil or v == "" then R.raise(c, "<%s> needs a %s attribute", c.tag, key) end
      local list = key == "link" and g.members or g.ignored
      list[#list + 1] = { line = c.line, link = key == "link" and v or nil, name = key == "name" and v or nil }
    else
      R.skip(c.tag)
    end
  end
  robot.filter_groups[#robot.filter_groups + 1], robot.filter_group[name] = g, g
end

-- opts: { collisions = false: skip every <collision> }
function M.robot(root, path, opts)
  opts = { collisions = opts and opts.collisions, materials = visual.materials(root), visual_notes = {} }
  local R = make_reader(type(path) == "string" and { file = path } or path)
  if root.tag ~= "robot" then
    R.raise(root, "a URDF's root element is <robot>, not <%s>", errors.sanitize(root.tag, 40))
  end
  local robot = { name = root.attrs.name, line = root.line, links = {}, joints = {}, link = {}, joint = {},
    skipped = R.skipped, unsupported = R.unsupported_list, filter_groups = {}, filter_group = {},
    visual_notes = opts.visual_notes }
  for _, el in ipairs(root.children) do
    if el.tag == "link" then
      local l = link(R, el, opts)
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
    elseif el.tag == "drake:collision_filter_group" then
      filter_group(R, el, robot)
    else
      R.skip(el.tag)
    end
  end
  for _, g in ipairs(robot.filter_groups) do
    for _, m in ipairs(g.members) do
      if not robot.link[m.link] then
        R.raise(m, "<drake:collision_filter_group name=\"%s\">: member '%s' is not a link of this URDF",
          errors.sanitize(g.name, 80), errors.sanitize(m.link, 80))
      end
    end
    for _, i in ipairs(g.ignored) do
      if not robot.filter_group[i.name] then
        R.raise(i, "<drake:collision_filter_group name=\"%s\">: it ignores group '%s', which this URDF does not "
          .. "declare", errors.sanitize(g.name, 80), errors.sanitize(i.name, 80))
      end
    end
  end
  if #robot.links == 0 then R.raise(root, "the URDF declares no <link>") end
  return robot
end

return M
