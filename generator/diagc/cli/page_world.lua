-- cli/page_world.lua: what the viewer's 3D replay (viewer/src/world.js,
-- docs/viewer.md "Worlds") needs of each world leaf, read from the checked
-- world as cli/info_world.lua reads it: the bodies in tree order with their
-- joints' constant frames (the numbers world/kinematics.lua folds into the
-- generated C), their offsets in q, their collision shapes as the runtime
-- collides them (a mesh as its convex hull, a URDF cylinder as its capsule),
-- the initial q, and which logged ports give the bodies' poses: the world's
-- `poses` (R and origin of every body), its `position` (q, from which the
-- page computes the poses), or a body's own `B.pose`; and its `contacts`
-- port (world/signals.lua), whose logged points and normals it can show;
-- and the bodies' visual geometry (a URDF's <visual>s: cli/page_visual.lua).
local json = require("diagc.cli.json")
local kin = require("diagc.world.kinematics")
local visual = require("diagc.cli.page_visual")

local M = {}

local function join(a, b) return a == "" and b or (a .. "." .. b) end

local function arr(t)
  local a = json.array()
  for i, x in ipairs(t) do a[i] = x end
  return a
end

-- a hull as flat vertices and faces (0-based vertex indices, counter-clockwise
-- seen from outside)
local function hull_of(h)
  local v, f = json.array(), json.array()
  for _, p in ipairs(h.vertices) do
    v[#v + 1] = p[1]; v[#v + 1] = p[2]; v[#v + 1] = p[3]
  end
  for _, face in ipairs(h.faces) do
    local ids = json.array()
    for k, i in ipairs(face.verts) do ids[k] = i - 1 end
    f[#f + 1] = ids
  end
  return { vertices = v, faces = f }
end

local function shapes_of(b)
  local list = json.array()
  for _, s in ipairs(b.shapes or {}) do
    list[#list + 1] = { type = s.type, size = arr(s.size), xyz = arr(s.xyz), rpy = arr(s.rpy),
      hull = s.type == "hull" and hull_of(s.hull) or nil }
  end
  return list
end

function M.describe(F)
  local list = json.array()
  for _, ctx in ipairs(F.leaves) do
    local C = ctx.type.world
    if C then
      local bodies = json.array()
      local visuals, meshes, notes, triangles = visual.describe(C)
      for bi, b in ipairs(C.bodies) do
        local Ro, o, a = kin.frame(b)
        bodies[#bodies + 1] = { name = b.name, parent = b.joint.parent - 1, joint = b.joint.type,
          R = arr(Ro), o = arr(o), axis = arr(a), q = b.q0, nq = b.nq, mass = b.mass or 0,
          com = arr(b.com or { 0, 0, 0 }), shapes = shapes_of(b),
          pose = not b.welded and join(ctx.path, b.name .. ".pose") or nil, visuals = visuals[bi] }
      end
      list[#list + 1] = { path = ctx.path, name = C.name, bodies = bodies, q = arr(C.q_init),
        position = join(ctx.path, "position"), poses = join(ctx.path, "poses"), pose_form = C.pose or "quaternion",
        contacts = #C.pairs > 0 and join(ctx.path, "contacts") or nil,
        meshes = #meshes > 0 and meshes or nil, triangles = #meshes > 0 and triangles or nil,
        visual_notes = #notes > 0 and arr(notes) or nil }
    end
  end
  return list
end

return M
