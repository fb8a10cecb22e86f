-- world/check.lua: a frozen world (spec/load.lua) -> a checked world.
-- Validates the bodies, joints, shapes and settings (each error at the
-- declaring line) and orders the bodies so that parents precede children.
--
-- Stage contract: frozen world W -> checked world C (M.check):
--   C.name, C.loc, C.gravity {3}, C.time_step, C.position_update
--     ("semi_implicit" | "parallel"), C.settings (contact options: erp,
--     allowed_penetration, bounce_threshold, cfm, margin, lcp_budget,
--     max_contacts; nil where the runtime's default applies;
--     contact_overflow "stop" | "drop")
--   C.bodies   in tree order (parents first), each
--     { name=, loc=, index= (1-based), mass=, com={3}, inertia={6},
--       joint = { type=, parent= (0 = world, else a body index), xyz={3},
--                 rpy={3}, axis={3} (unit), damping=, actuated=, limit= (nil or
--                 world/limits.lua's checked limit), friction= (nil or F),
--                 mimic= (nil or { leader=, multiplier=, offset=, body= (the
--                 leader's index) }: world/couplings.lua), q={}, v={} },
--       q0=, v0= (0-based offsets in q and v), nq=, nv=, welded= (true when
--       fixed to the world through fixed joints only), shapes = {...},
--       visuals = nil | { ... } (an imported link's <visual>s, world/urdf.lua:
--       drawn by the viewer, never collided nor generated) }
--   C.nb, C.nq, C.nv, C.actuated { {body=, dof= (0-based in v)} ... }
--   C.shapes   every shape { body= (index, 0 = world), type= ("sphere" "box"
--                "capsule" "plane"), size={3} (radius; half extents;
--                radius and half length), xyz=, rpy=, friction=, restitution=,
--                loc= }
--   C.pairs    candidate pairs { a=, b= (shape indices), friction=, restitution= }
--   C.q_init, C.v_init   the initial q and v
--   C.robots   the imported URDFs' facts (world/urdf.lua: file, joints and
--              dofs in order, link -> body, skipped elements, notes)
--   C.excluded the robots' self-collision pairs left out, with the reason
--              (world/urdf_pairs.lua)
local errors = require("diagc.errors")
local util = require("diagc.util")
local joints = require("diagc.world.joints")
local shapes = require("diagc.world.shapes")
local vals = require("diagc.world.values")
local urdf = require("diagc.world.urdf")
local size = require("diagc.world.size")
local pairs_ = require("diagc.world.urdf_pairs")

local M = {}

local BODY_FIELDS = { "name", "mass", "com", "inertia", "joint", "shapes" }

local DEFAULTS = { gravity = { 0, 0, -9.81 }, time_step = 1e-3, friction = 0.5, restitution = 0 }

local function body_item(item)
  local a = item.args
  for _, k in ipairs(util.sorted_keys(a)) do
    local ok = k == 1
    for _, f in ipairs(BODY_FIELDS) do ok = ok or k == f end
    if not ok then
      local best = util.suggest(tostring(k), BODY_FIELDS)
      errors.raise(item.loc, "body has no field '%s'%s", tostring(k),
        best and string.format("; did you mean '%s'?", best) or
          " (fields: " .. table.concat(BODY_FIELDS, ", ") .. ")")
    end
  end
  local name = a[1] == nil and a.name or a[1]
  if name == nil then errors.raise(item.loc, "body needs a name, as in body { \"link1\", ... }") end
  name = vals.identifier(item.loc, "body name", name)
  if name == "world" then
    errors.raise(item.loc, "body name 'world' is reserved for the fixed frame; choose another name")
  end
  -- visuals: a URDF link's <visual>s (world/urdf.lua), for the viewer only
  return { name = name, loc = item.loc, args = a, massless = item.massless, visuals = item.visuals }
end

-- Bodies in tree order; raises on unknown parents and kinematic loops.
local function tree_order(bodies, by_name)
  local order, state = {}, {}
  local function visit(b, chain)
    if state[b] == "done" then return end
    if state[b] == "active" then
      errors.raise(b.loc, "body '%s' closes a kinematic loop (%s); a world is a tree: "
        .. "every body has one parent and no body is its own ancestor", b.name,
        table.concat(chain, " -> "))
    end
    state[b] = "active"
    chain[#chain + 1] = b.name
    local p = b.joint.parent_name
    if p ~= "world" then visit(by_name[p], chain) end
    chain[#chain] = nil
    state[b] = "done"
    order[#order + 1] = b
  end
  for _, b in ipairs(bodies) do visit(b, {}) end
  return order
end

local function number_tree(order)
  local nq, nv, index = 0, 0, {}
  for i, b in ipairs(order) do index[b.name] = i end
  for i, b in ipairs(order) do
    b.index = i
    b.joint.parent = b.joint.parent_name == "world" and 0 or index[b.joint.parent_name]
    b.q0, b.v0 = nq, nv
    nq, nv = nq + b.nq, nv + b.nv
    local parent = b.joint.parent > 0 and order[b.joint.parent] or nil
    b.welded = b.joint.type == "fixed" and (parent == nil or parent.welded)
  end
  return nq, nv
end

-- a body on a fixed joint may omit its mass (then it has none); every
-- other body needs a mass and a positive definite inertia
local function check_masses(order)
  for _, b in ipairs(order) do
    if b.massless then
      -- a URDF planar joint's intermediate bodies (world/urdf.lua): no mass
      -- of their own; the link they carry has it
      b.mass, b.inertia = 0, { 0, 0, 0, 0, 0, 0 }
    elseif b.joint.type == "fixed" and b.mass == nil then
      b.mass, b.inertia = 0, { 0, 0, 0, 0, 0, 0 }
    elseif b.joint.type == "fixed" and b.inertia == nil then
      errors.raise(b.loc, "body '%s' has a mass but no inertia = {ixx, iyy, izz[, ixy, ixz, iyz]}", b.name)
    else
      if b.mass == nil then
        errors.raise(b.loc, "body '%s' needs a mass (it moves); only bodies on fixed joints "
          .. "may omit it", b.name)
      end
      vals.inertia_pd(b.loc, b.name, b.inertia)
    end
  end
end

-- a setting with two allowed words: the value (default `a`), or one line
-- naming both and what each means
local function either(loc, s, key, a, what_a, b, what_b)
  local v = s[key]
  if v == nil then return a end
  if v ~= a and v ~= b then
    errors.raise(loc, "%s must be \"%s\" (%s) or \"%s\" (%s), got %s", key, a, what_a, b, what_b, errors.describe(v))
  end
  return v
end

local function settings(world)
  local s = world.settings or {}
  local loc = world.loc
  local c = {}
  c.gravity = s.gravity == nil and DEFAULTS.gravity or vals.ranged_list(loc, "gravity", "gravity", s.gravity, 3)
  c.time_step = s.time_step == nil and DEFAULTS.time_step or vals.ranged(loc, "time_step", "time_step", s.time_step)
  c.position_update = s.position_update or "semi_implicit"
  if c.position_update ~= "semi_implicit" and c.position_update ~= "parallel" then
    errors.raise(loc, "position_update must be \"semi_implicit\" (q' = q + dt v', the default) or "
      .. "\"parallel\" (q' = q + dt v), got %s", errors.describe(c.position_update))
  end
  c.friction = s.friction == nil and DEFAULTS.friction or vals.ranged(loc, "friction", "friction", s.friction)
  c.restitution = s.restitution == nil and DEFAULTS.restitution
    or vals.ranged(loc, "restitution", "restitution", s.restitution)
  c.settings = {}
  for _, k in ipairs({ "erp", "allowed_penetration", "bounce_threshold", "cfm", "margin", "lcp_tol",
    "lcp_budget", "max_contacts" }) do
    if s[k] ~= nil then c.settings[k] = vals.ranged(loc, k, k, s[k]) end
  end
  c.settings.restitution_passes = 20
  if s.restitution_passes ~= nil then
    c.settings.restitution_passes = vals.ranged(loc, "restitution_passes", "restitution_passes", s.restitution_passes)
  end
  if s.check_lcp ~= nil and type(s.check_lcp) ~= "boolean" then
    errors.raise(loc, "check_lcp must be true or false, got %s", errors.describe(s.check_lcp))
  end
  c.settings.check_lcp = s.check_lcp == true
  if s.gradients ~= nil and type(s.gradients) ~= "boolean" then
    errors.raise(loc, "gradients must be true (the step's Jacobians: a grad cache entry, the default) or false "
      .. "(no derivative code: smaller and faster to compile), got %s", errors.describe(s.gradients))
  end
  c.settings.gradients = s.gradients ~= false
  c.settings.dynamics = s.dynamics or "auto"
  if c.settings.dynamics ~= "auto" and c.settings.dynamics ~= "unrolled" and c.settings.dynamics ~= "looped" then
    errors.raise(loc, "dynamics must be \"auto\" (unrolled code for small trees, loops over tables above a size, "
      .. "the default), \"unrolled\" or \"looped\" (docs/world.md §6), got %s", errors.describe(s.dynamics))
  end
  c.settings.contact_method = either(loc, s, "contact_method", "sparse", "the default: sparse warm-started "
    .. "solves of large contact islands", "dense", "every island's LCP formed densely: the reference")
  c.settings.contact_overflow = either(loc, s, "contact_overflow", "stop", "a step that finds more contacts than "
    .. "max_contacts fails the simulation, the default", "drop", "it keeps the first max_contacts and counts the "
    .. "rest; docs/world.md, \"Capacity\"")
  c.pose = either(loc, s, "pose", "quaternion", "each body's pose output is x y z qw qx qy qz, the default",
    "rpy", "x y z roll pitch yaw")
  c.settings.bounce_gradient = s.bounce_gradient or "approximate"
  if c.settings.bounce_gradient ~= "approximate" and c.settings.bounce_gradient ~= "exact" then
    errors.raise(loc, "bounce_gradient must be \"approximate\" (DiffDART's bounce factor on the position "
      .. "update, the default) or \"exact\" (the derivative of the discrete step), got %s",
      errors.describe(s.bounce_gradient))
  end
  return c
end

function M.check(world)
  local c = settings(world)
  c.name, c.loc = world.name, world.loc
  local bodies, by_name = {}, {}
  local items = {}
  c.robots = {}
  for _, item in ipairs(world.items) do
    if item._item == "urdf" then
      local its, robot = urdf.bodies(item)
      c.robots[#c.robots + 1] = robot
      for _, it in ipairs(its) do items[#items + 1] = it end
    else
      items[#items + 1] = item
    end
  end
  for _, item in ipairs(items) do
    local b = body_item(item)
    if by_name[b.name] then
      errors.raise(item.loc, "world \"%s\" already has a body named '%s'", world.name, b.name)
    end
    local what = "body '" .. b.name .. "'"
    b.mass = b.args.mass ~= nil and vals.ranged(item.loc, what .. " mass", "mass", b.args.mass) or nil
    b.com = b.args.com == nil and { 0, 0, 0 } or vals.ranged_list(item.loc, what .. " com", "position", b.args.com, 3)
    b.inertia = vals.inertia(item.loc, b.args.inertia, what .. " inertia")
    b.joint = joints.check(b, b.args.joint)
    bodies[#bodies + 1] = b
    by_name[b.name] = b
  end
  if #bodies == 0 then
    errors.raise(world.loc, "world \"%s\" has no bodies; add body { \"name\", mass = ..., joint = ... }",
      world.name)
  end
  for _, b in ipairs(bodies) do
    local p = b.joint.parent_name
    if p ~= "world" and not by_name[p] then
      local names = {}
      for _, x in ipairs(bodies) do names[#names + 1] = x.name end
      local best = util.suggest(p, names)
      errors.raise(b.loc, "body '%s': its joint's parent '%s' is not a body of this world%s", b.name, p,
        best and string.format("; did you mean '%s'?", best) or " (use \"world\" for the fixed frame)")
    end
  end
  c.bodies = tree_order(bodies, by_name)
  c.nb = #c.bodies
  c.nq, c.nv = number_tree(c.bodies)
  size.tree(c) -- before anything grows with the tree or the pairs
  check_masses(c.bodies)
  require("diagc.world.couplings").resolve(c, by_name) -- each mimic's leader
  c.actuated, c.q_init, c.v_init = joints.layout(c.bodies)
  shapes.check(c, world.settings or {})
  pairs_.apply(c) -- an imported robot's excluded self-collision pairs
  return c
end

return M
