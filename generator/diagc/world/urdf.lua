-- world/urdf.lua: urdf { "file.urdf", ... } in a world -> the body
-- declarations the file stands for: frozen items {_item = "body", loc =
-- {file = the URDF, line = its <link>'s line}, args = {name, mass=, com=,
-- inertia=, joint=, shapes=}}, parents before children, so world/check.lua
-- checks them as it checks bodies written in the spec and its errors point
-- into the URDF; and the robot's facts for world/urdf_pairs.lua and
-- `diagc info` (M.bodies' second result).
--
--   urdf { "arm.urdf",            -- relative to the spec file that declares it
--          base = "fixed" | "free",  -- the root link's joint to the world
--          xyz = {3}, rpy = {3},     -- where that joint places the root link
--          actuated = "all" | {joint names} | nil,
--          friction =, restitution =,  -- of every collision shape
--          prefix = "left_",         -- prepended to every body name
--          q = { joint_name = value | {values} },  -- the initial pose
--          srdf = "arm.srdf",        -- its <disable_collisions> pairs
--          collisions = true | false,  -- false: the dynamics only
--          package_path = "DIR:DIR" } -- folders holding packages (package://)
--
-- Conversion (docs/world.md, "URDF import"): a link is a body whose joint
-- is the URDF joint that has it as child (revolute and continuous ->
-- revolute, prismatic, fixed, floating -> free, planar -> two prismatic
-- joints and a revolute through two massless bodies LINK_planar_x and
-- LINK_planar_y); the <inertial> origin is the centre of mass, its rpy
-- rotates the inertia into the link frame (R I R^T); collision box,
-- sphere (radius 0: a point) -> box, sphere; cylinder -> the capsule
-- inscribed in it with the same extent along its axis; mesh -> its convex
-- hull (world/mesh.lua: package:// through package_path, --package-path,
-- ROS_PACKAGE_PATH; other names relative to the URDF);
-- joint <dynamics damping> -> damping; <limit lower upper> of a revolute
-- or prismatic joint -> its position limits, <limit effort velocity> of
-- any movable joint -> its effort and velocity limits (world/limits.lua; a
-- continuous joint has no position limits); <dynamics friction> -> its
-- Coulomb friction, <mimic> -> its coupling to the leader's body
-- (world/couplings.lua).  A root link named "world" is the
-- fixed frame itself (its joints attach to the world, placed at xyz/rpy).
-- A link without mass on a fixed joint (a tool or sensor frame) is merged
-- into the body it is fixed to: its shapes and child joints move there,
-- re-expressed in that body's frame; so is a massless root link on a free
-- base into the one link it is fixed to (the pattern of A1, Go1, ANYmal);
-- any other massless link that moves is an error at its <link>.
local errors = require("diagc.errors")
local util = require("diagc.util")
local load = require("diagc.spec.load")
local vals = require("diagc.world.values")
local read = require("diagc.world.urdf_read")
local frames = require("diagc.world.urdf_frames")
local mesh = require("diagc.world.mesh")

local M = {}

local FIELDS = { "base", "xyz", "rpy", "actuated", "friction", "restitution", "prefix", "q", "srdf",
  "collisions", "package_path" }
local JOINT_TYPES = { revolute = "revolute", continuous = "revolute", prismatic = "prismatic",
  fixed = "fixed", floating = "free" }
local MOVABLE = { revolute = true, continuous = true, prismatic = true, planar = true }
-- coordinates of each URDF joint type in `q` (floating: x y z, then the
-- quaternion w x y z; planar: the two in-plane offsets, then the angle)
-- the quantity (world/ranges.lua) of each; a quaternion's entries are
-- checked as a unit quaternion by world/joints.lua
local Q_KEYS = { revolute = { "angle" }, continuous = { "angle" }, prismatic = { "position" },
  planar = { "position", "position", "angle" }, floating = { "position", "position", "position" } }
local NQ = { revolute = 1, continuous = 1, prismatic = 1, fixed = 0, floating = 7, planar = 3 }

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
  if a.collisions ~= nil and type(a.collisions) ~= "boolean" then
    errors.raise(loc, "urdf collisions must be true (the default: the file's <collision> shapes) or false "
      .. "(the dynamics only), got %s", errors.describe(a.collisions))
  end
  o.collisions = a.collisions ~= false
  if a.srdf ~= nil and (type(a.srdf) ~= "string" or a.srdf == "") then
    errors.raise(loc, "urdf srdf must be a file name such as \"robot.srdf\", got %s", errors.describe(a.srdf))
  end
  o.srdf = a.srdf
  if a.q ~= nil and (type(a.q) ~= "table" or #a.q > 0) then
    errors.raise(loc, "urdf q must map joint names to initial positions, as in q = { elbow = 0.5 }, got %s",
      errors.describe(a.q))
  end
  o.q = a.q or {}
  -- package folders for package:// mesh names (world/mesh.lua), relative to the spec file
  local pp = a.package_path
  if type(pp) == "string" then
    local list = {}
    for dir in pp:gmatch("[^:]+") do list[#list + 1] = dir end
    pp = list
  end
  if pp ~= nil and (type(pp) ~= "table" or #pp == 0 and next(pp) ~= nil) then
    errors.raise(loc, "urdf package_path must be a folder, \"A:B\" or a list of folders, got %s", errors.describe(pp))
  end
  o.package_path = {}
  for i = 1, pp and #pp or 0 do
    if type(pp[i]) ~= "string" or pp[i] == "" then
      errors.raise(loc, "urdf package_path[%d] must be a folder name, got %s", i - 1, errors.describe(pp[i]))
    end
    o.package_path[i] = pp[i]:sub(1, 1) == "/" and pp[i] or util.dirname(loc.file) .. "/" .. pp[i]
  end
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
  local robot = read.robot(root, path, { collisions = o.collisions })
  local un = robot.unsupported
  if #un > 0 then
    local rest = {}
    for i = 2, math.min(#un, 8) do rest[#rest + 1] = string.format("line %d: %s", un[i].line, un[i].what) end
    if #un > 8 then rest[#rest + 1] = string.format("and %d more", #un - 8) end
    errors.raise(loc(path, un[1].line), "%s%s", un[1].what, #rest > 0 and string.format(
      " (%d unsupported elements in this file; also %s)", #un, table.concat(rest, "; ")) or "")
  end
  return robot, path
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
    for _, j in ipairs(robot.joints) do set[j.name] = (MOVABLE[j.type] and j.type ~= "planar") or nil end
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
    if j.type == "planar" then
      errors.raise(item.loc, "urdf actuated[%d]: joint '%s' is planar; a planar joint cannot be actuated "
        .. "(its three dofs are passive)", i - 1, n)
    end
    set[n] = true
  end
  return set
end

-- the link's collisions as shape declarations, in a frame where the link
-- frame sits at (xyz, rpy).  A cylinder (radius r, length L, along its z)
-- becomes the capsule inscribed in it with the same extent along its axis:
-- radius min(r, L/2), segment L - 2 min(r, L/2); notes[] counts the
-- cylinders shorter than their diameter (whose capsule is thinner).  A
-- mesh is read and hulled here (world/mesh.lua), relative to path's file.
local function shapes_of(l, o, xyz, rpy, notes, path)
  local out = {}
  for _, c in ipairs(l.collisions) do
    local sx, sr = frames.compose(xyz, rpy, c.xyz, c.rpy)
    local s = { c.type == "cylinder" and "capsule" or c.type, xyz = sx, rpy = sr,
      friction = o.friction, restitution = o.restitution }
    if c.type == "mesh" then
      s._hull = mesh.load(c.filename, c.scale, { base = util.dirname(path.file), dirs = o.package_path,
        loc = loc(path, c.mesh_line), what = string.format("link '%s'", errors.sanitize(l.name, 80)) })
    elseif c.type == "box" then
      s.size = c.size
    elseif c.type == "sphere" then
      s.radius = c.radius
    elseif c.type == "cylinder" then
      local r = math.min(c.radius, c.length / 2)
      if r < c.radius then notes.flat_cylinders = (notes.flat_cylinders or 0) + 1 end
      s.radius, s.length = r, c.length - 2 * r
    else
      s.radius, s.length = c.radius, c.length
    end
    out[#out + 1] = s
  end
  return out
end

-- the link's <visual>s (world/urdf_visual.lua) in a frame where the link
-- frame sits at (xyz, rpy): metadata for the viewer, which reads their
-- meshes (cli/page_visual.lua, relative to `base` and the package folders)
local function visuals_of(l, o, xyz, rpy, path, list)
  for _, v in ipairs(l.visuals) do
    local vx, vr = frames.compose(xyz, rpy, v.xyz, v.rpy)
    list[#list + 1] = { type = v.type, size = v.size, radius = v.radius, length = v.length, filename = v.filename,
      scale = v.scale, rgba = v.rgba, xyz = vx, rpy = vr, link = l.name, loc = loc(path, v.mesh_line or v.line),
      base = util.dirname(path.file), dirs = o.package_path }
  end
  return list
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
local function joint_of(j, pf, act, prefix)
  local t = JOINT_TYPES[j.type]
  local xyz, rpy = frames.compose(pf.xyz, pf.rpy, j.xyz, j.rpy)
  local out = { t, parent = pf.body, xyz = xyz, rpy = rpy, damping = j.damping, actuated = act[j.name] or nil }
  -- the URDF joint's name (with the prefix) where it is a name diagc can
  -- spell (letters, digits and single _); otherwise the child body's
  local jn = prefix .. j.name
  if jn:match("^[A-Za-z][A-Za-z0-9_]*$") and not jn:find("__", 1, true) and #jn <= 64 then out.name = jn end
  if t == "revolute" or t == "prismatic" then
    out.axis = j.axis
    -- Coulomb friction and the mimic coupling (world/couplings.lua): check_mimics named the leader's body
    if j.friction > 0 then out.friction = j.friction end
    if j.mimic then out.mimic = { j.mimic.body, multiplier = j.mimic.multiplier, offset = j.mimic.offset } end
  end
  local l = j.limit
  if l and (t == "revolute" or t == "prismatic") then
    local lim = { effort = l.effort, velocity = l.velocity }
    if l.lower and j.type ~= "continuous" then lim[1], lim[2] = l.lower, l.upper end
    if lim[1] or lim.effort or lim.velocity then out.limit = lim end
  end
  return out
end

-- two unit vectors spanning the plane normal to n
local function plane_axes(n)
  local len = math.sqrt(n[1] * n[1] + n[2] * n[2] + n[3] * n[3])
  local z = { n[1] / len, n[2] / len, n[3] / len }
  local a = math.abs(z[1]) < 0.9 and { 1, 0, 0 } or { 0, 1, 0 }
  local d = a[1] * z[1] + a[2] * z[2] + a[3] * z[3]
  local x = { a[1] - d * z[1], a[2] - d * z[2], a[3] - d * z[3] }
  local lx = math.sqrt(x[1] * x[1] + x[2] * x[2] + x[3] * x[3])
  x = { x[1] / lx, x[2] / lx, x[3] / lx }
  return x, { z[2] * x[3] - z[3] * x[2], z[3] * x[1] - z[1] * x[3], z[1] * x[2] - z[2] * x[1] }, z
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

-- The initial position of URDF joint j from the `q` field (nil: the
-- default), checked at the urdf item.
local function initial_q(item, o, j)
  local v = o.q[j.name]
  if v == nil then return nil end
  local n = NQ[j.type]
  if n == 0 then errors.raise(item.loc, "urdf q: joint '%s' is fixed and has no position", j.name) end
  if n == 1 and type(v) == "number" then v = { v } end
  if type(v) ~= "table" or #v ~= n then
    errors.raise(item.loc, "urdf q.%s: a %s joint takes %s, got %s", j.name, j.type,
      n == 1 and "a number" or string.format("a list of %d numbers", n), errors.describe(v))
  end
  local keys = Q_KEYS[j.type]
  for i = 1, n do
    local what = string.format("urdf q.%s%s", j.name, n == 1 and "" or string.format("[%d]", i - 1))
    if type(v[i]) ~= "number" then
      errors.raise(item.loc, "%s must be a number, got %s", what, errors.describe(v[i]))
    end
    if keys[i] then vals.ranged(item.loc, what, keys[i], v[i]) end
  end
  return v
end

local function check_q_names(item, o, robot)
  local names = {}
  for _, j in ipairs(robot.joints) do names[#names + 1] = j.name end
  for _, k in ipairs(util.sorted_keys(o.q)) do
    if type(k) ~= "string" or not robot.joint[k] then
      local best = type(k) == "string" and util.suggest(k, names)
      errors.raise(item.loc, "urdf q: %s is not a joint of '%s'%s", errors.describe(k), o.file,
        best and string.format("; did you mean '%s'?", best) or "")
    end
  end
end

-- each <mimic>: its leader a joint of the file that moves along one axis
-- (revolute, continuous, prismatic), as its follower, and no loop of
-- mimics; m.body = the leader's body (its child link's)
local function check_mimics(robot, path, o)
  local AXIAL = { revolute = true, continuous = true, prismatic = true }
  for _, j in ipairs(robot.joints) do
    local m = j.mimic
    if m then
      local l = robot.joint[m.joint]
      if not l then
        errors.raise(loc(path, m.line), "joint '%s': <mimic joint=\"%s\"> names no joint of this URDF", j.name,
          errors.sanitize(m.joint, 80))
      end
      if not AXIAL[j.type] then
        errors.raise(loc(path, m.line), "joint '%s': a %s joint cannot mimic another (only revolute, continuous and "
          .. "prismatic joints can); remove its <mimic>", j.name, j.type)
      end
      if not AXIAL[l.type] then
        errors.raise(loc(path, m.line), "joint '%s': <mimic joint=\"%s\"> names a %s joint; a leader must be "
          .. "revolute, continuous or prismatic", j.name, errors.sanitize(m.joint, 80), l.type)
      end
      local seen, x = { [j.name] = true }, l
      while x.mimic do
        if seen[x.name] then
          errors.raise(loc(path, m.line), "joint '%s': its <mimic> chain loops back to joint '%s' (each follows "
            .. "the next); give the chain one leader without <mimic>", j.name, x.name)
        end
        seen[x.name] = true
        x = robot.joint[x.mimic.joint]
        if not x then break end -- named no joint: its own <mimic> says so
      end
      m.body = o.prefix .. l.child
    end
  end
end

-- A massless root link on a moving base, fixed to exactly one link: that
-- link carries the base (DART and MuJoCo merge it so); nil otherwise.
local function root_carrier(root, kids, o)
  if o.base ~= "free" or not massless(root) or root.name == "world" then return nil end
  local fixed = {}
  for _, j in ipairs(kids[root.name] or {}) do
    if j.type == "fixed" then fixed[#fixed + 1] = j end
  end
  return #fixed == 1 and fixed[1] or nil
end

-- The facts `diagc info` and world/urdf_pairs.lua read: the file, its
-- links' bodies (link -> body name), the joints and dofs in order, the
-- adjacent link pairs, the SRDF and what was skipped.
local function facts(item, o, robot, path, link_body, joints_in_order, notes)
  local adjacent = {}
  for _, j in ipairs(robot.joints) do adjacent[#adjacent + 1] = { j.parent, j.child } end
  local mimics = {}
  for _, j in ipairs(robot.joints) do
    if j.mimic then mimics[#mimics + 1] = { joint = j.name, of = j.mimic.joint } end
  end
  return { file = path.file, name = o.file, loc = item.loc, srdf = o.srdf, link_body = link_body,
    joints = joints_in_order, adjacent = adjacent, skipped = robot.skipped, mimics = mimics, notes = notes, links = robot.links,
    filter_groups = robot.filter_groups, filter_group = robot.filter_group, visual_notes = robot.visual_notes }
end

function M.bodies(item)
  local o = options(item)
  local robot, path = document(item, o)
  local order, parent_joint, root = tree(robot, path)
  local act = actuated_set(item, o, robot)
  check_q_names(item, o, robot)
  check_mimics(robot, path, o)
  local kids = {}
  for _, j in ipairs(robot.joints) do
    kids[j.parent] = kids[j.parent] or {}
    kids[j.parent][#kids[j.parent] + 1] = j
  end
  local carrier = root_carrier(root, kids, o)
  -- frame[link] = where the link frame sits: in body `body` ("world": the
  -- fixed frame) at xyz, rpy; moving[link]: it moves
  local frame, moving, out, by_body, link_body, notes, joints_in_order = {}, {}, {}, {}, {}, {}, {}
  local ZERO = { 0, 0, 0 }
  local function add_body(l, name, joint, mass, com, inertia, shapes)
    local it = { _item = "body", loc = loc(path, l.line), visuals = visuals_of(l, o, ZERO, ZERO, path, {}),
      args = { name, mass = mass, com = com, inertia = inertia, joint = joint, shapes = shapes } }
    out[#out + 1], by_body[name] = it, it
    return it
  end
  for _, l in ipairs(order) do
    local j = parent_joint[l.name]
    local pf = j and frame[j.parent]
    if l == root and l.name == "world" then
      check_world_root(item, o, root, path)
      frame[l.name] = { body = "world", xyz = o.xyz, rpy = o.rpy }
    elseif l == root and carrier then
      -- placed with its carrier (below); the carrier's body holds its shapes
      local c = robot.link[carrier.child]
      local name = body_name(c, o, path)
      local ixyz, irpy = frames.invert(carrier.xyz, carrier.rpy)
      frame[l.name], moving[l.name] = { body = name, xyz = ixyz, rpy = irpy }, true
      notes.merged_root = l.name
    elseif j and j == carrier then
      local name = body_name(l, o, path)
      local xyz, rpy = frames.compose(o.xyz, o.rpy, j.xyz, j.rpy)
      local mass, com, inertia = mass_props(l, path, "its base is \"free\"")
      local it = add_body(l, name, { "free", parent = "world", xyz = xyz, rpy = rpy },
        mass, com, inertia, shapes_of(l, o, ZERO, ZERO, notes, path))
      local rs = shapes_of(root, o, frame[root.name].xyz, frame[root.name].rpy, notes, path)
      visuals_of(root, o, frame[root.name].xyz, frame[root.name].rpy, path, it.visuals)
      for _, sh in ipairs(rs) do it.args.shapes[#it.args.shapes + 1] = sh end
      frame[l.name], moving[l.name] = { body = name, xyz = ZERO, rpy = ZERO }, true
      joints_in_order[#joints_in_order + 1] = { name = "(root " .. root.name .. ")", type = "floating",
        body = name, nq = 7, nv = 6 }
    elseif j and j.type == "fixed" and massless(l) and pf.body ~= "world" then
      -- merged into the body it is fixed to: its shapes and child joints move there
      local xyz, rpy = frames.compose(pf.xyz, pf.rpy, j.xyz, j.rpy)
      frame[l.name], moving[l.name] = { body = pf.body, xyz = xyz, rpy = rpy }, moving[j.parent]
      local shapes = by_body[pf.body].args.shapes
      for _, sh in ipairs(shapes_of(l, o, xyz, rpy, notes, path)) do shapes[#shapes + 1] = sh end
      visuals_of(l, o, xyz, rpy, path, by_body[pf.body].visuals)
    elseif j and j.type == "planar" then
      -- two prismatic joints along the plane's axes and a revolute about
      -- its normal, through two massless bodies
      local name = body_name(l, o, path)
      local ex, ey, ez = plane_axes(j.axis)
      local q0 = initial_q(item, o, j) or { 0, 0, 0 }
      local base = joint_of(j, pf, act, o.prefix)
      local px, py = name .. "_planar_x", name .. "_planar_y"
      add_body(l, px, { "prismatic", parent = pf.body, xyz = base.xyz, rpy = base.rpy, axis = ex,
        damping = j.damping, q = { q0[1] } })
      add_body(l, py, { "prismatic", parent = px, axis = ey, damping = j.damping, q = { q0[2] } })
      by_body[px].massless, by_body[py].massless = true, true
      by_body[px].visuals, by_body[py].visuals = {}, {} -- the link's are its body's (below)
      local mass, com, inertia = mass_props(l, path, string.format("joint '%s' is planar", j.name))
      add_body(l, name, { "revolute", parent = py, axis = ez, damping = j.damping, q = { q0[3] } }, mass, com,
        inertia, shapes_of(l, o, ZERO, ZERO, notes, path))
      frame[l.name], moving[l.name] = { body = name, xyz = ZERO, rpy = ZERO }, true
      joints_in_order[#joints_in_order + 1] = { name = j.name, type = "planar", body = name, nq = 3, nv = 3 }
    else
      local name = body_name(l, o, path)
      local joint = j and joint_of(j, pf, act, o.prefix) or { o.base, parent = "world", xyz = o.xyz, rpy = o.rpy }
      if j then joint.q = initial_q(item, o, j) end
      local how = motion(j, o, j and moving[j.parent])
      local mass, com, inertia = mass_props(l, path, how)
      add_body(l, name, joint, mass, com, inertia, shapes_of(l, o, ZERO, ZERO, notes, path))
      frame[l.name], moving[l.name] = { body = name, xyz = ZERO, rpy = ZERO }, how ~= nil
      local t = j and j.type or (o.base == "free" and "floating" or "fixed")
      if NQ[t] > 0 then
        joints_in_order[#joints_in_order + 1] = { name = j and j.name or "(root " .. l.name .. ")", type = t,
          body = name, nq = NQ[t], nv = t == "floating" and 6 or NQ[t] }
      end
    end
    link_body[l.name] = frame[l.name].body
  end
  return out, facts(item, o, robot, path, link_body, joints_in_order, notes)
end

return M
