-- world/urdf.lua: urdf { "file.urdf", ... } in a world -> the body
-- declarations the file stands for: frozen items {_item = "body", loc =
-- {file = the URDF, line = its <link>'s line}, args = {name, mass=, com=,
-- inertia=, joint=, shapes=}}, parents before children, so world/check.lua
-- checks them as it checks bodies written in the spec and its errors point
-- into the URDF.
--
--   urdf { "arm.urdf",            -- relative to the spec file that declares it
--          base = "fixed" | "free",  -- the root link's joint to the world
--          xyz = {3}, rpy = {3},     -- where that joint places the root link
--          actuated = "all" | {joint names} | nil,
--          friction =, restitution =,  -- of every collision shape
--          prefix = "left_" }         -- prepended to every body name
--
-- Conversion (docs/world.md, "URDF import"): a link is a body whose joint
-- is the URDF joint that has it as child (revolute and continuous ->
-- revolute, prismatic, fixed, floating -> free; planar is refused); the
-- <inertial> origin is the centre of mass, its rpy rotates the inertia into
-- the link frame (R I R^T); collision box, sphere -> box, sphere, cylinder
-- (and capsule) -> capsule of the same radius and segment length, mesh ->
-- an error; joint <dynamics damping> -> damping; <limit lower upper> of a
-- revolute or prismatic joint -> its position limits, <limit effort
-- velocity> of any movable joint -> its effort and velocity limits
-- (world/limits.lua; a continuous joint has no position limits).  A root
-- link named "world" is the fixed frame itself (its joints attach to the
-- world, placed at xyz/rpy).  A link without mass on a fixed joint (a tool
-- or sensor frame) is merged into the body it is fixed to: its shapes and
-- child joints move there, re-expressed in that body's frame; any other
-- massless link that moves is an error at its <link>.
local errors = require("diagc.errors")
local util = require("diagc.util")
local load = require("diagc.spec.load")
local vals = require("diagc.world.values")
local read = require("diagc.world.urdf_read")
local frames = require("diagc.world.urdf_frames")

local M = {}

local FIELDS = { "base", "xyz", "rpy", "actuated", "friction", "restitution", "prefix" }
local JOINT_TYPES = { revolute = "revolute", continuous = "revolute", prismatic = "prismatic",
  fixed = "fixed", floating = "free" }
local MOVABLE = { revolute = true, continuous = true, prismatic = true }

-- The urdf item's fields, checked at the item's line.
local function options(item)
  local a, loc = item.args, item.loc
  for _, k in ipairs(util.sorted_keys(a)) do
    local ok = k == 1
    for _, f in ipairs(FIELDS) do ok = ok or k == f end
    if not ok then
      local best = util.suggest(tostring(k), FIELDS)
      errors.raise(loc, "urdf has no field '%s'%s", tostring(k),
        best and string.format("; did you mean '%s'?", best) or " (fields: " .. table.concat(FIELDS, ", ") .. ")")
    end
  end
  if type(a[1]) ~= "string" or a[1] == "" then
    errors.raise(loc, "urdf needs a file name first, as in urdf { \"robot.urdf\" }")
  end
  local o = { file = a[1], base = a.base == nil and "fixed" or a.base, prefix = a.prefix or "" }
  if o.base ~= "fixed" and o.base ~= "free" then
    errors.raise(loc, "urdf base must be \"fixed\" (the default) or \"free\", got %s", errors.describe(o.base))
  end
  if type(o.prefix) ~= "string" then
    errors.raise(loc, "urdf prefix must be a string, got %s", errors.describe(o.prefix))
  end
  o.xyz = a.xyz == nil and { 0, 0, 0 } or vals.ranged_list(loc, "urdf xyz", "position", a.xyz, 3)
  o.rpy = a.rpy == nil and { 0, 0, 0 } or vals.ranged_list(loc, "urdf rpy", "angle", a.rpy, 3)
  o.friction = a.friction ~= nil and vals.ranged(loc, "urdf friction", "friction", a.friction) or nil
  o.restitution = a.restitution ~= nil and vals.ranged(loc, "urdf restitution", "restitution", a.restitution) or nil
  o.actuated = a.actuated
  return o
end

-- A location in the URDF: its file and line (and column), and where the
-- spec imports it (errors.format prints both).
local function loc(path, line, col)
  return { file = path.file, line = line, col = col, via = path.via }
end

-- The URDF parsed, and its path: { file = (relative to the declaring spec
-- file), via = the urdf item's location }.
local function document(item, o)
  local file = o.file:sub(1, 1) == "/" and o.file or util.dirname(item.loc.file) .. "/" .. o.file
  local path = { file = load.normalize(file), via = { file = item.loc.file, line = item.loc.line } }
  local ok, host = pcall(require, "diagc_host")
  if not ok or not host.xml_parse or not host.read_source then
    errors.raise(item.loc, "urdf import needs bin/diagc's XML parser (libexpat), which this host lacks")
  end
  local text, why = host.read_source(path.file, load.MAX_FILE_BYTES)
  if not text then errors.raise(item.loc, "cannot read URDF file '%s': %s", path.file, why or "cannot read it") end
  local root, _, line, col, reason = host.xml_parse(text, path.file)
  if not root then
    errors.raise(loc(path, line, col), "malformed XML: %s", reason)
  end
  return read.robot(root, path), path
end

-- Each link's parent joint; the root link; raises on joints naming absent
-- links, a link with two parents, two roots and loops.
local function tree(robot, path)
  local function at(x) return loc(path, x.line) end
  local parent_joint, kids = {}, {}
  for _, j in ipairs(robot.joints) do
    for _, end_ in ipairs({ "parent", "child" }) do
      if not robot.link[j[end_]] then
        local names = {}
        for _, l in ipairs(robot.links) do names[#names + 1] = l.name end
        local best = util.suggest(j[end_], names)
        errors.raise(at(j), "joint '%s': its %s link '%s' is not a link of this URDF%s", j.name, end_, j[end_],
          best and string.format("; did you mean '%s'?", best) or "")
      end
    end
    local prev = parent_joint[j.child]
    if prev then
      errors.raise(at(j), "link '%s' has two parents: joint '%s' (line %d) and joint '%s'; a URDF is a tree",
        j.child, prev.name, prev.line, j.name)
    end
    parent_joint[j.child] = j
    kids[j.parent] = kids[j.parent] or {}
    kids[j.parent][#kids[j.parent] + 1] = j
  end
  local root
  for _, l in ipairs(robot.links) do
    if not parent_joint[l.name] then
      if root then
        errors.raise(at(l), "the URDF has two root links, '%s' (line %d) and '%s'; join every link but one "
          .. "to a parent", root.name, root.line, l.name)
      end
      root = l
    end
  end
  if not root then
    errors.raise(loc(path, robot.line), "the URDF's joints form a loop: every link has a parent")
  end
  -- parents before children, in document order; a link not reached sits on a loop
  -- (depth first with a stack of its own: a chain of links may be long)
  local order, reached, stack = {}, {}, { root }
  while #stack > 0 do
    local l = stack[#stack]
    stack[#stack] = nil
    reached[l.name] = true
    order[#order + 1] = l
    local ks = kids[l.name] or {}
    for i = #ks, 1, -1 do stack[#stack + 1] = robot.link[ks[i].child] end
  end
  for _, l in ipairs(robot.links) do
    if not reached[l.name] then
      errors.raise(at(l), "link '%s' is on a loop of joints (it is not connected to the root link '%s')",
        l.name, root.name)
    end
  end
  return order, parent_joint, root
end

-- The set of actuated joint names from the `actuated` field.
local function actuated_set(item, o, robot)
  local set = {}
  if o.actuated == nil then return set end
  if o.actuated == "all" then
    for _, j in ipairs(robot.joints) do set[j.name] = MOVABLE[j.type] or nil end
    return set
  end
  if type(o.actuated) ~= "table" or (#o.actuated == 0 and next(o.actuated) ~= nil) then
    errors.raise(item.loc, "urdf actuated must be \"all\" or a list of joint names, got %s",
      errors.describe(o.actuated))
  end
  local names = {}
  for _, j in ipairs(robot.joints) do names[#names + 1] = j.name end
  for i = 1, #o.actuated do
    local n = o.actuated[i]
    local j = type(n) == "string" and robot.joint[n]
    if not j then
      local best = type(n) == "string" and util.suggest(n, names)
      errors.raise(item.loc, "urdf actuated[%d]: %s is not a joint of '%s'%s", i - 1, errors.describe(n), o.file,
        best and string.format("; did you mean '%s'?", best) or "")
    end
    if j.type == "fixed" then
      errors.raise(item.loc, "urdf actuated[%d]: joint '%s' is fixed and cannot be actuated", i - 1, n)
    end
    set[n] = true
  end
  return set
end

-- the link's collisions as shape declarations, in a frame where the link
-- frame sits at (xyz, rpy)
local function shapes_of(l, o, xyz, rpy)
  local out = {}
  for _, c in ipairs(l.collisions) do
    local sx, sr = frames.compose(xyz, rpy, c.xyz, c.rpy)
    local s = { c.type == "cylinder" and "capsule" or c.type, xyz = sx, rpy = sr,
      friction = o.friction, restitution = o.restitution }
    if c.type == "box" then
      s.size = c.size
    elseif c.type == "sphere" then
      s.radius = c.radius
    else
      s.radius, s.length = c.radius, c.length
    end
    out[#out + 1] = s
  end
  return out
end

local function massless(l) return l.inertial == nil or l.inertial.mass == 0 end

-- How the link moves, for the error about a missing mass; nil if welded.
local function motion(j, o, moving_parent)
  if j == nil then return o.base == "free" and "its base is \"free\"" or nil end
  if j.type ~= "fixed" then return string.format("joint '%s' is %s", j.name, j.type) end
  return moving_parent and string.format("joint '%s' fixes it to link '%s', which moves", j.name, j.parent) or nil
end

local function mass_props(l, path, how)
  if massless(l) then
    if how then
      errors.raise(loc(path, l.line), "link '%s' moves (%s) but has no mass: give it an "
        .. "<inertial> with a positive <mass> and its <inertia>", l.name, how)
    end
    return nil, nil, nil
  end
  local inert = l.inertial
  return inert.mass, inert.xyz, frames.rotate_inertia(frames.rpy_matrix(inert.rpy), inert.inertia)
end

local function body_name(l, o, path)
  local name = o.prefix .. l.name
  if name == "world" then
    errors.raise(loc(path, l.line), "link 'world' has a parent joint; the name 'world' is "
      .. "reserved for the fixed frame (a root link); rename the link")
  end
  if not name:match("^[A-Za-z][A-Za-z0-9_]*$") or name:find("__", 1, true) then
    errors.raise(loc(path, l.line), "link '%s' cannot name a body%s: a body name is letters, "
      .. "digits and single _ starting with a letter; rename the link", name,
      o.prefix ~= "" and " (with the prefix)" or "")
  end
  return name
end

-- The joint declaration of URDF joint j, whose parent link's frame sits at
-- pf = {body=, xyz=, rpy=} in body pf.body.
local function joint_of(j, pf, path, act)
  local t = JOINT_TYPES[j.type]
  if t == nil then
    local why = j.type == "planar" and "planar joints are not supported" or
      string.format("unknown joint type '%s'", errors.sanitize(j.type, 40))
    errors.raise(loc(path, j.line), "joint '%s': %s (types: revolute, continuous, prismatic, "
      .. "fixed, floating)", j.name, why)
  end
  local xyz, rpy = frames.compose(pf.xyz, pf.rpy, j.xyz, j.rpy)
  local out = { t, parent = pf.body, xyz = xyz, rpy = rpy, damping = j.damping, actuated = act[j.name] or nil }
  if t == "revolute" or t == "prismatic" then out.axis = j.axis end
  local l = j.limit
  if l and (t == "revolute" or t == "prismatic") then
    local lim = { effort = l.effort, velocity = l.velocity }
    if l.lower and j.type ~= "continuous" then lim[1], lim[2] = l.lower, l.upper end
    if lim[1] or lim.effort or lim.velocity then out.limit = lim end
  end
  return out
end

local function check_world_root(item, o, root, path)
  if o.base == "free" then
    errors.raise(item.loc, "the root link of '%s' is 'world', the fixed frame; base = \"free\" does not apply",
      o.file)
  end
  if #root.collisions > 0 then
    errors.raise(loc(path, root.line), "link 'world' is the fixed frame and cannot have "
      .. "<collision> shapes; put them on a link fixed to it")
  end
end

function M.bodies(item)
  local o = options(item)
  local robot, path = document(item, o)
  local order, parent_joint, root = tree(robot, path)
  local act = actuated_set(item, o, robot)
  -- frame[link] = where the link frame sits: in body `body` ("world": the
  -- fixed frame) at xyz, rpy; moving[link]: it moves
  local frame, moving, out, by_body = {}, {}, {}, {}
  local ZERO = { 0, 0, 0 }
  for _, l in ipairs(order) do
    local j = parent_joint[l.name]
    local pf = j and frame[j.parent]
    if l == root and l.name == "world" then
      check_world_root(item, o, root, path)
      frame[l.name] = { body = "world", xyz = o.xyz, rpy = o.rpy }
    elseif j and j.type == "fixed" and massless(l) and pf.body ~= "world" then
      -- merged into the body it is fixed to: its shapes and child joints move there
      local xyz, rpy = frames.compose(pf.xyz, pf.rpy, j.xyz, j.rpy)
      frame[l.name], moving[l.name] = { body = pf.body, xyz = xyz, rpy = rpy }, moving[j.parent]
      local shapes = by_body[pf.body].args.shapes
      for _, s in ipairs(shapes_of(l, o, xyz, rpy)) do shapes[#shapes + 1] = s end
    else
      local name = body_name(l, o, path)
      local joint = j and joint_of(j, pf, path, act) or { o.base, parent = "world", xyz = o.xyz, rpy = o.rpy }
      local how = motion(j, o, j and moving[j.parent])
      local mass, com, inertia = mass_props(l, path, how)
      local it = { _item = "body", loc = loc(path, l.line),
        args = { name, mass = mass, com = com, inertia = inertia, joint = joint,
          shapes = shapes_of(l, o, ZERO, ZERO) } }
      out[#out + 1], by_body[name] = it, it
      frame[l.name], moving[l.name] = { body = name, xyz = ZERO, rpy = ZERO }, how ~= nil
    end
  end
  return out
end

return M
